import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../../src/journal/journal.js';
import type { Sandbox } from '../../../src/index.js';
import { ControlClient } from '../../support/control.js';
import { sandboxForTest } from '../../support/sandbox.js';
import { merchantRecord, orderRecord, paymentRecord } from '../../store/fixtures.js';
import { everyRow, page, type PagedList } from './pages.js';

/**
 * The control API's lists answer one page at a time (control-api.yaml,
 * "Paging"): `limit` rows (100 by default, at most 1000) and a `next`
 * cursor that names the last row, so that paging stays right while rows
 * keep arriving. Rows are put straight into the store and the journal: what
 * is tested is the listing, not how rows come to be.
 */

const A = 'SBTESTPUBK_pagingaaaa0001';
const B = 'SBTESTPUBK_pagingbbbb0002';
const LISTS: PagedList[] = ['payments', 'orders', 'requests'];

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

const reference = (tag: string, n: number) => `SBREF-${tag}-${String(n).padStart(5, '0')}`;

/** Stores `count` payments (and, with `orders`, an order each) of a merchant, references tag-00000 on. */
function storePayments(publicKey: string, tag: string, count: number, options: { from?: number; orders?: boolean } = {}): string[] {
  if (!sandbox.store.merchant(publicKey)) sandbox.store.putMerchant(merchantRecord(publicKey));
  const references: string[] = [];
  for (let n = options.from ?? 0; n < (options.from ?? 0) + count; n += 1) {
    const paymentReference = reference(tag, n);
    sandbox.store.putPayment(paymentRecord(publicKey, paymentReference));
    if (options.orders) sandbox.store.putOrder(orderRecord(publicKey, paymentReference));
    references.push(paymentReference);
  }
  return references;
}

/** Records `count` journal entries of a merchant, as the Payments API would have. */
function journalEntries(publicKey: string, count: number, path = '/payments/initiates'): number[] {
  return Array.from({ length: count }, (_, n) =>
    sandbox.journal.record({
      time: '2025-03-14T09:00:00.000Z',
      method: 'POST',
      path,
      publicKey,
      paymentReference: reference('J', n),
      status: 200,
      durationMs: 1,
      request: { headers: {} },
    }).id,
  );
}

const referencesOf = (rows: Array<{ paymentReference: string }>) => rows.map((row) => row.paymentReference);

describe('limit', () => {
  it('is 100 when absent, for payments, orders and the journal', async () => {
    storePayments(A, 'A', 250, { orders: true });
    journalEntries(A, 250);
    for (const list of LISTS) {
      const { body } = await page(control, list);
      expect(body[list], list).toHaveLength(100);
      expect(body.limit, list).toBe(100);
      expect(body.total, list).toBeGreaterThanOrEqual(250);
      expect(body.next, list).toEqual(expect.any(String));
    }
    const { body } = await page(control, 'payments', { publicKey: A });
    expect(body.total).toBe(250);
    expect(referencesOf(body.payments)).toEqual(Array.from({ length: 100 }, (_, n) => reference('A', n)));
  });

  it('takes 1000, the most; a page holding every row left has no next', async () => {
    storePayments(A, 'A', 1200, { orders: true });
    journalEntries(A, 1200);
    for (const list of LISTS) {
      const { body } = await page(control, list, { limit: 1000 });
      expect(body[list], list).toHaveLength(1000);
      expect(body.limit, list).toBe(1000);
      expect(body.next, list).toEqual(expect.any(String));
    }
    const { body } = await page(control, 'payments', { publicKey: A, limit: 1000, cursor: (await page(control, 'payments', { limit: 1000 })).body.next });
    expect(body.payments).toHaveLength(200);
    expect(body.next).toBeUndefined();
  });

  it.each(['1001', '0', '-1', 'abc', '1.5', '', '1e2'])('%j is refused with 400 INPUT, and nothing changes', async (limit) => {
    storePayments(A, 'A', 3, { orders: true });
    journalEntries(A, 3);
    const journalBefore = sandbox.journal.count;
    for (const list of LISTS) {
      const refused = await control.send('GET', `/${list}`, { query: { limit } });
      expect(refused.status, `${list}?limit=${limit}`).toBe(400);
      expect(refused.body.error).toBe('INPUT');
      expect(refused.body.message).toMatch(/limit/);
      expect(Object.keys(refused.body).sort()).toEqual(['error', 'message']);
    }
    expect(sandbox.store.payments(A)).toHaveLength(3);
    expect(sandbox.store.orders(A)).toHaveLength(3);
    expect(sandbox.journal.count).toBe(journalBefore);
  });
});

