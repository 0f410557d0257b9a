import { open, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { TextFile } from 'lowdb/node';
import type { Merchant } from '../model/records.js';
import type { Order, Payment } from '../model/records.js';
import { StoreOpenError } from './errors.js';
import { snapshotProblem } from './schema.js';
import { Tables } from './tables.js';

/**
 * The snapshot file: the whole state as readable JSON, written by lowdb
 * (a temporary file renamed into place) and made durable before the log
 * beside it may be emptied (README, "Storage").
 *
 * Version 2, written now: `{version: 2, merchants: [...], payments: [...],
 * orders: [...]}`, each record once, oldest first. Lists rather than objects
 * keyed by reference, because JSON.parse puts keys that look like integers
 * ("10", "2") before the others, which would lose "oldest first".
 * Version 1 (objects by public key, then paymentReference) is still read.
 */

/** The version this store writes. */
export const SNAPSHOT_VERSION = 2;

/** A snapshot as parsed and checked against its schema. */
type Snapshot =
  | { version: 1; merchants: Record<string, Merchant>; payments: Record<string, Record<string, Payment>>; orders: Record<string, Record<string, Order>> }
  | { version: 2; merchants: Merchant[]; payments: Payment[]; orders: Order[] };

/** The snapshot file at one path. */
export class SnapshotFile {
  private readonly file: TextFile;

  /** @param path the store file (`--data`) */
  constructor(readonly path: string) {
    this.file = new TextFile(path);
  }

  /**
   * Reads the snapshot (a missing file is an empty state) and checks every record.
   * @throws StoreOpenError naming the file, saying what is wrong; nothing is written
   */
  async read(): Promise<Tables> {
    const refuse = (problem: string) => new StoreOpenError(`cannot read the store file ${this.path}: ${problem}`);
    let text: string | null;
    try {
      // A device or a pipe in its place would be read for ever: only a regular file is a snapshot.
      const found = await stat(this.path).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? undefined : Promise.reject(error)));
      if (found && !found.isFile()) throw refuse('not a regular file');
      text = await this.file.read();
    } catch (error) {
      throw error instanceof StoreOpenError ? error : refuse((error as Error).message);
    }
    if (text === null) return new Tables();
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw refuse(`not JSON (${(error as Error).message})`);
    }
    const problem = snapshotProblem(value);
    if (problem) throw refuse(problem);
    const tables = tablesOf(value as Snapshot);
    if (typeof tables === 'string') throw refuse(tables);
    return tables;
  }

  /**
   * Replaces the snapshot with `text` and waits until it is durable: the new
   * file's data, and the directory entry the rename changed.
   * @throws Error from the disk; the previous snapshot is then still in place
   */
  async write(text: string): Promise<void> {
    try {
      await this.file.write(text);
    } catch (error) {
      // On a full disk, a half-written temporary file would keep the space the log needs: lowdb's writer names it .<name>.tmp.
      await rm(join(dirname(this.path), `.${basename(this.path)}.tmp`), { force: true }).catch(() => undefined);
      throw error;
    }
    await sync(this.path);
    // The rename lives in the folder: without this a crash could bring the old snapshot back after the log is emptied.
    await syncFolder(dirname(this.path));
  }
}

/** The snapshot text of the state: version 2, pretty-printed. */
export function snapshotText(tables: Tables): string {
  return JSON.stringify(
    { version: SNAPSHOT_VERSION, merchants: tables.merchantList(), payments: tables.paymentList(), orders: tables.orderList() },
    null,
    2,
  );
}

/** fsyncs a folder, making the names created or renamed in it durable. @throws Error from the disk */
export function syncFolder(path: string): Promise<void> {
  return sync(path);
}

async function sync(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

// The schema has checked every record; what is left is that each is stored once, under its own keys.
function tablesOf(snapshot: Snapshot): Tables | string {
  const tables = new Tables();
  if (snapshot.version === 2) {
    for (const [index, merchant] of snapshot.merchants.entries()) {
      if (tables.merchant(merchant.publicKey)) return `/merchants/${index} repeats the merchant ${JSON.stringify(merchant.publicKey)}`;
      tables.apply({ kind: 'merchant', merchant });
    }
    for (const [index, payment] of snapshot.payments.entries()) {
      if (tables.payment(payment.publicKey, payment.paymentReference)) return `/payments/${index} repeats ${describe(payment)}`;
      tables.apply({ kind: 'payment', payment });
    }
    for (const [index, order] of snapshot.orders.entries()) {
      if (tables.order(order.publicKey, order.paymentReference)) return `/orders/${index} repeats ${describe(order)}`;
      tables.apply({ kind: 'order', order });
    }
    return tables;
  }
  for (const [publicKey, merchant] of Object.entries(snapshot.merchants)) {
    if (merchant.publicKey !== publicKey) return `/merchants/${pointer(publicKey)} holds the merchant ${JSON.stringify(merchant.publicKey)}`;
    tables.apply({ kind: 'merchant', merchant });
  }
  const rows = <T extends { publicKey: string; paymentReference: string }>(table: string, byMerchant: Record<string, Record<string, T>>, put: (row: T) => void) => {
    for (const [publicKey, byReference] of Object.entries(byMerchant)) {
      for (const [paymentReference, row] of Object.entries(byReference)) {
        if (row.publicKey !== publicKey || row.paymentReference !== paymentReference) {
          return `/${table}/${pointer(publicKey)}/${pointer(paymentReference)} holds ${describe(row)}`;
        }
        put(row);
      }
    }
    return undefined;
  };
  const misplaced =
    rows('payments', snapshot.payments, (payment) => tables.apply({ kind: 'payment', payment })) ??
    rows('orders', snapshot.orders, (order) => tables.apply({ kind: 'order', order }));
  if (misplaced) return misplaced;
  return tables;
}

function describe(row: { publicKey: string; paymentReference: string }): string {
  return `the paymentReference ${JSON.stringify(row.paymentReference)} of ${JSON.stringify(row.publicKey)}`;
}

// A JSON Pointer token (RFC 6901), as the schema's messages name places.
function pointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
