import { existsSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { linkingReferenceOf } from '../../src/domain/merchants.js';
import type { Payment } from '../../src/domain/records.js';
import { Store, StoreOpenError } from '../../src/store/store.js';
import { WriteAheadLog } from '../../src/store/write-ahead-log.js';
import { accountPayment, ApiClient, cardPayment, order, sandboxForTest, type TestMerchant } from '../support/sandbox.js';

/**
 * The store on real files: persistence across restarts and crashes, group
 * commit, snapshots, refusal of unreadable files, what is kept of a card,
 * and per-merchant reset.
 */

const TIMEOUT = 30_000;

let dir: string;
let dataFile: string;
let sandboxes: Sandbox[] = [];
let stores: Store[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payments-sandbox-store-'));
  dataFile = join(dir, 'sandbox.json');
});

afterEach(async () => {
  vi.restoreAllMocks();
  for (const sandbox of sandboxes) await sandbox.close().catch(() => undefined);
  for (const store of stores) await store.close().catch(() => undefined);
  sandboxes = [];
  stores = [];
  await rm(dir, { recursive: true, force: true });
});

async function startOn(file: string): Promise<Sandbox> {
  const sandbox = await sandboxForTest({ dataFile: file });
  sandboxes.push(sandbox);
  return sandbox;
}

async function openStore(options: { file: string; snapshotEvery?: number }): Promise<Store> {
  const store = await Store.open(options);
  stores.push(store);
  return store;
}

const PUBLIC_A = 'SBTESTPUBK_aaaaaaaa00000001';
const PUBLIC_B = 'SBTESTPUBK_bbbbbbbb00000002';

/** A payment record as the store keeps it, built by hand. */
function paymentRecord(publicKey: string, n: number, fields: Partial<Payment> = {}): Payment {
  const paymentReference = `SBREF-STORE-${String(n).padStart(4, '0')}`;
  const at = new Date(Date.UTC(2025, 0, 1, 12, 0, 0) + n * 1000).toISOString();
  return {
    publicKey,
    paymentReference,
    linkingReference: linkingReferenceOf(publicKey, paymentReference),
    method: 'ACCOUNT',
    status: 'PENDING',
    code: '20',
    message: 'Transaction is pending',
    amount: '150.00',
    refundedAmount: '0.00',
    currency: 'NGN',
    country: 'NG',
    scenario: 'account-pending',
    createdAt: at,
    updatedAt: at,
    ...fields,
  };
}

const changeLine = (payment: Payment): string => JSON.stringify({ kind: 'payment', payment });

const logLines = async (file: string): Promise<string[]> =>
  (await readFile(`${file}.wal`, 'utf8')).split('\n').filter((line) => line !== '');

/** A merchant with a pending account payment made successful, and an order, all through the API. */
async function payAndOrder(api: ApiClient): Promise<{ merchant: TestMerchant; payment: Record<string, unknown>; orderBody: Record<string, unknown> }> {
  const merchant = await api.merchant();
  const orderBody = order();
  const created = await api.as(merchant, 'POST', '/payments/order', orderBody);
  expect(created.status).toBe(200);
  expect(created.body.data.code).toBe('00');

  const payment = accountPayment();
  const initiated = await api.as(merchant, 'POST', '/payments/initiates', payment);
  expect(initiated.body.data.code).toBe('20');
  const validated = await api.as(merchant, 'POST', '/payments/validate', {
    linkingReference: initiated.body.data.payments.linkingReference,
    otp: '123456',
  });
  expect(validated.body.data.code).toBe('00');
  return { merchant, payment, orderBody };
}

/** Checks, on a sandbox started on the same file, that the order, the payment and its state came back. */
async function expectRestored(
  sandbox: Sandbox,
  { merchant, payment, orderBody }: Awaited<ReturnType<typeof payAndOrder>>,
): Promise<void> {
  const api = await ApiClient.for(sandbox);

  // The merchant is remembered: its token from before still works.
  const listed = await api.as(merchant, 'GET', `/products/orders/publicKey/${merchant.publicKey}`);
  expect(listed.status).toBe(200);
  const references = (listed.body.data.products as Array<{ paymentReference: string; orderId: string }>).map(
    (item) => `${item.paymentReference}/${item.orderId}`,
  );
  expect(references.sort()).toEqual([`${orderBody.paymentReference}/ORD-1`, `${orderBody.paymentReference}/ORD-2`]);

  // The payment kept its reference...
  const again = await api.as(merchant, 'POST', '/payments/initiates', payment);
  expect(again.status).toBe(200);
  expect(again.body.data.code).toBe('S18');
  expect(again.body.data.payments).toEqual({});

  // ...and its SUCCESSFUL state: only a successful payment can be refunded.
  const refund = await api.send(
    'POST',
    '/payments/refund',
    {
      paymentReference: payment.paymentReference,
      currency: 'NGN',
      country: 'NG',
      productDescription: 'Annual plan',
      amount: '150.00',
      publicKey: merchant.publicKey,
    },
    merchant.basic,
  );
  expect(refund.status).toBe(200);
  expect(refund.body.data).toMatchObject({ code: '00', message: 'APPROVED', payments: { status: 'REFUNDED' } });
}

