import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { HISTORY_LIMIT, type PaymentHistoryEntry } from '../../../src/model/records.js';
import { ControlClient } from '../../support/control.js';
import { accountPayment, ApiClient, sandboxForTest } from '../../support/sandbox.js';
import { merchantRecord, paymentRecord, PUBLIC_A, storeFiles, writeSnapshot } from '../../store/fixtures.js';

/**
 * A payment's history on a store file (docs/decisions.md#d79-payment-history):
 * it comes back after a restart, from the snapshot and from the log; a store
 * file written before it was kept still opens; the store refuses a history
 * beyond its bound.
 */

const TIMEOUT = 30_000;
const files = storeFiles('payments-sandbox-history-');
let sandboxes: Sandbox[] = [];

afterEach(async () => {
  for (const sandbox of sandboxes) await sandbox.close().catch(() => undefined);
  sandboxes = [];
});

async function startOn(file: string): Promise<Sandbox> {
  const sandbox = await sandboxForTest({ dataFile: file });
  sandboxes.push(sandbox);
  return sandbox;
}

const statesOf = async (sandbox: Sandbox, reference: string): Promise<PaymentHistoryEntry[]> => {
  const answer = await (await ControlClient.for(sandbox)).send('GET', `/payments/${reference}/story`);
  expect(answer.status).toBe(200);
  return answer.body.states;
};

/** An account payment initiated and paid by OTP: two states. */
async function paid(sandbox: Sandbox): Promise<string> {
  const api = await ApiClient.for(sandbox);
  const merchant = await api.merchant();
  const payment = accountPayment();
  const initiated = await api.as(merchant, 'POST', '/payments/initiates', payment);
  await api.as(merchant, 'POST', '/payments/validate', { linkingReference: initiated.body.data.payments.linkingReference, otp: '123456' });
  return String(payment.paymentReference);
}

describe("a payment's history on a store file", () => {
  it('comes back after close() and a new start on the same file', { timeout: TIMEOUT }, async () => {
    const first = await startOn(files.file);
    const reference = await paid(first);
    const before = await statesOf(first, reference);
    expect(before.map((state) => state.status)).toEqual(['PENDING', 'SUCCESSFUL']);
    await first.close();
    expect(await statesOf(await startOn(files.file), reference)).toEqual(before);
  });

  it('comes back from the log of a sandbox never closed', { timeout: TIMEOUT }, async () => {
    const first = await startOn(files.file);
    const reference = await paid(first);
    const before = await statesOf(first, reference);
    expect(before).toHaveLength(2);
    expect(await statesOf(await startOn(await files.crashCopy()), reference)).toEqual(before);
  });

  it('starts, for a payment of a store file written before it was kept, at its next change', { timeout: TIMEOUT }, async () => {
    await writeSnapshot(files.file, [paymentRecord(PUBLIC_A, 1)]);
    const sandbox = await startOn(files.file);
    const control = await ControlClient.for(sandbox);
    expect(await statesOf(sandbox, 'SBREF-STORE-0001')).toEqual([]);
    expect((await control.complete('SBREF-STORE-0001', { outcome: 'success' })).status).toBe(200);
    const states = await statesOf(sandbox, 'SBREF-STORE-0001');
    expect(states).toEqual([expect.objectContaining({ status: 'SUCCESSFUL', code: '00', event: 'settle' })]);
  });

  it(`is refused by the store beyond ${HISTORY_LIMIT} entries`, async () => {
    const store = await files.open();
    store.putMerchant(merchantRecord(PUBLIC_A));
    const entry: PaymentHistoryEntry = { at: '2025-01-01T12:00:00.000Z', status: 'PENDING', code: '20', scenario: 'account-pending', event: 'create' };
    expect(() => store.putPayment(paymentRecord(PUBLIC_A, 2, { history: Array.from({ length: HISTORY_LIMIT + 1 }, () => entry) }))).toThrow();
    store.putPayment(paymentRecord(PUBLIC_A, 3, { history: Array.from({ length: HISTORY_LIMIT }, () => entry) }));
    expect(store.payment(PUBLIC_A, 'SBREF-STORE-0003')?.history).toHaveLength(HISTORY_LIMIT);
  });
});
