import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { ControlClient } from '../../support/control.js';
import { accountPayment, ApiClient, order, sandboxForTest, type TestMerchant } from '../../support/sandbox.js';
import { everyRow } from './pages.js';

/**
 * Two merchants hammering one sandbox (with a real store file) at the same
 * time, some of their references the same: each sees only its own payments,
 * orders and journal entries, and resetting one leaves the other whole, also
 * after a restart on the same file.
 */

const PER_MERCHANT = 200;
/** References 0..SHARED-1 are used by both merchants. */
const SHARED = 40;
/** Requests in flight per merchant. */
const CONCURRENCY = 8;

let dir: string;
let dataFile: string;
let sandbox: Sandbox | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payments-sandbox-isolation-'));
  dataFile = join(dir, 'sandbox.json');
});
afterAll(async () => {
  await sandbox?.close();
  await rm(dir, { recursive: true, force: true });
});

interface Sent {
  payments: string[];
  orders: string[];
}

/** Request n of a merchant: even n initiate an account payment, odd n create an order. */
const referenceOf = (tag: string, n: number) => (n < SHARED ? `SBREF-SHARED-${n}` : `SBREF-${tag}-${n}`);

/** Sends the merchant's PER_MERCHANT requests, CONCURRENCY at a time; every one must succeed. */
async function hammer(api: ApiClient, merchant: TestMerchant, tag: string): Promise<Sent> {
  const sent: Sent = { payments: [], orders: [] };
  let next = 0;
  const worker = async () => {
    while (next < PER_MERCHANT) {
      const n = next++;
      const paymentReference = referenceOf(tag, n);
      if (n % 2 === 0) {
        const response = await api.as(merchant, 'POST', '/payments/initiates', accountPayment({ paymentReference }));
        expect(response.status, paymentReference).toBe(200);
        expect(response.body.data.code, paymentReference).toBe('20');
      } else {
        const response = await api.as(merchant, 'POST', '/payments/order', order({ paymentReference }));
        expect(response.status, paymentReference).toBe(200);
        expect(response.body.data.code, paymentReference).toBe('00');
        sent.orders.push(paymentReference);
      }
      sent.payments.push(paymentReference);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return sent;
}

const sorted = (values: string[]) => [...values].sort();
const referencesOf = (records: Array<{ paymentReference: string }>) => sorted(records.map((record) => record.paymentReference));
// The lists answer 100 rows a page unless told otherwise: a merchant's 200 payments take two.
const paymentsOf = async (control: ControlClient, publicKey: string) => (await everyRow(control, 'payments', { publicKey })).rows;
const ordersOf = async (control: ControlClient, publicKey: string) => (await everyRow(control, 'orders', { publicKey })).rows;

describe('two merchants on one sandbox at once', () => {
  it('each sees exactly its own state; resetting one leaves the other whole, across a restart', { timeout: 120_000 }, async () => {
    sandbox = await sandboxForTest({ dataFile });
    let api = await ApiClient.for(sandbox);
    let control = await ControlClient.for(sandbox);
    const a = await api.merchant();
    const b = await api.merchant();
    expect((await control.clearRequests()).status).toBe(204);

    const [sentA, sentB] = await Promise.all([hammer(api, a, 'A'), hammer(api, b, 'B')]);
    expect(sentA.payments).toHaveLength(PER_MERCHANT);
    expect(sentA.orders).toHaveLength(PER_MERCHANT / 2);

    const check = async (merchant: TestMerchant, sent: Sent) => {
      const payments = await paymentsOf(control, merchant.publicKey);
      expect(payments).toHaveLength(PER_MERCHANT);
      expect(referencesOf(payments)).toEqual(sorted(sent.payments));
      expect(payments.every((payment: { publicKey: string }) => payment.publicKey === merchant.publicKey)).toBe(true);
      expect(payments.filter((payment: { method: string }) => payment.method === 'ORDER')).toHaveLength(PER_MERCHANT / 2);

      const orders = await ordersOf(control, merchant.publicKey);
      expect(referencesOf(orders)).toEqual(sorted(sent.orders));

      // The journal first: the order listing below is a request of its own.
      const journal = (await control.requests({ publicKey: merchant.publicKey, limit: 1000 })).body;
      expect(journal.count).toBe(PER_MERCHANT);
      expect(journal.requests).toHaveLength(PER_MERCHANT);
      expect(referencesOf(journal.requests)).toEqual(sorted(sent.payments));
      expect(journal.requests.every((entry: { publicKey: string; status: number }) => entry.publicKey === merchant.publicKey && entry.status === 200)).toBe(true);

      const listed = await api.as(merchant, 'GET', `/products/orders/publicKey/${merchant.publicKey}`);
      expect(listed.status).toBe(200);
      // Two items an order.
      expect(listed.body.data.products).toHaveLength(PER_MERCHANT);
      expect(sorted([...new Set<string>(listed.body.data.products.map((item: { paymentReference: string }) => item.paymentReference))])).toEqual(sorted(sent.orders));
    };
    await check(a, sentA);
    await check(b, sentB);
    // A shared reference names one payment of each merchant.
    expect((await control.payment('SBREF-SHARED-0')).status).toBe(400);
    expect((await control.payment('SBREF-SHARED-0', b.publicKey)).body.publicKey).toBe(b.publicKey);

    await control.override({ scenario: 'transaction-failed', publicKey: a.publicKey });
    await control.override({ scenario: 'transaction-failed', publicKey: b.publicKey });
    // total, not count: B's journal holds more entries than one page.
    const journalB = (await control.requests({ publicKey: b.publicKey })).body.total;

    const reset = await control.reset(a.publicKey);
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({ reset: a.publicKey, to: 'empty' });

    expect((await control.requests({ publicKey: a.publicKey })).body.count).toBe(0);
    expect((await control.payments(a.publicKey)).body.payments).toEqual([]);
    expect((await control.orders(a.publicKey)).body.orders).toEqual([]);
    expect((await control.overrides(a.publicKey)).body.overrides).toEqual([]);
    expect((await control.requests({ publicKey: b.publicKey })).body.total).toBe(journalB);
    expect(referencesOf(await paymentsOf(control, b.publicKey))).toEqual(sorted(sentB.payments));
    expect(referencesOf(await ordersOf(control, b.publicKey))).toEqual(sorted(sentB.orders));
    expect((await control.overrides(b.publicKey)).body.overrides).toHaveLength(1);
    expect((await control.payment('SBREF-SHARED-0')).body.publicKey).toBe(b.publicKey);
    const emptied = await api.as(a, 'GET', `/products/orders/publicKey/${a.publicKey}`);
    expect(emptied.status).toBe(404);
    expect(emptied.body.message).toBe('Orders Not Found');

    await sandbox.close();
    sandbox = await sandboxForTest({ dataFile });
    api = await ApiClient.for(sandbox);
    control = await ControlClient.for(sandbox);

    const paymentsB = await paymentsOf(control, b.publicKey);
    expect(paymentsB).toHaveLength(PER_MERCHANT);
    expect(referencesOf(paymentsB)).toEqual(sorted(sentB.payments));
    expect(referencesOf(await ordersOf(control, b.publicKey))).toEqual(sorted(sentB.orders));
    expect((await control.payments(a.publicKey)).body.payments).toEqual([]);
    expect((await control.orders(a.publicKey)).body.orders).toEqual([]);
    // Both merchants are remembered, so their tokens still work.
    const merchants = (await control.merchants()).body.merchants.map((merchant: { publicKey: string }) => merchant.publicKey);
    expect(sorted(merchants)).toEqual(sorted([a.publicKey, b.publicKey]));
    expect((await api.as(b, 'GET', `/products/orders/publicKey/${b.publicKey}`)).body.data.products).toHaveLength(PER_MERCHANT);
    // A's references are free again; B's are still taken.
    expect((await api.as(a, 'POST', '/payments/initiates', accountPayment({ paymentReference: 'SBREF-SHARED-0' }))).body.data.code).toBe('20');
    expect((await api.as(b, 'POST', '/payments/initiates', accountPayment({ paymentReference: 'SBREF-SHARED-0' }))).body.data.code).toBe('S18');
  });
});