describe('persistence across a restart', () => {
  it('keeps merchants, orders and payments after close() and a new start on the same file', { timeout: TIMEOUT }, async () => {
    const first = await startOn(dataFile);
    const made = await payAndOrder(await ApiClient.for(first));
    await first.close();

    expect(existsSync(dataFile)).toBe(true);
    const second = await startOn(dataFile);
    await expectRestored(second, made);
  });

  it('keeps everything acknowledged when the first sandbox is never closed (crash)', { timeout: TIMEOUT }, async () => {
    const first = await startOn(dataFile);
    const made = await payAndOrder(await ApiClient.for(first));

    // No snapshot was written: what comes back can only come from the log.
    expect(existsSync(dataFile)).toBe(false);
    expect((await logLines(dataFile)).length).toBeGreaterThan(0);

    const second = await startOn(dataFile);
    await expectRestored(second, made);
  });

  it('replays the log of a store that was never closed', async () => {
    const first = await openStore({ file: dataFile });
    first.putMerchant({ publicKey: PUBLIC_A, secretKey: 'SBTESTSECK_aaaaaaaa00000001', createdAt: '2025-01-01T12:00:00.000Z' });
    first.putPayment(paymentRecord(PUBLIC_A, 1));
    first.putPayment(paymentRecord(PUBLIC_A, 1, { status: 'SUCCESSFUL', code: '00', message: 'Successful' }));
    await first.commit();

    const second = await openStore({ file: dataFile });
    expect(second.merchant(PUBLIC_A)?.secretKey).toBe('SBTESTSECK_aaaaaaaa00000001');
    expect(second.payments(PUBLIC_A)).toHaveLength(1);
    expect(second.payment(PUBLIC_A, 'SBREF-STORE-0001')?.status).toBe('SUCCESSFUL');
    expect(second.paymentByLinkingReference(PUBLIC_A, linkingReferenceOf(PUBLIC_A, 'SBREF-STORE-0001'))?.status).toBe('SUCCESSFUL');
  });
});

describe('group commit', () => {
  it('writes 200 changes committed together in far fewer log appends, and keeps all of them', async () => {
    const append = vi.spyOn(WriteAheadLog.prototype, 'append');
    const store = await openStore({ file: dataFile });

    const commits: Promise<void>[] = [];
    for (let n = 1; n <= 200; n += 1) {
      store.putPayment(paymentRecord(PUBLIC_A, n));
      commits.push(store.commit());
    }
    await expect(Promise.all(commits)).resolves.toHaveLength(200);

    expect(append.mock.calls.length).toBeGreaterThanOrEqual(1);
    expect(append.mock.calls.length).toBeLessThan(200);
    // Every change went to the log exactly once.
    const appended = append.mock.calls.flatMap(([lines]) => lines);
    expect(appended).toHaveLength(200);
    expect(await logLines(dataFile)).toHaveLength(200);

    const reopened = await openStore({ file: dataFile });
    const references = reopened.payments(PUBLIC_A).map((payment) => payment.paymentReference);
    expect(new Set(references).size).toBe(200);
    for (let n = 1; n <= 200; n += 1) expect(references).toContain(paymentRecord(PUBLIC_A, n).paymentReference);
  });

  it('resolves a commit at once when nothing changed', async () => {
    const append = vi.spyOn(WriteAheadLog.prototype, 'append');
    const store = await openStore({ file: dataFile });
    await store.commit();
    expect(append).not.toHaveBeenCalled();
    expect(existsSync(`${dataFile}.wal`) ? await logLines(dataFile) : []).toEqual([]);
  });
});

