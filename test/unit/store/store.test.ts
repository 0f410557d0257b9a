import { existsSync } from 'node:fs';
import { appendFile, readFile, stat, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import type { Payment } from '../../../src/model/records.js';
import type { Store } from '../../../src/store/store.js';
import { WriteAheadLog } from '../../../src/store/write-ahead-log.js';
import { accountPayment, ApiClient, cardPayment, order, sandboxForTest, type TestMerchant } from '../../support/sandbox.js';
import { changeLine, logLines, merchantRecord, orderRecord, paymentRecord, PUBLIC_A, PUBLIC_B, storeFiles, linkingReferenceOf } from '../../store/fixtures.js';

/**
 * The store on real files: persistence across restarts and crashes, group
 * commit, snapshots, a log cut short by a crash, what is kept of a card, and
 * per-merchant reset.
 */

const TIMEOUT = 30_000;

const files = storeFiles();
let sandboxes: Sandbox[] = [];

afterEach(async () => {
  vi.restoreAllMocks();
  for (const sandbox of sandboxes) await sandbox.close().catch(() => undefined);
  sandboxes = [];
});

async function startOn(file: string): Promise<Sandbox> {
  const sandbox = await sandboxForTest({ dataFile: file });
  sandboxes.push(sandbox);
  return sandbox;
}

/** The payment references of `publicKey` in a version 2 snapshot, oldest first. */
const inSnapshot = (snapshot: { payments: Payment[] }, publicKey: string): string[] =>
  snapshot.payments.filter((payment) => payment.publicKey === publicKey).map((payment) => payment.paymentReference);

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
    const first = await startOn(files.file);
    const made = await payAndOrder(await ApiClient.for(first));
    await first.close();

    expect(existsSync(files.file)).toBe(true);
    const second = await startOn(files.file);
    await expectRestored(second, made);
  });

  it('keeps everything acknowledged when the first sandbox is never closed (crash)', { timeout: TIMEOUT }, async () => {
    const first = await startOn(files.file);
    const made = await payAndOrder(await ApiClient.for(first));

    // No snapshot was written: what comes back can only come from the log.
    expect(existsSync(files.file)).toBe(false);
    expect((await logLines(files.file)).length).toBeGreaterThan(0);

    const second = await startOn(await files.crashCopy());
    await expectRestored(second, made);
  });

  it('replays the log of a store that was never closed', async () => {
    const first = await files.open();
    first.putMerchant(merchantRecord(PUBLIC_A));
    first.putPayment(paymentRecord(PUBLIC_A, 1));
    first.putPayment(paymentRecord(PUBLIC_A, 1, { status: 'SUCCESSFUL', code: '00', message: 'Successful' }));
    await first.commit();

    const second = await files.open({ file: await files.crashCopy() });
    expect(second.merchant(PUBLIC_A)?.secretKey).toBe(merchantRecord(PUBLIC_A).secretKey);
    expect(second.payments(PUBLIC_A)).toHaveLength(1);
    expect(second.payment(PUBLIC_A, 'SBREF-STORE-0001')?.status).toBe('SUCCESSFUL');
    expect(second.paymentByLinkingReference(PUBLIC_A, linkingReferenceOf(PUBLIC_A, 'SBREF-STORE-0001'))?.status).toBe('SUCCESSFUL');
  });
});

describe('group commit', () => {
  it('writes 200 changes committed together in far fewer log appends, and keeps all of them', async () => {
    const append = vi.spyOn(WriteAheadLog.prototype, 'append');
    const store = await files.open();

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
    expect(await logLines(files.file)).toHaveLength(200);

    const reopened = await files.open({ file: await files.crashCopy() });
    expect(reopened.payments(PUBLIC_A).map((payment) => payment.paymentReference)).toEqual(
      Array.from({ length: 200 }, (_, index) => paymentRecord(PUBLIC_A, index + 1).paymentReference),
    );
  });

  it('resolves a commit at once when nothing changed', async () => {
    const append = vi.spyOn(WriteAheadLog.prototype, 'append');
    const store = await files.open();
    await store.commit();
    expect(append).not.toHaveBeenCalled();
    expect(existsSync(`${files.file}.wal`) ? await logLines(files.file) : []).toEqual([]);
  });

  it('answers each request only once its own change is on disk', async () => {
    const store = await files.open();
    store.putPayment(paymentRecord(PUBLIC_A, 1));
    await store.commit();
    expect((await logLines(files.file)).map((line) => JSON.parse(line).payment.paymentReference)).toEqual(['SBREF-STORE-0001']);
  });
});