describe('paging', () => {
  it('visits each of 250 payments exactly once, in the store\'s order, 100 a page', async () => {
    const stored = storePayments(A, 'A', 250);
    const { rows, sizes } = await everyRow(control, 'payments', { publicKey: A });
    expect(sizes).toEqual([100, 100, 50]);
    expect(referencesOf(rows)).toEqual(stored);
  });

  it('lists every merchant\'s payments merchant after merchant, oldest first, whatever the page size', async () => {
    const expected = [...storePayments(A, 'A', 130), ...storePayments(B, 'B', 70)];
    const everyMerchant = sandbox.store.merchants().flatMap((merchant) => sandbox.store.payments(merchant.publicKey)).map((payment) => payment.paymentReference);
    expect(everyMerchant).toEqual(expected);
    for (const limit of [1, 7, 100, 130, 199, 200, 1000]) {
      const { rows, sizes } = await everyRow(control, 'payments', { limit });
      expect(referencesOf(rows), `limit ${limit}`).toEqual(expected);
      expect(sizes.slice(0, -1).every((size) => size === limit), `limit ${limit}`).toBe(true);
    }
  });

  it('stays right while payments are stored and settled between pages', async () => {
    const beforeA = storePayments(A, 'A', 150);
    const beforeB = storePayments(B, 'B', 100);
    const first = (await page(control, 'payments', { limit: 100 })).body;
    expect(first.total).toBe(250);
    expect(referencesOf(first.payments)).toEqual(beforeA.slice(0, 100));

    // Stored after the cursor's place (A's 100th payment): listed on a later page.
    const laterA = storePayments(A, 'A', 10, { from: 150 });
    const laterB = storePayments(B, 'B', 10, { from: 100 });
    // Settled in between: a settled payment is replaced in the store, and keeps its place.
    const settled = { status: 'SUCCESSFUL', code: '00', message: 'Successful' } as const;
    sandbox.store.putPayment(paymentRecord(A, reference('A', 5), settled));
    sandbox.store.putPayment(paymentRecord(A, reference('A', 120), settled));
    const second = (await page(control, 'payments', { limit: 100, cursor: first.next })).body;
    expect(second.total).toBe(270);
    expect(referencesOf(second.payments)).toEqual([...beforeA.slice(100), ...laterA, ...beforeB.slice(0, 40)]);
    expect(second.payments[20].status).toBe('SUCCESSFUL');

    // The cursor is now among B's payments: a new payment of A comes before it and is not listed; B's new ones are.
    storePayments(A, 'A', 5, { from: 160 });
    const lastB = storePayments(B, 'B', 5, { from: 200 });
    const third = (await page(control, 'payments', { limit: 100, cursor: second.next })).body;
    expect(third.total).toBe(280);
    expect(referencesOf(third.payments)).toEqual([...beforeB.slice(40), ...laterB, ...lastB]);
    expect(third.next).toBeUndefined();
    const listed = referencesOf([...first.payments, ...second.payments, ...third.payments]);
    expect(new Set(listed).size).toBe(listed.length);
  });

  it('pages the journal newest first while requests keep arriving: each entry once, the new ones on no later page', async () => {
    const ids = journalEntries(A, 95).reverse();
    const seen: number[] = [];
    let cursor: string | undefined;
    do {
      const { body } = await page(control, 'requests', { limit: 10, cursor });
      seen.push(...body.requests.map((entry: JournalEntry) => entry.id));
      cursor = body.next;
      journalEntries(A, 3);
    } while (cursor !== undefined);
    expect(seen).toEqual(ids);
    const { body } = await page(control, 'requests', { limit: 1000 });
    expect(body.total).toBe(95 + 3 * 10);
    expect(body.count).toBe(body.total);
  });

  it('pages orders like payments', async () => {
    const stored = [...storePayments(A, 'A', 120, { orders: true }), ...storePayments(B, 'B', 30, { orders: true })];
    const { rows, sizes } = await everyRow(control, 'orders', { limit: 40 });
    expect(sizes).toEqual([40, 40, 40, 30]);
    expect(referencesOf(rows)).toEqual(stored);
    expect((await page(control, 'orders', { limit: 40 })).body.total).toBe(150);
  });
});

describe('filters and paging together', () => {
  it('payments and orders of one merchant (publicKey) page through that merchant\'s rows only', async () => {
    storePayments(A, 'A', 60, { orders: true });
    const ofB = storePayments(B, 'B', 45, { orders: true });
    for (const list of ['payments', 'orders'] as const) {
      const { rows, sizes } = await everyRow(control, list, { publicKey: B, limit: 20 });
      expect(sizes, list).toEqual([20, 20, 5]);
      expect(referencesOf(rows), list).toEqual(ofB);
      expect((await page(control, list, { publicKey: B, limit: 20 })).body.total, list).toBe(45);
    }
  });

  it('the journal\'s path, publicKey and paymentReference filters hold on every page, and total counts the matches', async () => {
    journalEntries(A, 30);
    journalEntries(B, 30);
    journalEntries(A, 30, '/payments/validate');
    const { rows, sizes } = await everyRow(control, 'requests', { publicKey: A, path: '/payments/validate', limit: 7 });
    expect(sizes).toEqual([7, 7, 7, 7, 2]);
    expect(rows.every((entry: JournalEntry) => entry.publicKey === A && entry.path === '/payments/validate')).toBe(true);
    expect((await page(control, 'requests', { publicKey: A, path: '/payments/validate', limit: 7 })).body.total).toBe(30);
    const one = await everyRow(control, 'requests', { publicKey: A, paymentReference: reference('J', 3), limit: 1 });
    expect(one.rows.map((entry: JournalEntry) => entry.path)).toEqual(['/payments/validate', '/payments/initiates']);
  });
});

