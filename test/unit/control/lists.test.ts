import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import type { Delivery } from '../../../src/model/notifications.js';
import type { Payment } from '../../../src/model/records.js';
import { ControlClient } from '../../support/control.js';
import { sandboxForTest } from '../../support/sandbox.js';
import { merchantRecord, paymentRecord } from '../../store/fixtures.js';

/**
 * The filters and order of GET /__sandbox/payments and the overview of
 * GET /__sandbox/overview (control-api.yaml, listPayments and getOverview;
 * docs/decisions.md#d82-list-filters), through `sandbox.handle()`. Payments
 * and deliveries are put straight into the store: what is tested is the
 * listing, not how they come to be.
 */

const A = 'SBTESTPUBK_listsaaaaa0001';
const B = 'SBTESTPUBK_listsbbbbb0002';

let sandbox: Sandbox;
let control: ControlClient;

beforeAll(async () => {
  sandbox = await sandboxForTest();
  control = await ControlClient.for(sandbox);
});
afterAll(() => sandbox.close());
afterEach(async () => {
  expect((await control.reset()).status).toBe(200);
});

const STATUSES = ['PENDING', 'SUCCESSFUL', 'FAILED'] as const;
const METHODS = ['CARD', 'ACCOUNT', 'TRANSFER', 'MOMO'] as const;
const CODES = { PENDING: '20', SUCCESSFUL: '00', FAILED: 'S12' } as const;

/**
 * Stores `count` payments of a merchant: the n-th is `SBREF-<tag>-<n>`, in
 * status STATUSES[n % 3], method METHODS[n % 4], created at second n of
 * 2025-01-01T12:00:00Z.
 */
function storePayments(publicKey: string, tag: string, count: number, from = 0): Payment[] {
  if (!sandbox.store.merchant(publicKey)) sandbox.store.putMerchant(merchantRecord(publicKey));
  const payments: Payment[] = [];
  for (let n = from; n < from + count; n += 1) {
    const status = STATUSES[n % 3]!;
    const payment = paymentRecord(publicKey, `SBREF-${tag}-${String(n).padStart(4, '0')}`, {
      status, method: METHODS[n % 4]!, code: CODES[status],
      createdAt: new Date(Date.UTC(2025, 0, 1, 12, 0, n)).toISOString(),
    });
    sandbox.store.putPayment(payment);
    payments.push(payment);
  }
  return payments;
}

const list = (query: Record<string, string | number | undefined>) => control.send('GET', '/payments', { query });

async function listed(query: Record<string, string | number | undefined>): Promise<{ total: number; next?: string; references: string[] }> {
  const response = await list(query);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return { total: response.body.total, next: response.body.next, references: response.body.payments.map((payment: Payment) => payment.paymentReference) };
}

/** Every page of a listing, following `next`; `between` runs after each page. */
async function walk(query: Record<string, string | number | undefined>, between: (page: number) => void = () => undefined): Promise<string[]> {
  const references: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await listed({ ...query, cursor });
    references.push(...page.references);
    cursor = page.next;
    between(pages);
    pages += 1;
    expect(pages).toBeLessThan(1000);
  } while (cursor !== undefined);
  return references;
}

const referencesOf = (payments: Payment[]) => payments.map((payment) => payment.paymentReference);

