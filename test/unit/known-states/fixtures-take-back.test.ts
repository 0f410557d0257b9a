import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { ControlClient } from '../../support/control.js';
import { ApiClient, accountPayment, sandboxForTest } from '../../support/sandbox.js';

/**
 * A failing fixtures load takes back its own changes only
 * (docs/decisions.md#d76-fixtures): what other clients were answered while it
 * ran stays, and so does a record of the load's that a client changed since.
 * The load's last step is held by a delay override the load itself sets; the
 * delay's timer is faked, so the other clients' requests run, in process,
 * while that step waits, however long they take on a loaded machine.
 */

const FIX = { publicKey: 'SBTESTPUBK_takeback0001', secretKey: 'SBTESTSECK_takeback0001' };
const HELD_MS = 30_000;

const open: Sandbox[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(open.splice(0).map((sandbox) => sandbox.close()));
});

/** Two payments of FIX and, between them, an override that holds FIX's next answer: the second fails its expect once let go. */
const failingLoad = {
  version: 1,
  merchant: FIX,
  steps: [
    { id: 'own', api: { method: 'POST', path: '/payments/initiates', body: accountPayment({ publicKey: FIX.publicKey, paymentReference: 'TB-OWN-1' }) }, expect: { code: '20' } },
    { control: { method: 'POST', path: '/overrides', body: { publicKey: FIX.publicKey, delay: { ms: HELD_MS }, times: 1 } } },
    { id: 'last', api: { method: 'POST', path: '/payments/initiates', body: accountPayment({ publicKey: FIX.publicKey, paymentReference: 'TB-OWN-2' }) }, expect: { code: '00' } },
  ],
};

/**
 * Starts the failing load and resolves once its last step has made its
 * payment and waits on its delay; `finish` lets the delay go and gives the load's answer.
 */
async function loadHeld(sandbox: Sandbox): Promise<{ settled: () => boolean; finish: () => Promise<{ status: number; body: any }> }> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  let done = false;
  // Sent as any client of the control API sends it, without a client's own timeout, which the faked timers would run.
  const loading = sandbox
    .handle({ method: 'POST', url: '/__sandbox/fixtures', headers: { 'content-type': 'application/json' }, body: new TextEncoder().encode(JSON.stringify(failingLoad)) })
    .then((answer) => ({ status: answer.status, body: JSON.parse(answer.body.toString('utf8')) }))
    .finally(() => void (done = true));
  for (let turn = 0; !(sandbox.store.payment(FIX.publicKey, 'TB-OWN-2') && vi.getTimerCount() > 0); turn += 1) {
    expect(done, 'the load ended before its last step was held').toBe(false);
    expect(turn).toBeLessThan(100_000);
    await nextTurn();
  }
  return {
    settled: () => done,
    finish: async () => {
      vi.advanceTimersByTime(HELD_MS);
      vi.useRealTimers();
      return loading;
    },
  };
}

describe('a fixtures load that fails', () => {
  it("takes back its own changes and none of another client's: 500 payments, a webhook URL, an override, a fault and a new merchant stay", { timeout: 120_000 }, async () => {
    const sandbox = await sandboxForTest();
    open.push(sandbox);
    const api = await ApiClient.for(sandbox);
    const control = await ControlClient.for(sandbox);
    const other = await api.merchant();
    const load = await loadHeld(sandbox);

    // While the load runs: a merchant's first key exchange, and another merchant's payments, override, fault and notification URL.
    const newcomer = await api.merchant();
    const references: string[] = [];
    for (let at = 0; at < 500; at += 1) {
      const body = accountPayment({ paymentReference: `TB-OTHER-${at}` });
      const answer = await api.as(other, 'POST', '/payments/initiates', body);
      expect(answer.status).toBe(200);
      references.push(body.paymentReference as string);
    }
    const override = await control.override({ scenario: 'account-pending', publicKey: other.publicKey, times: 2 });
    expect((await control.send('POST', `/webhooks/${other.publicKey}/faults`, { body: { kind: 'never', times: 3 } })).status).toBe(201);
    expect((await control.send('PUT', `/webhooks/${other.publicKey}`, { body: { url: 'http://127.0.0.1:9/hook' } })).status).toBe(200);
    expect(load.settled(), 'the load must still be running when the other clients are answered').toBe(false);

    const refused = await load.finish();
    expect(refused.status).toBe(400);
    expect(refused.body.step).toEqual({ index: 2, id: 'last', field: '/steps/2/expect/code' });
    expect(refused.body.message).toMatch(/^step 2 \(last\): expected code 00, the answer has status 200 and code 20/);

    // The other clients' acknowledged work is all there.
    expect(sandbox.store.payments(other.publicKey).map((payment) => payment.paymentReference)).toEqual(references);
    expect((await control.send('GET', `/webhooks/${other.publicKey}`)).body.url).toBe('http://127.0.0.1:9/hook');
    expect((await control.send('GET', '/overrides', { query: { publicKey: other.publicKey } })).body.overrides.map((held: { id: string }) => held.id)).toEqual([override.id]);
    expect((await control.send('GET', `/webhooks/${other.publicKey}`)).body.faults).toHaveLength(1);
    expect(sandbox.store.merchant(newcomer.publicKey)).toBeDefined();
    expect((await api.as(newcomer, 'POST', '/payments/initiates', accountPayment())).status).toBe(200);
    // The load's own are gone: its payments, its merchant, the override it set.
    expect(sandbox.store.payment(FIX.publicKey, 'TB-OWN-1')).toBeUndefined();
    expect(sandbox.store.payment(FIX.publicKey, 'TB-OWN-2')).toBeUndefined();
    expect(sandbox.store.merchant(FIX.publicKey)).toBeUndefined();
    expect((await control.send('GET', '/overrides', { query: { publicKey: FIX.publicKey } })).body.overrides).toEqual([]);
  });

  it('keeps a payment of its own that a client changed since, with its merchant, and says so', { timeout: 60_000 }, async () => {
    const sandbox = await sandboxForTest();
    open.push(sandbox);
    const api = await ApiClient.for(sandbox);
    const load = await loadHeld(sandbox);

    // A client of the same merchant pays the load's first payment with its OTP while the load runs.
    const client = await api.merchant(FIX);
    const { linkingReference } = sandbox.store.payment(FIX.publicKey, 'TB-OWN-1')!;
    const paid = await api.as(client, 'POST', '/payments/validate', { linkingReference, otp: '123456' });
    expect(paid.body.data.code).toBe('00');

    const refused = await load.finish();
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain(`payment TB-OWN-1 of ${FIX.publicKey}`);
    expect(refused.body.message).toContain(`merchant ${FIX.publicKey}`);
    expect(refused.body.message).toMatch(/the load's own changes were taken back, but for .*, which others changed since and keep as they are/);
    expect(sandbox.store.payment(FIX.publicKey, 'TB-OWN-1')?.status).toBe('SUCCESSFUL');
    expect(sandbox.store.payment(FIX.publicKey, 'TB-OWN-2')).toBeUndefined();
    expect((await api.as(client, 'GET', '/payments/query/TB-OWN-1')).status).toBe(200);
  });
});