describe('snapshots', () => {
  it('writes the whole state to the JSON file every snapshotEvery changes and empties the log', async () => {
    const store = await openStore({ file: dataFile, snapshotEvery: 10 });
    for (let n = 1; n <= 25; n += 1) {
      store.putPayment(paymentRecord(PUBLIC_A, n));
      await store.commit();
    }

    const lines = await logLines(dataFile);
    expect(lines.length).toBeLessThan(10);
    const snapshot = JSON.parse(await readFile(dataFile, 'utf8'));
    expect(snapshot.version).toBe(1);
    const inSnapshot = Object.keys(snapshot.payments[PUBLIC_A] ?? {});
    expect(inSnapshot.length).toBeGreaterThanOrEqual(10);
    // Snapshot and log together hold every change.
    const inLog = lines.map((line) => (JSON.parse(line) as { payment: Payment }).payment.paymentReference);
    expect(new Set([...inSnapshot, ...inLog]).size).toBe(25);

    // Reopened without a close: snapshot plus log replay.
    const reopened = await openStore({ file: dataFile, snapshotEvery: 10 });
    expect(reopened.payments(PUBLIC_A)).toHaveLength(25);
    expect(reopened.payment(PUBLIC_A, 'SBREF-STORE-0025')?.amount).toBe('150.00');
  });

  it('writes a last snapshot and empties the log on close()', async () => {
    const store = await openStore({ file: dataFile });
    for (let n = 1; n <= 3; n += 1) store.putPayment(paymentRecord(PUBLIC_A, n));
    await store.commit();
    await store.close();

    expect(await logLines(dataFile)).toEqual([]);
    const snapshot = JSON.parse(await readFile(dataFile, 'utf8'));
    expect(Object.keys(snapshot.payments[PUBLIC_A]).sort()).toEqual(['SBREF-STORE-0001', 'SBREF-STORE-0002', 'SBREF-STORE-0003']);
  });
});

describe('a store file it cannot read', () => {
  it.each([
    ['not JSON', 'not json {'],
    ['a JSON array', '[]'],
    ['JSON of another version', '{"version":2,"merchants":{},"payments":{},"orders":{}}'],
    ['an object without payments', '{"version":1,"merchants":{},"orders":{}}'],
  ])('refuses %s, naming the file, and leaves it as it was', async (_what, content) => {
    await writeFile(dataFile, content);
    const before = await readFile(dataFile);

    const opening = Store.open({ file: dataFile });
    await expect(opening).rejects.toBeInstanceOf(StoreOpenError);
    await expect(opening).rejects.toThrow(dataFile);

    expect((await readFile(dataFile)).equals(before)).toBe(true);
    expect(existsSync(`${dataFile}.wal`)).toBe(false);
  });
});

describe('the write-ahead log after a crash', () => {
  it('drops a last line cut short, applies the complete ones, and keeps logging cleanly', async () => {
    const complete = [1, 2, 3].map((n) => changeLine(paymentRecord(PUBLIC_A, n))).join('\n') + '\n';
    await writeFile(`${dataFile}.wal`, complete);
    await appendFile(`${dataFile}.wal`, '{"kind":"payment","pay');

    const store = await openStore({ file: dataFile });
    expect(store.payments(PUBLIC_A).map((payment) => payment.paymentReference)).toEqual([
      'SBREF-STORE-0001',
      'SBREF-STORE-0002',
      'SBREF-STORE-0003',
    ]);
    const log = await readFile(`${dataFile}.wal`, 'utf8');
    expect(log).toBe(complete);
    expect(log).not.toContain('"pay\n');

    // A change logged after the recovery lands on a line of its own.
    store.putPayment(paymentRecord(PUBLIC_A, 4));
    await store.commit();
    const reopened = await openStore({ file: dataFile });
    expect(reopened.payments(PUBLIC_A)).toHaveLength(4);
  });

  it.each([
    ['not JSON at all', '{"kind":"payment","pay'],
    ['null', 'null'],
    ['a change without its record', '{"kind":"payment"}'],
    ['an unknown kind', '{"kind":"refund","amount":"10.00"}'],
  ])('refuses a broken complete line in the middle of the log (%s), naming the log, and writes nothing', async (_what, line) => {
    const log = [changeLine(paymentRecord(PUBLIC_A, 1)), line, changeLine(paymentRecord(PUBLIC_A, 2))].join('\n') + '\n';
    await writeFile(`${dataFile}.wal`, log);

    const opening = Store.open({ file: dataFile });
    await expect(opening).rejects.toBeInstanceOf(StoreOpenError);
    await expect(opening).rejects.toThrow(`${dataFile}.wal`);
    expect(await readFile(`${dataFile}.wal`, 'utf8')).toBe(log);
    expect(existsSync(dataFile)).toBe(false);
  });
});