describe('GET /payments filters', () => {
  it('filters by status, method and code, each alone, total counting the matches', async () => {
    const payments = storePayments(A, 'A', 60);
    storePayments(B, 'B', 30);
    for (const status of STATUSES) {
      const page = await listed({ publicKey: A, status, limit: 1000 });
      expect(page.references).toEqual(referencesOf(payments.filter((payment) => payment.status === status)));
      expect(page.total).toBe(20);
    }
    for (const method of METHODS) {
      const page = await listed({ publicKey: A, method, limit: 1000 });
      expect(page.references).toEqual(referencesOf(payments.filter((payment) => payment.method === method)));
      expect(page.total).toBe(15);
    }
    const failed = await listed({ publicKey: A, code: 'S12', limit: 1000 });
    expect(failed.references).toEqual(referencesOf(payments.filter((payment) => payment.code === 'S12')));
    // A code is compared exactly: no prefix, no other case.
    expect((await listed({ publicKey: A, code: 'S1' })).total).toBe(0);
    expect((await listed({ publicKey: A, code: 's12' })).total).toBe(0);
    // Without publicKey, every merchant's.
    expect((await listed({ status: 'FAILED', limit: 1000 })).total).toBe(30);
  });

  it('finds q in paymentReference or linkingReference, without regard to case', async () => {
    const payments = storePayments(A, 'Mixed', 30);
    const byReference = await listed({ publicKey: A, q: 'mixed-001', limit: 1000 });
    expect(byReference.references).toEqual(['SBREF-Mixed-0010', 'SBREF-Mixed-0011', 'SBREF-Mixed-0012', 'SBREF-Mixed-0013', 'SBREF-Mixed-0014', 'SBREF-Mixed-0015', 'SBREF-Mixed-0016', 'SBREF-Mixed-0017', 'SBREF-Mixed-0018', 'SBREF-Mixed-0019']);
    const one = payments[7]!;
    const byLinking = await listed({ publicKey: A, q: one.linkingReference.slice(6).toUpperCase() });
    expect(byLinking.references).toEqual([one.paymentReference]);
    expect(byLinking.total).toBe(1);
    // Text, not a pattern: characters a regular expression would read are plain.
    expect((await listed({ publicKey: A, q: '.*' })).total).toBe(0);
  });

  it('takes from inclusive and to exclusive on createdAt, in any offset', async () => {
    storePayments(A, 'T', 20);
    const page = await listed({ publicKey: A, from: '2025-01-01T12:00:05Z', to: '2025-01-01T12:00:10Z' });
    expect(page.references).toEqual(['SBREF-T-0005', 'SBREF-T-0006', 'SBREF-T-0007', 'SBREF-T-0008', 'SBREF-T-0009']);
    // The same instants written with an offset, and with milliseconds.
    const offset = await listed({ publicKey: A, from: '2025-01-01T13:00:05+01:00', to: '2025-01-01T12:00:09.999Z' });
    expect(offset.references).toEqual(['SBREF-T-0005', 'SBREF-T-0006', 'SBREF-T-0007', 'SBREF-T-0008', 'SBREF-T-0009']);
    expect((await listed({ publicKey: A, from: '2025-01-01T12:00:15Z' })).total).toBe(5);
    expect((await listed({ publicKey: A, to: '2025-01-01T12:00:15Z' })).total).toBe(15);
  });

  it('reads a createdAt in another form than toISOString writes by its instant', async () => {
    if (!sandbox.store.merchant(A)) sandbox.store.putMerchant(merchantRecord(A));
    sandbox.store.putPayment(paymentRecord(A, 'SBREF-ODD-1', { createdAt: '2025-01-01T13:00:05+01:00' }));
    sandbox.store.putPayment(paymentRecord(A, 'SBREF-ODD-2', { createdAt: '2025-01-01T12:00:20Z' }));
    const page = await listed({ publicKey: A, from: '2025-01-01T12:00:05Z', to: '2025-01-01T12:00:06Z' });
    expect(page.references).toEqual(['SBREF-ODD-1']);
  });

  it('combines the filters with AND', async () => {
    const payments = storePayments(A, 'C', 120);
    const query = { publicKey: A, status: 'PENDING', method: 'CARD', q: 'c-00', from: '2025-01-01T12:00:10Z', to: '2025-01-01T12:01:30Z', limit: 1000 };
    const expected = payments.filter(
      (payment) => payment.status === 'PENDING' && payment.method === 'CARD' && payment.paymentReference.toLowerCase().includes('c-00') &&
        payment.createdAt >= '2025-01-01T12:00:10.000Z' && payment.createdAt < '2025-01-01T12:01:30.000Z',
    );
    expect(expected.length).toBeGreaterThan(0);
    const page = await listed(query);
    expect(page.references).toEqual(referencesOf(expected));
    expect(page.total).toBe(expected.length);
    expect((await listed({ ...query, code: '00' })).total).toBe(0);
  });

  it('pages a filtered list with a cursor, each matching payment once, in order', async () => {
    const payments = storePayments(A, 'P', 300);
    const expected = referencesOf(payments.filter((payment) => payment.status === 'SUCCESSFUL'));
    expect(await walk({ publicKey: A, status: 'SUCCESSFUL', limit: 7 })).toEqual(expected);
    expect(await walk({ publicKey: A, status: 'SUCCESSFUL', order: 'newest', limit: 7 })).toEqual([...expected].reverse());
  });

  it('keeps its place when the row its cursor names stops matching', async () => {
    storePayments(A, 'S', 30);
    const first = await listed({ publicKey: A, status: 'PENDING', limit: 3 });
    expect(first.references).toEqual(['SBREF-S-0000', 'SBREF-S-0003', 'SBREF-S-0006']);
    // The cursor's payment is settled between the pages.
    sandbox.store.putPayment({ ...sandbox.store.payment(A, 'SBREF-S-0006')!, status: 'SUCCESSFUL', code: '00' });
    const second = await listed({ publicKey: A, status: 'PENDING', limit: 3, cursor: first.next });
    expect(second.references).toEqual(['SBREF-S-0009', 'SBREF-S-0012', 'SBREF-S-0015']);
    expect(second.total).toBe(9);
  });
});

