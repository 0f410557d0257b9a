import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
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
      for (const suffix of ['', '.wal']) {
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
