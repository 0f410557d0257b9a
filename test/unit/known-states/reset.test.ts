import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox, SandboxOptions } from '../../../src/index.js';
import { ControlClient } from '../../support/control.js';
import { ApiClient, accountPayment, freshReference, sandboxForTest } from '../../support/sandbox.js';

/**
 * What a reset returns to, whatever the flags and however often the sandbox
 * restarted on the same store file: the state the start-up's `--snapshot`,
 * then `--fixtures`, make from nothing; nothing without them; nothing with
 * `?to=empty` (docs/decisions.md#d85-reset-returns-to-the-start-files).
 */

const PUB = 'SBTESTPUBK_resetbase0001';
const SEC = 'SBTESTSECK_resetbase0001';

let dir: string;
const open: Sandbox[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payments-sandbox-reset-'));
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((sandbox) => sandbox.close()));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function started(options: SandboxOptions): Promise<{ sandbox: Sandbox; control: ControlClient; api: ApiClient }> {
  const sandbox = await sandboxForTest(options);
  open.push(sandbox);
  return { sandbox, control: await ControlClient.for(sandbox), api: await ApiClient.for(sandbox) };
}

async function stopped(sandbox: Sandbox): Promise<void> {
  open.splice(open.indexOf(sandbox), 1);
  await sandbox.close();
}

/** An account payment paid with its OTP, and one left pending. */
const fixtures = {
  version: 1,
  merchant: { publicKey: PUB, secretKey: SEC },
  steps: [
    { id: 'paid', api: { method: 'POST', path: '/payments/initiates', body: accountPayment({ publicKey: PUB, paymentReference: 'RB-FIX-1' }) }, expect: { code: '20' } },
    { api: { method: 'POST', path: '/payments/validate', body: { linkingReference: '${paid.data.payments.linkingReference}', otp: '123456' } }, expect: { code: '00' } },
    { api: { method: 'POST', path: '/payments/initiates', body: accountPayment({ publicKey: PUB, paymentReference: 'RB-FIX-2' }) } },
  ],
};

const references = (sandbox: Sandbox, publicKey = PUB) => sandbox.store.payments(publicKey).map((payment) => payment.paymentReference).sort();

async function fixturesFile(): Promise<string> {
  const file = join(dir, `fixtures-${freshReference()}.json`);
  await writeFile(file, JSON.stringify(fixtures));
  return file;
}