describe('GET /payments?order=newest', () => {
  it('lists one merchant newest first', async () => {
    const payments = storePayments(A, 'N', 10);
    expect((await listed({ publicKey: A })).references).toEqual(referencesOf(payments));
    expect((await listed({ publicKey: A, order: 'oldest' })).references).toEqual(referencesOf(payments));
    expect((await listed({ publicKey: A, order: 'newest' })).references).toEqual(referencesOf(payments).reverse());
  });

  it('lists every merchant as the exact reverse of the oldest-first order', async () => {
    storePayments(A, 'A', 5);
    storePayments(B, 'B', 5);
    const oldest = await walk({ limit: 3 });
    expect(await walk({ order: 'newest', limit: 3 })).toEqual([...oldest].reverse());
  });

  it('pages across payments added meanwhile: none listed twice, none skipped, the new ones on no later page', async () => {
    const before = referencesOf(storePayments(A, 'W', 100));
    let added = 100;
    const seen = await walk({ publicKey: A, order: 'newest', limit: 9 }, () => {
      storePayments(A, 'W', 4, added);
      added += 4;
    });
    expect(seen).toEqual([...before].reverse());
    // Filtered too: the walk ends at the oldest match, the new ones left for a fresh first page.
    const pending = referencesOf(sandbox.store.payments(A).filter((payment) => payment.status === 'PENDING'));
    const walked = await walk({ publicKey: A, status: 'PENDING', order: 'newest', limit: 5 }, () => {
      storePayments(A, 'W', 3, added);
      added += 3;
    });
    expect(walked).toEqual([...pending].reverse());
  });

  it('keeps a replaced payment in its place', async () => {
    storePayments(A, 'R', 6);
    const first = await listed({ publicKey: A, order: 'newest', limit: 2 });
    sandbox.store.putPayment({ ...sandbox.store.payment(A, 'SBREF-R-0001')!, status: 'REFUNDED' });
    const second = await listed({ publicKey: A, order: 'newest', limit: 2, cursor: first.next });
    expect(first.references).toEqual(['SBREF-R-0005', 'SBREF-R-0004']);
    expect(second.references).toEqual(['SBREF-R-0003', 'SBREF-R-0002']);
  });
});

