import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { createHash } from 'node:crypto';
import type { Merchant } from '../../src/model/records.js';
import type { Order, Payment } from '../../src/model/records.js';
import { Store, type StoreOptions } from '../../src/store/store.js';

/**
 * Records built by hand, and a fresh folder for each test's store files, for
 * the tests of the store on real files.
 */

export const PUBLIC_A = 'SBTESTPUBK_aaaaaaaa00000001';
export const PUBLIC_B = 'SBTESTPUBK_bbbbbbbb00000002';

/** A merchant record as the store keeps it. */
export function merchantRecord(publicKey: string): Merchant {
  return { publicKey, secretKey: `SBTESTSECK_${publicKey.slice(-16)}`, createdAt: '2025-01-01T12:00:00.000Z' };
}

/** A payment record as the store keeps it; `n` (a number) makes the reference SBREF-STORE-000n, a string is the reference itself. */
export function paymentRecord(publicKey: string, n: number | string, fields: Partial<Payment> = {}): Payment {
  const paymentReference = typeof n === 'number' ? `SBREF-STORE-${String(n).padStart(4, '0')}` : n;
  const at = new Date(Date.UTC(2025, 0, 1, 12, 0, 0) + (typeof n === 'number' ? n : 0) * 1000).toISOString();
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

/** An order record with one item, as the store keeps it. */
export function orderRecord(publicKey: string, paymentReference: string): Order {
  const at = '2025-01-01T12:00:00.000Z';
  return {
    publicKey,
    paymentReference,
    callbackUrl: 'https://merchant.example.com/callback',
    country: 'NG',
    currency: 'NGN',
    amount: '4500.00',
    items: [{ orderId: 'ORD-1', currency: 'NGN', amount: '4500.00', productId: '101', productDescription: 'Starter kit', createdAt: at, updatedAt: at }],
    createdAt: at,
    updatedAt: at,
  };
}

/** A line of the log that puts `payment`. */
export const changeLine = (payment: Payment): string => JSON.stringify({ kind: 'payment', payment });

/** The non-empty lines of the log beside `file`. */
export const logLines = async (file: string): Promise<string[]> =>
  (await readFile(`${file}.wal`, 'utf8')).split('\n').filter((line) => line !== '');

/** Each test's own folder and store file, and the stores it opened (closed after it). */
export interface StoreFiles {
  readonly dir: string;
  /** the store file (`--data`) */
  readonly file: string;
  /** opens a store on `file` (or on `options.file`), to be closed after the test */
  open(options?: StoreOptions): Promise<Store>;
  /**
   * The files as a crash would leave them now, copied under a new name: what
   * the next process would find. The store keeps its own lock on `file`, as
   * a live process does.
   */
  crashCopy(): Promise<string>;
}

/** Registers the hooks that make a folder before each test and remove it, and every store opened, after. */
export function storeFiles(prefix = 'payments-sandbox-store-'): StoreFiles {
  let dir = '';
  let stores: Store[] = [];
  let copies = 0;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterEach(async () => {
    for (const store of stores) await store.close().catch(() => undefined);
    stores = [];
    await rm(dir, { recursive: true, force: true });
  });
  return {
    get dir() {
      return dir;
    },
    get file() {
      return join(dir, 'sandbox.json');
    },
    async open(options = {}) {
      const store = await Store.open({ file: join(dir, 'sandbox.json'), ...options });
      stores.push(store);
      return store;
    },
    async crashCopy() {
      copies += 1;
      const copy = join(dir, `after-crash-${copies}.json`);
      for (const suffix of ['', '.wal', '.wal.folding']) {
        const from = join(dir, `sandbox.json${suffix}`);
        if (existsSync(from)) await copyFile(from, `${copy}${suffix}`);
      }
      return copy;
    },
  };
}

/** A linkingReference for fixture records: the store keeps whatever it is given, so any stable value will do. */
export const linkingReferenceOf = (publicKey: string, paymentReference: string): string =>
  `SBLNK_${createHash('sha256').update(`${publicKey}:${paymentReference}`).digest('hex').slice(0, 20)}`;

/** The log set aside while a fold writes the snapshot, beside the store file `file`. */
export const asideOf = (file: string): string => `${file}.wal.folding`;

/**
 * Everything a store shows of its state, for comparing two stores: the
 * merchants, each merchant's payments and orders in order, and what each
 * payment's linkingReference finds.
 */
export function stateOf(store: Store, publicKeys: string[]): unknown {
  return {
    merchants: store.merchants(),
    rows: publicKeys.map((publicKey) => ({ publicKey, payments: store.payments(publicKey), orders: store.orders(publicKey) })),
    links: publicKeys.flatMap((publicKey) =>
      store.payments(publicKey).map((payment) => [payment.linkingReference, store.paymentWithLinkingReference(payment.linkingReference)?.paymentReference]),
    ),
  };
}

/** Writes a version 2 snapshot holding `payments` (and their merchants), one record a line, as the store writes it. */
export async function writeSnapshot(file: string, payments: Payment[], orders: Order[] = []): Promise<void> {
  const merchants = [...new Set(payments.map((payment) => payment.publicKey))].map(merchantRecord);
  const list = (rows: object[]) => (rows.length === 0 ? '[]' : `[\n${rows.map((row) => JSON.stringify(row)).join(',\n')}\n]`);
  await writeFile(file, `{"version": 2,\n"merchants": ${list(merchants)},\n"payments": ${list(payments)},\n"orders": ${list(orders)}}\n`);
}

/** A point a test holds a store at: `reached` resolves when the store gets there, and the store goes on once `release()` is called. */
export interface Hold {
  reached: Promise<void>;
  arrive(): void;
  wait: Promise<void>;
  release(): void;
}

/** A new Hold, closed. */
export function hold(): Hold {
  let arrive = () => {};
  let release = () => {};
  const reached = new Promise<void>((resolve) => (arrive = resolve));
  const wait = new Promise<void>((resolve) => (release = resolve));
  return { reached, arrive, wait, release };
}