describe('a reset', () => {
  it('with --data alone, after a restart, empties the store: what earlier runs left is no start-up state', async () => {
    const dataFile = join(dir, `data-${freshReference()}.json`);
    const first = await started({ dataFile });
    const merchant = await first.api.merchant();
    await first.api.as(merchant, 'POST', '/payments/initiates', accountPayment({ paymentReference: 'RB-DATA-1' }));
    await stopped(first.sandbox);

    const { sandbox, control } = await started({ dataFile });
    expect(sandbox.store.payments(merchant.publicKey)).toHaveLength(1);
    expect((await control.send('POST', '/reset')).body).toEqual({ reset: 'all', to: 'empty' });
    expect(sandbox.store.payments(merchant.publicKey)).toEqual([]);
  });

  it('with --fixtures, after a restart on the same store file, returns to the fixtures alone: later payments go, changed ones come back', async () => {
    const dataFile = join(dir, `data-${freshReference()}.json`);
    const file = await fixturesFile();
    const first = await started({ dataFile, fixtures: [file] });
    expect(references(first.sandbox)).toEqual(['RB-FIX-1', 'RB-FIX-2']);
    const merchant = await first.api.merchant({ publicKey: PUB, secretKey: SEC });
    await first.api.as(merchant, 'POST', '/payments/initiates', accountPayment({ publicKey: PUB, paymentReference: 'RB-LATER-1' }));
    await stopped(first.sandbox);

    // The restart keeps what the store file held, fixtures included, and loads them no second time.
    const { sandbox, control, api } = await started({ dataFile, fixtures: [file] });
    expect(references(sandbox)).toEqual(['RB-FIX-1', 'RB-FIX-2', 'RB-LATER-1']);
    const again = await api.merchant({ publicKey: PUB, secretKey: SEC });
    expect((await api.send('POST', '/payments/refund', { publicKey: PUB, paymentReference: 'RB-FIX-1', amount: '150.00', currency: 'NGN', country: 'NG' }, again.basic)).body.data.code).toBe('00');
    expect(sandbox.store.payment(PUB, 'RB-FIX-1')?.status).toBe('REFUNDED');
    const stranger = await api.merchant();
    await api.as(stranger, 'POST', '/payments/initiates', accountPayment({ paymentReference: 'RB-STRANGER-1' }));

    // One merchant: its fixtures' state, the stranger's payment left alone.
    expect((await control.send('POST', '/reset', { query: { publicKey: PUB } })).body).toEqual({ reset: PUB, to: 'baseline' });
    expect(references(sandbox)).toEqual(['RB-FIX-1', 'RB-FIX-2']);
    expect(sandbox.store.payment(PUB, 'RB-FIX-1')?.status).toBe('SUCCESSFUL');
    expect(references(sandbox, stranger.publicKey)).toEqual(['RB-STRANGER-1']);

    // Everything: the fixtures' state only; the stranger stays known, its token working.
    await api.as(again, 'POST', '/payments/initiates', accountPayment({ publicKey: PUB, paymentReference: 'RB-LATER-2' }));
    expect((await control.send('POST', '/reset')).body).toEqual({ reset: 'all', to: 'baseline' });
    expect(references(sandbox)).toEqual(['RB-FIX-1', 'RB-FIX-2']);
    expect(sandbox.store.payments(stranger.publicKey)).toEqual([]);
    expect((await api.as(stranger, 'POST', '/payments/initiates', accountPayment({ paymentReference: freshReference() }))).status).toBe(200);
  });

  it('with --snapshot, on a store file that held other payments, returns to the snapshot (then the fixtures)', async () => {
    const seed = await started({});
    expect((await seed.control.send('POST', '/fixtures', { body: fixtures })).status).toBe(200);
    const snapshotFile = join(dir, `snapshot-${freshReference()}.json`);
    await writeFile(snapshotFile, JSON.stringify((await seed.control.send('GET', '/snapshot')).body));
    await stopped(seed.sandbox);

    const dataFile = join(dir, `data-${freshReference()}.json`);
    const first = await started({ dataFile });
    const other = await first.api.merchant();
    await first.api.as(other, 'POST', '/payments/initiates', accountPayment({ paymentReference: 'RB-OLD-1' }));
    await stopped(first.sandbox);

    const { sandbox, control, api } = await started({ dataFile, snapshot: snapshotFile });
    const merchant = await api.merchant({ publicKey: PUB, secretKey: SEC });
    await api.as(merchant, 'POST', '/payments/initiates', accountPayment({ publicKey: PUB, paymentReference: 'RB-LATER-3' }));
    expect((await control.send('POST', '/reset')).body).toEqual({ reset: 'all', to: 'baseline' });
    expect(references(sandbox)).toEqual(['RB-FIX-1', 'RB-FIX-2']);
    expect(sandbox.store.payments(other.publicKey)).toEqual([]);
  });

  it('?to=empty forgets everything, fixtures included, whatever the flags', async () => {
    const { sandbox, control } = await started({ fixtures: [await fixturesFile()] });
    expect(references(sandbox)).toEqual(['RB-FIX-1', 'RB-FIX-2']);
    expect((await control.send('POST', '/reset', { query: { to: 'empty' } })).body).toEqual({ reset: 'all', to: 'empty' });
    expect(sandbox.store.payments(PUB)).toEqual([]);
    // The baseline is still there for the next plain reset.
    expect((await control.send('POST', '/reset')).body).toEqual({ reset: 'all', to: 'baseline' });
    expect(references(sandbox)).toEqual(['RB-FIX-1', 'RB-FIX-2']);
  });
});