describe('GET /payments refuses bad values with 400 INPUT naming the parameter', () => {
  const refused = async (query: Record<string, string | number | undefined>, name: string) => {
    const response = await list(query);
    expect(response.status, JSON.stringify(query)).toBe(400);
    expect(response.body.error).toBe('INPUT');
    expect(response.body.message, JSON.stringify(query)).toContain(name);
    return response.body.message as string;
  };

  it('for each parameter', async () => {
    storePayments(A, 'X', 3);
    await refused({ status: 'SUCCESS' }, 'status');
    await refused({ status: 'pending' }, 'status');
    await refused({ method: 'BITCOIN' }, 'method');
    await refused({ code: '' }, 'code');
    await refused({ code: 'x'.repeat(17) }, 'code');
    await refused({ q: '' }, 'q');
    await refused({ q: 'x'.repeat(101) }, 'q');
    await refused({ from: 'yesterday' }, 'from');
    await refused({ from: '2025-01-01' }, 'from');
    await refused({ to: '2025-13-01T00:00:00Z' }, 'to');
    await refused({ order: 'random' }, 'order');
    await refused({ from: '2025-01-02T00:00:00Z', to: '2025-01-01T00:00:00Z' }, 'to');
    await refused({ from: '2025-01-01T00:00:00Z', to: '2025-01-01T00:00:00Z' }, 'to');
  });

  it('for a cursor reused with other filters or another order, saying so', async () => {
    storePayments(A, 'Y', 30);
    const plain = await listed({ publicKey: A, limit: 2 });
    const filtered = await listed({ publicKey: A, status: 'PENDING', limit: 2 });
    const newest = await listed({ publicKey: A, order: 'newest', limit: 2 });
    const message = await refused({ publicKey: A, status: 'FAILED', cursor: filtered.next }, 'cursor');
    expect(message).toContain('other filters');
    await refused({ publicKey: A, status: 'PENDING', cursor: plain.next }, 'cursor');
    await refused({ publicKey: A, cursor: filtered.next }, 'cursor');
    await refused({ publicKey: A, cursor: newest.next }, 'cursor');
    await refused({ publicKey: A, order: 'newest', cursor: plain.next }, 'cursor');
    // The same filters in another order of parameters, and the default order named: the same walk.
    expect((await listed({ status: 'PENDING', publicKey: A, limit: 2, cursor: filtered.next })).references).toEqual(['SBREF-Y-0006', 'SBREF-Y-0009']);
    expect((await listed({ publicKey: A, order: 'oldest', limit: 2, cursor: plain.next })).references).toEqual(['SBREF-Y-0002', 'SBREF-Y-0003']);
  });

  it('changes nothing', async () => {
    storePayments(A, 'Z', 3);
    await refused({ publicKey: A, status: 'NOPE' }, 'status');
    expect((await listed({ publicKey: A })).total).toBe(3);
  });
});