describe('snapshots', () => {
  it('writes the whole state to the JSON file every snapshotEvery changes (at least) and empties the log', async () => {
    const store = await files.open({ snapshotEvery: 10 });
    for (let n = 1; n <= 25; n += 1) {
      store.putPayment(paymentRecord(PUBLIC_A, n));
      await store.commit();
    }
    // Snapshots are written beside the commits, not on their way: the last fold may still be under way.
    await vi.waitFor(async () => {
      expect(existsSync(`${files.file}.wal.folding`)).toBe(false);
      expect((await logLines(files.file)).length).toBeLessThan(10);
    });

    const lines = await logLines(files.file);
    expect(lines.length).toBeLessThan(10);
    const snapshot = JSON.parse(await readFile(files.file, 'utf8'));
    expect(snapshot.version).toBe(3);
    const snapshotted = inSnapshot(snapshot, PUBLIC_A);
    expect(snapshotted.length).toBeGreaterThanOrEqual(10);
    // Snapshot and log together hold every change.
    const inLog = lines.map((line) => (JSON.parse(line) as { payment: Payment }).payment.paymentReference);
    expect(new Set([...snapshotted, ...inLog]).size).toBe(25);

    // Reopened without a close: snapshot plus log replay.
    const reopened = await files.open({ file: await files.crashCopy(), snapshotEvery: 10 });
    expect(reopened.payments(PUBLIC_A)).toHaveLength(25);
    expect(reopened.payment(PUBLIC_A, 'SBREF-STORE-0025')?.amount).toBe('150.00');
  });

  it('writes a last snapshot and empties the log on close(), changes not yet committed included', async () => {
    const store = await files.open();
    for (let n = 1; n <= 3; n += 1) store.putPayment(paymentRecord(PUBLIC_A, n));
    await store.commit();
    store.putPayment(paymentRecord(PUBLIC_A, 4));
    await store.close();

    expect(await logLines(files.file)).toEqual([]);
    const snapshot = JSON.parse(await readFile(files.file, 'utf8'));
    expect(inSnapshot(snapshot, PUBLIC_A)).toEqual(['SBREF-STORE-0001', 'SBREF-STORE-0002', 'SBREF-STORE-0003', 'SBREF-STORE-0004']);
    expect(existsSync(`${files.file}.lock`)).toBe(false);
  });

  it('reads a version 1 snapshot and writes version 3 at the next snapshot', async () => {
    const v1 = {
      version: 1,
      merchants: { [PUBLIC_A]: merchantRecord(PUBLIC_A) },
      payments: { [PUBLIC_A]: { 'SBREF-STORE-0001': paymentRecord(PUBLIC_A, 1), 'SBREF-STORE-0002': paymentRecord(PUBLIC_A, 2) } },
      orders: { [PUBLIC_A]: { 'SBREF-ORDER-1': orderRecord(PUBLIC_A, 'SBREF-ORDER-1') } },
    };
    await writeFile(files.file, JSON.stringify(v1, null, 2));

    const store = await files.open();
    expect(store.merchants()).toEqual([merchantRecord(PUBLIC_A)]);
    expect(store.payments(PUBLIC_A).map((payment) => payment.paymentReference)).toEqual(['SBREF-STORE-0001', 'SBREF-STORE-0002']);
    expect(store.order(PUBLIC_A, 'SBREF-ORDER-1')).toEqual(orderRecord(PUBLIC_A, 'SBREF-ORDER-1'));
    await store.close();

    expect(JSON.parse(await readFile(files.file, 'utf8'))).toEqual({
      version: 3,
      merchants: [merchantRecord(PUBLIC_A)],
      payments: [paymentRecord(PUBLIC_A, 1), paymentRecord(PUBLIC_A, 2)],
      orders: [orderRecord(PUBLIC_A, 'SBREF-ORDER-1')],
      webhooks: [],
      clocks: [],
      deliveries: [],
    });
  });
});

describe('the write-ahead log after a crash', () => {
  it('drops a last line cut short, applies the complete ones, and keeps logging cleanly', async () => {
    const complete = [1, 2, 3].map((n) => changeLine(paymentRecord(PUBLIC_A, n))).join('\n') + '\n';
    await writeFile(`${files.file}.wal`, complete);
    await appendFile(`${files.file}.wal`, '{"kind":"payment","pay');

    const store = await files.open();
    expect(store.payments(PUBLIC_A).map((payment) => payment.paymentReference)).toEqual([
      'SBREF-STORE-0001',
      'SBREF-STORE-0002',
      'SBREF-STORE-0003',
    ]);
    const log = await readFile(`${files.file}.wal`, 'utf8');
    expect(log).toBe(complete);
    expect(log).not.toContain('"pay\n');

    // A change logged after the recovery lands on a line of its own.
    store.putPayment(paymentRecord(PUBLIC_A, 4));
    await store.commit();
    const reopened = await files.open({ file: await files.crashCopy() });
    expect(reopened.payments(PUBLIC_A)).toHaveLength(4);
  });
});

