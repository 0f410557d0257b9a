import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { liftFileSizeLimit, limitFileSize, prlimitAvailable } from '../support/file-size-limit.js';
import { ApiClient, accountPayment, sandboxWithMerchant, type TestMerchant } from '../support/sandbox.js';

/**
 * A full disk as the API's clients see it: writes answer 503 Store
 * unavailable and keep nothing, reads keep working, and writes work again
 * once the disk has room, without a restart (README, "Storage"). The disk is
 * made full for real (test/support/file-size-limit.ts).
 */

let dir: string;
let sandbox: Sandbox;
let api: ApiClient;
let merchant: TestMerchant;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payments-sandbox-outage-'));
  ({ sandbox, api, merchant } = await sandboxWithMerchant({ listen: true, dataFile: join(dir, 'store.json') }));
});
afterEach(liftFileSizeLimit);
afterAll(async () => {
  await sandbox.close();
  await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!prlimitAvailable)('a store that cannot write', () => {
  it('answers writes 503 Store unavailable and keeps nothing of them, keeps answering reads, and recovers by itself', { timeout: 20_000 }, async () => {
    const kept = accountPayment();
    expect((await api.as(merchant, 'POST', '/payments/initiates', kept)).body.data.code).toBe('20');
    limitFileSize((await stat(join(dir, 'store.json.wal'))).size + 10);

    const refused = accountPayment();
    const answer = await api.as(merchant, 'POST', '/payments/initiates', refused);
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual({ message: 'Store unavailable', error: 'PROCESSING' });
    expect(sandbox.store.payment(merchant.publicKey, String(refused.paymentReference))).toBeUndefined();
    const again = await api.as(merchant, 'POST', '/payments/initiates', accountPayment());
    expect(again.status).toBe(503);

    const health = await fetch(`${sandbox.url}/__sandbox/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ status: 'store-unavailable', error: expect.stringContaining('store.json.wal') });

    const read = await api.send('GET', `/payments/query/${String(kept.paymentReference)}`, undefined, `Bearer ${merchant.token}`);
    expect(read.status).toBe(200);
    expect(read.body.data.code).toBe('20');

    liftFileSizeLimit();
    let recovered = 0;
    for (let attempt = 0; attempt < 50 && recovered !== 200; attempt += 1) {
      await sleep(100);
      recovered = (await api.as(merchant, 'POST', '/payments/initiates', accountPayment())).status;
    }
    expect(recovered).toBe(200);
    expect((await fetch(`${sandbox.url}/__sandbox/health`)).status).toBe(200);
  });
});