describe('GET /overview', () => {
  const delivery = (n: number, state: Delivery['state'], acknowledged?: boolean): Delivery => ({
    id: `dlv_${n.toString(16).padStart(20, '0')}`, publicKey: A, paymentReference: `SBREF-O-${n}`,
    event: { eventType: 'transaction', eventDate: '2025-03-14 09:00:00', eventId: `evt_overview_${n}`, data: {} },
    state, schedule: 'current', ackReference: `ack_${n}`, sequence: 2_000_000 + n,
    attempts: acknowledged === undefined ? [] : [{ at: '2025-03-14T09:00:00.000Z', url: 'http://127.0.0.1:9/hook', ackReference: `ack_${n}`, latencyMs: 1, acknowledged, ...(acknowledged ? { status: 200 } : { reason: 'refused' }) }],
    ...(state === 'scheduled' ? { dueAt: '2099-01-01T00:00:00.000Z' } : {}),
    createdAt: '2025-03-14T09:00:00.000Z', updatedAt: '2025-03-14T09:00:00.000Z',
  });

  it('lists the first 100 items due on a clock and counts them all, in the clock view and the overview alike', async () => {
    storePayments(A, 'D', 1);
    for (let n = 1; n <= 150; n += 1) sandbox.store.putDelivery({ ...delivery(n, 'scheduled'), dueAt: new Date(Date.UTC(2099, 0, 1, 0, 0, n)).toISOString() });
    await sandbox.store.commit();
    const clock = await control.send('GET', `/clock/${A}`);
    expect(clock.status).toBe(200);
    expect(clock.body.pendingTotal).toBe(150);
    expect(clock.body.pending).toHaveLength(100);
    expect(clock.body.pending[0].at).toBe('2099-01-01T00:00:01.000Z');
    const overview = await control.send('GET', '/overview');
    const a = overview.body.merchants.find((merchant: { publicKey: string }) => merchant.publicKey === A);
    expect(a.clock.pendingTotal).toBe(150);
    expect(a.clock.pending).toHaveLength(100);
    expect(a.nextDue.at).toBe('2099-01-01T00:00:01.000Z');
  });

  it('counts each merchant\'s payments by status and deliveries by state, with its clock and webhook', async () => {
    storePayments(A, 'O', 10);
    storePayments(B, 'B', 2);
    sandbox.store.putWebhook(A, { publicKey: A, url: 'http://127.0.0.1:9/hook', schedule: 'current', updatedAt: '2025-03-14T09:00:00.000Z' });
    sandbox.store.putDelivery(delivery(1, 'delivered', true));
    sandbox.store.putDelivery(delivery(2, 'scheduled', false));
    sandbox.store.putDelivery(delivery(3, 'scheduled'));
    sandbox.store.putDelivery(delivery(4, 'undelivered', false));
    sandbox.store.putDelivery(delivery(5, 'withheld'));
    await sandbox.store.commit();
    const response = await control.send('GET', '/overview');
    expect(response.status).toBe(200);
    const { body } = response;
    const a = body.merchants.find((merchant: { publicKey: string }) => merchant.publicKey === A);
    const b = body.merchants.find((merchant: { publicKey: string }) => merchant.publicKey === B);
    expect(body.total).toBe(body.merchants.length);
    expect(a.payments).toEqual({ total: 10, byStatus: { PENDING: 4, SUCCESSFUL: 3, FAILED: 3 } });
    expect(b.payments).toEqual({ total: 2, byStatus: { PENDING: 1, SUCCESSFUL: 1 } });
    expect(a.webhook).toEqual({ url: 'http://127.0.0.1:9/hook' });
    expect(b.webhook).toBeUndefined();
    expect(a.deliveries.byState).toEqual({ scheduled: 2, held: 0, delivered: 1, undelivered: 1, withheld: 1 });
    expect(a.failingDeliveries).toBe(2);
    expect(b.deliveries.byState).toEqual({ scheduled: 0, held: 0, delivered: 0, undelivered: 0, withheld: 0 });
    expect(b.failingDeliveries).toBe(0);
    // The clock as GET /clock answers it, and the earliest thing due on it.
    const clock = await control.send('GET', `/clock/${A}`);
    expect({ ...a.clock, now: undefined }).toEqual({ ...clock.body, now: undefined });
    expect(a.nextDue).toEqual(a.clock.pending[0]);
    expect(a.nextDue).toEqual({ at: '2099-01-01T00:00:00.000Z', kind: 'delivery', paymentReference: 'SBREF-O-2', deliveryId: delivery(2, 'scheduled').id });
    expect(b.nextDue).toBeUndefined();
    // The same counts as the lists give.
    for (const status of ['PENDING', 'SUCCESSFUL', 'FAILED']) expect((await listed({ publicKey: A, status })).total).toBe(a.payments.byStatus[status]);
  });

  it('pages over merchants as GET /merchants does', async () => {
    const keys = Array.from({ length: 5 }, (_, n) => `SBTESTPUBK_overview${String(n).padStart(6, '0')}`);
    for (const key of keys) storePayments(key, 'M', 1);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const response = await control.send('GET', '/overview', { query: { limit: 2, cursor } });
      expect(response.status).toBe(200);
      expect(response.body.merchants.length).toBeLessThanOrEqual(2);
      seen.push(...response.body.merchants.map((merchant: { publicKey: string }) => merchant.publicKey));
      cursor = response.body.next;
    } while (cursor !== undefined);
    const merchants = await control.send('GET', '/merchants', { query: { limit: 1000 } });
    expect(seen).toEqual(merchants.body.merchants.map((merchant: { publicKey: string }) => merchant.publicKey));
    expect(seen).toEqual(expect.arrayContaining(keys));
    const bad = await control.send('GET', '/overview', { query: { limit: 0 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('INPUT');
  });
});