describe('card data on disk', () => {
  it('keeps only BIN, last four and a token of a card, in the log and in the snapshot', { timeout: TIMEOUT }, async () => {
    const sandbox = await startOn(files.file);
    const api = await ApiClient.for(sandbox);
    const merchant = await api.merchant();
    const body = cardPayment({ cardNumber: '5123450000000008', cvv: '123', pin: '1234' });
    const initiated = await api.as(merchant, 'POST', '/payments/initiates', body);
    expect(initiated.body.data.code).toBe('S20');

    const forbidden = ['5123450000000008', '"cvv"', '"pin"'];
    const log = await readFile(`${files.file}.wal`, 'utf8');
    expect(log).toContain(String(body.paymentReference));
    for (const text of forbidden) expect(log).not.toContain(text);

    await sandbox.close();
    const snapshot = await readFile(files.file, 'utf8');
    expect(snapshot).toContain(String(body.paymentReference));
    for (const text of forbidden) expect(snapshot).not.toContain(text);
    expect(await readFile(`${files.file}.wal`, 'utf8')).toBe('');

    const store = await files.open();
    const card = store.payment(merchant.publicKey, String(body.paymentReference))?.card;
    expect(card).toMatchObject({ bin: '512345', last4: '0008' });
    expect(card?.token).toMatch(/\S/);

    // After a restart the API still answers the card's BIN and last four.
    await store.close();
    const restarted = await startOn(files.file);
    const cancelled = await (await ApiClient.for(restarted)).send(
      'POST',
      '/payments/cancel',
      { paymentReference: body.paymentReference, publicKey: merchant.publicKey, country: 'NG', productDescription: 'Annual plan' },
      merchant.basic,
    );
    expect(cancelled.body.data).toMatchObject({ code: '00', payments: { status: 'CANCELLED', card: { bin: '512345', last4: '0008' } } });
  });
});

describe('file modes', () => {
  it('creates the snapshot and the log readable and writable by their owner only: they hold the merchants\' test secret keys', async () => {
    const store = await files.open();
    store.putMerchant(merchantRecord(PUBLIC_A));
    await store.commit();
    const modeOf = async (path: string) => (await stat(path)).mode & 0o777;
    expect(await modeOf(`${files.file}.wal`)).toBe(0o600);
    await store.close();
    expect(await modeOf(files.file)).toBe(0o600);
    expect(await modeOf(`${files.file}.wal`)).toBe(0o600);
  });
});

describe('reset of one merchant', () => {
  it('forgets that merchant\'s payments and orders and keeps the other\'s, across a reopen', async () => {
    const store = await files.open();
    for (const publicKey of [PUBLIC_A, PUBLIC_B]) {
      store.putMerchant(merchantRecord(publicKey));
      for (let n = 1; n <= 3; n += 1) store.putPayment(paymentRecord(publicKey, n));
      store.putOrder(orderRecord(publicKey, 'SBREF-ORDER-1'));
    }
    await store.commit();
    store.reset(PUBLIC_A);
    await store.commit();

    const check = (opened: Store) => {
      expect(opened.payments(PUBLIC_A)).toEqual([]);
      expect(opened.orders(PUBLIC_A)).toEqual([]);
      expect(opened.paymentByLinkingReference(PUBLIC_A, linkingReferenceOf(PUBLIC_A, 'SBREF-STORE-0001'))).toBeUndefined();
      expect(opened.paymentWithLinkingReference(linkingReferenceOf(PUBLIC_A, 'SBREF-STORE-0001'))).toBeUndefined();
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
    check(await files.open({ file: await files.crashCopy() }));
    // ...and from the snapshot written by close().
    await store.close();
    check(await files.open());
  });

  it('forgets every merchant\'s payments and orders on a reset of all, and keeps the merchants', async () => {
    const store = await files.open();
    for (const publicKey of [PUBLIC_A, PUBLIC_B]) {
      store.putMerchant(merchantRecord(publicKey));
      store.putPayment(paymentRecord(publicKey, 1));
      store.putOrder(orderRecord(publicKey, 'SBREF-ORDER-1'));
    }
    store.reset();
    await store.commit();

    for (const opened of [store, await files.open({ file: await files.crashCopy() })]) {
      expect(opened.merchants().map((merchant) => merchant.publicKey)).toEqual([PUBLIC_A, PUBLIC_B]);
      for (const publicKey of [PUBLIC_A, PUBLIC_B]) {
        expect(opened.payments(publicKey)).toEqual([]);
        expect(opened.orders(publicKey)).toEqual([]);
      }
      expect(opened.paymentWithLinkingReference(linkingReferenceOf(PUBLIC_A, 'SBREF-STORE-0001'))).toBeUndefined();
    }
  });
});
