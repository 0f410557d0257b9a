import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { ControlClient } from '../../support/control.js';
import { accountPayment, ApiClient, momoPayment, sandboxForTest, type TestMerchant } from '../../support/sandbox.js';

/**
 * Each merchant's clock over the control API (README, "Time"): moved on its
 * own, to a time or by a duration, never back; and a settlement the control
 * API makes at once drops what was due. What falls due and the merchant's
 * notifications, to a receiver on loopback: test/notifications/clock.test.ts.
 */

let sandbox: Sandbox;
let api: ApiClient;
let control: ControlClient;

beforeAll(async () => {
  sandbox = await sandboxForTest();
  api = await ApiClient.for(sandbox);
  control = await ControlClient.for(sandbox);
});
afterAll(() => sandbox.close());

const clockOf = async (merchant: TestMerchant) => (await control.send('GET', `/clock/${merchant.publicKey}`)).body;
const advance = async (merchant: TestMerchant, body: Record<string, unknown>) => control.send('POST', `/clock/${merchant.publicKey}/advance`, { body });
const statusOf = async (merchant: TestMerchant, reference: string) =>
  (await api.send('GET', `/payments/query/${reference}`, undefined, `Bearer ${merchant.token}`)).body.data;

describe('outcomes that arrive later', () => {
  it('the control API settle still settles at once, and what was due is then dropped', async () => {
    const merchant = await api.merchant();
    await api.as(merchant, 'POST', '/payments/initiates', momoPayment({ paymentReference: 'CLK-SETTLE-NOW', mobileNumber: '233200000010' }));
    const settled = await control.send('POST', '/payments/CLK-SETTLE-NOW/complete', { body: { outcome: 'failure', publicKey: merchant.publicKey } });
    expect(settled.body).toMatchObject({ status: 'FAILED' });
    expect(settled.body.due).toBeUndefined();
    // No notification URL, so no delivery either: nothing at all is left due.
    expect((await clockOf(merchant)).pending).toEqual([]);
    expect((await advance(merchant, { by: 'PT1M' })).body.fired.filter((fired: { kind: string }) => fired.kind === 'settlement')).toEqual([]);
    expect(await statusOf(merchant, 'CLK-SETTLE-NOW')).toMatchObject({ code: 'S12' });
  });
});

describe('a clock per merchant', () => {
  it('moves one merchant clock only: the other merchant times, payments and expiries stay where they are', async () => {
    const moved = await api.merchant();
    const still = await api.merchant();
    await api.as(still, 'POST', '/payments/initiates', accountPayment({ paymentReference: 'CLK-STILL' }));
    const advanced = await advance(moved, { by: 'P2D' });
    expect(advanced.body.offsetMs).toBe(2 * 86_400_000);
    expect(advanced.body.offset).toBe('P2D');
    expect((await clockOf(still)).offsetMs).toBe(0);
    expect(await statusOf(still, 'CLK-STILL')).toMatchObject({ code: '20' });
    // A payment of the moved merchant carries its time.
    const created = await api.as(moved, 'POST', '/payments/initiates', accountPayment({ paymentReference: 'CLK-MOVED' }));
    expect(created.status).toBe(200);
    const stored = (await control.send('GET', '/payments/CLK-MOVED', { query: { publicKey: moved.publicKey } })).body;
    expect(Date.parse(stored.createdAt) - Date.now()).toBeGreaterThan(2 * 86_400_000 - 60_000);
  });

  it('advances to a time, refuses to go back, and refuses what is not one duration or one time', async () => {
    const merchant = await api.merchant();
    const target = new Date(Date.now() + 3_600_000).toISOString();
    const moved = await advance(merchant, { to: target });
    expect(moved.status).toBe(200);
    expect(moved.body.now >= target).toBe(true);
    for (const body of [{ to: '2020-01-01T00:00:00Z' }, { by: 'P1Y' }, { by: 'two hours' }, { by: 'PT1H', to: target }, {}]) {
      const refused = await advance(merchant, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error).toBe('INPUT');
    }
    expect((await clockOf(merchant)).offsetMs).toBe(moved.body.offsetMs);
  });
});