describe('cursors', () => {
  it('a cursor that is not one the list handed out is refused with 400 INPUT', async () => {
    storePayments(A, 'A', 5, { orders: true });
    journalEntries(A, 5);
    const paymentsCursor = (await page(control, 'payments', { limit: 1 })).body.next;
    const ordersCursor = (await page(control, 'orders', { limit: 1 })).body.next;
    const requestsCursor = (await page(control, 'requests', { limit: 1 })).body.next;
    const refusals: Array<[PagedList, string]> = [
      ['payments', ordersCursor],
      ['payments', requestsCursor],
      ['orders', paymentsCursor],
      ['requests', paymentsCursor],
      ['payments', 'bm90LWEtY3Vyc29y'],
      ['requests', Buffer.from('["requests",0]').toString('base64url')],
      ['payments', 'not a cursor!'],
    ];
    for (const [list, cursor] of refusals) {
      const refused = await control.send('GET', `/${list}`, { query: { cursor } });
      expect(refused.status, `${list} ${cursor}`).toBe(400);
      expect(refused.body.error).toBe('INPUT');
      expect(refused.body.message).toMatch(/cursor/);
    }
  });

  it('a cursor of one merchant is refused for another; a cursor whose payment was reset away is refused', async () => {
    storePayments(A, 'A', 5);
    storePayments(B, 'B', 5);
    const cursorOfA = (await page(control, 'payments', { publicKey: A, limit: 2 })).body.next;
    const foreign = await control.send('GET', '/payments', { query: { publicKey: B, cursor: cursorOfA } });
    expect(foreign.status).toBe(400);
    expect(foreign.body.message).toMatch(/cursor names merchant/);
    // Every merchant's list covers A: the same cursor goes on there.
    expect(referencesOf((await page(control, 'payments', { cursor: cursorOfA, limit: 3 })).body.payments)).toEqual([reference('A', 2), reference('A', 3), reference('A', 4)]);

    expect((await control.reset(A)).status).toBe(200);
    const gone = await control.send('GET', '/payments', { query: { publicKey: A, cursor: cursorOfA } });
    expect(gone.status).toBe(400);
    expect(gone.body.message).toMatch(/no longer stored/);
  });

  it('a journal cursor whose entries were cleared gives an empty last page', async () => {
    journalEntries(A, 5);
    const cursor = (await page(control, 'requests', { limit: 2 })).body.next;
    expect((await control.clearRequests()).status).toBe(204);
    journalEntries(A, 5);
    const { body } = await page(control, 'requests', { cursor });
    expect(body.requests).toEqual([]);
    expect(body.next).toBeUndefined();
    expect(body.total).toBe(5);
  });
});

describe('100,000 payments', () => {
  it('one page answers limit payments, not the whole list', { timeout: 120_000 }, async () => {
    const COUNT = 100_000;
    sandbox.store.putMerchant(merchantRecord(A));
    sandbox.store.putMerchant(merchantRecord(B));
    for (let n = 0; n < COUNT; n += 1) {
      // One payment in a thousand is B's: the every-merchant list crosses from one merchant to the other.
      const publicKey = n % 1000 === 999 ? B : A;
      sandbox.store.putPayment(paymentRecord(publicKey, reference(publicKey === A ? 'A' : 'B', n)));
    }
    const first = await page(control, 'payments');
    expect(first.body.payments).toHaveLength(100);
    expect(first.body.total).toBe(COUNT);
    // The answer is a page's worth of JSON, not the 50 MB of the whole list.
    expect(JSON.stringify(first.body).length).toBeLessThan(100_000);

    // Every payment once, in the store's order, 1000 a page: A's, then B's.
    const { rows, sizes } = await everyRow(control, 'payments', { limit: 1000 });
    expect(sizes).toHaveLength(COUNT / 1000);
    expect(sizes.every((size) => size === 1000)).toBe(true);
    const expected = [...sandbox.store.payments(A), ...sandbox.store.payments(B)].map((payment) => payment.paymentReference);
    expect(referencesOf(rows)).toEqual(expected);
  });
});