describe('a log it cannot read', () => {
  it('refuses a log that is not a readable file, naming the log', async () => {
    await mkdir(`${dataFile}.wal`);

    const opening = Store.open({ file: dataFile });
    await expect(opening).rejects.toBeInstanceOf(StoreOpenError);
    await expect(opening).rejects.toThrow(`${dataFile}.wal`);
    expect(existsSync(dataFile)).toBe(false);
  });
});

describe('card data on disk', () => {
  it('keeps only BIN, last four and a token of a card, in the log and in the snapshot', { timeout: TIMEOUT }, async () => {
    const sandbox = await startOn(dataFile);
    const api = await ApiClient.for(sandbox);
    const merchant = await api.merchant();
    const body = cardPayment({ cardNumber: '5123450000000008', cvv: '123', pin: '1234' });
    const initiated = await api.as(merchant, 'POST', '/payments/initiates', body);
    expect(initiated.body.data.code).toBe('S20');

    const forbidden = ['5123450000000008', '"cvv"', '"pin"'];
    const log = await readFile(`${dataFile}.wal`, 'utf8');
    expect(log).toContain(String(body.paymentReference));
    for (const text of forbidden) expect(log).not.toContain(text);

    await sandbox.close();
    const snapshot = await readFile(dataFile, 'utf8');
    expect(snapshot).toContain(String(body.paymentReference));
    for (const text of forbidden) expect(snapshot).not.toContain(text);
    expect(await readFile(`${dataFile}.wal`, 'utf8')).toBe('');

    const store = await openStore({ file: dataFile });
    const card = store.payment(merchant.publicKey, String(body.paymentReference))?.card;
    expect(card).toMatchObject({ bin: '512345', last4: '0008' });
    expect(card?.token).toMatch(/\S/);

    // After a restart the API still answers the card's BIN and last four.
    await store.close();
    stores = [];
    const restarted = await startOn(dataFile);
    const cancelled = await (await ApiClient.for(restarted)).send(
      'POST',
      '/payments/cancel',
      { paymentReference: body.paymentReference, publicKey: merchant.publicKey, country: 'NG', productDescription: 'Annual plan' },
      merchant.basic,
    );
    expect(cancelled.body.data).toMatchObject({ code: '00', payments: { status: 'CANCELLED', card: { bin: '512345', last4: '0008' } } });
  });
});

describe('reset of one merchant', () => {
  it('forgets that merchant\'s payments and orders and keeps the other\'s, across a reopen', async () => {
    const store = await openStore({ file: dataFile });
    for (const publicKey of [PUBLIC_A, PUBLIC_B]) {
      store.putMerchant({ publicKey, secretKey: `SBTESTSECK_${publicKey.slice(-16)}`, createdAt: '2025-01-01T12:00:00.000Z' });
      for (let n = 1; n <= 3; n += 1) store.putPayment(paymentRecord(publicKey, n));
      store.putOrder({
        publicKey,
        paymentReference: 'SBREF-ORDER-1',
        callbackUrl: 'https://merchant.example.com/callback',
        country: 'NG',
        currency: 'NGN',
        amount: '4500.00',
        items: [],
        createdAt: '2025-01-01T12:00:00.000Z',
        updatedAt: '2025-01-01T12:00:00.000Z',
      });
    }
    await store.commit();
    store.reset(PUBLIC_A);
    await store.commit();

    const check = (opened: Store) => {
      expect(opened.payments(PUBLIC_A)).toEqual([]);
      expect(opened.orders(PUBLIC_A)).toEqual([]);
      expect(opened.paymentByLinkingReference(PUBLIC_A, linkingReferenceOf(PUBLIC_A, 'SBREF-STORE-0001'))).toBeUndefined();
      expect(opened.payments(PUBLIC_B).map((payment) => payment.paymentReference)).toEqual([
        'SBREF-STORE-0001',
        'SBREF-STORE-0002',
        'SBREF-STORE-0003',
      ]);
      expect(opened.orders(PUBLIC_B)).toHaveLength(1);
      expect(opened.paymentByLinkingReference(PUBLIC_B, linkingReferenceOf(PUBLIC_B, 'SBREF-STORE-0001'))).toBeDefined();
      // Merchants stay: their tokens keep working.
      expect(opened.merchant(PUBLIC_A)).toBeDefined();
      expect(opened.merchant(PUBLIC_B)).toBeDefined();
    };
    check(store);

    // From the log (no close yet)...
    check(await openStore({ file: dataFile }));
    // ...and from the snapshot written by close().
    await store.close();
    stores = stores.filter((opened) => opened !== store);
    check(await openStore({ file: dataFile }));
  });
});
