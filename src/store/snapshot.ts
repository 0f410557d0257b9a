import { open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { TextFile } from 'lowdb/node';
import type { Delivery, MerchantClock, WebhookEndpoint } from '../model/notifications.js';
import type { Merchant } from '../model/records.js';
import type { Order, Payment } from '../model/records.js';
import { StoreOpenError } from './errors.js';
import { createTemporary, folderWarning, keepToOwner, openToRead, removeTemporaries, type OpenFile } from './files.js';
import { snapshotProblem } from './schema.js';
import { snapshotChunks } from './snapshot-text.js';
import { Tables, type SnapshotRecords } from './tables.js';

/**
 * The snapshot file: the whole state as JSON, read with lowdb, written as a
 * temporary file that is fsync'd, renamed into place, and made durable with
 * its folder before any log it holds may be removed (README, "Storage").
 *
 * Version 2, written now: `{"version": 2, "merchants": [...], "payments":
 * [...], "orders": [...]}`, each record once, oldest first, one record a
 * line. Lists rather than objects keyed by reference, because JSON.parse
 * puts keys that look like integers ("10", "2") before the others, which
 * would lose "oldest first". One record a line rather than indented: a
 * quarter fewer bytes to read and parse at start-up, and still a file one
 * can read and grep. Version 3 adds the lists "webhooks", "clocks" and
 * "deliveries" (README, "Notifications"). Versions 1 (objects by public
 * key, then paymentReference) and 2, indented or not, are still read.
 */

export { recordCount, SNAPSHOT_VERSION, snapshotChunks } from './snapshot-text.js';
/** Characters of snapshot text written between two fdatasyncs of it. */
const SYNC_EVERY_CHARS = 2 * 1024 * 1024;

/** A snapshot as parsed and checked against its schema. */
type Snapshot =
  | { version: 1; merchants: Record<string, Merchant>; payments: Record<string, Record<string, Payment>>; orders: Record<string, Record<string, Order>> }
  | { version: 2; merchants: Merchant[]; payments: Payment[]; orders: Order[] }
  | { version: 3; merchants: Merchant[]; payments: Payment[]; orders: Order[]; webhooks: WebhookEndpoint[]; clocks: MerchantClock[]; deliveries: Delivery[] };

export type { SnapshotRecords } from './tables.js';

/** The snapshot file at one path. */
export class SnapshotFile {
  private readonly file: TextFile;
  private swept: Promise<void> | undefined;
  /** What reading the snapshot found that a person should know: a folder other users can write to. */
  readonly warnings: string[] = [];

  /** @param path the store file (`--data`) */
  constructor(readonly path: string) {
    this.file = new TextFile(path);
  }

  /**
   * Reads the snapshot (a missing file is an empty state) and checks every
   * record; a snapshot found at another mode than 0600 (left by an older
   * version, or copied in) is then set to 0600. Adds to `warnings` when the
   * folder lets other users replace the store's files (`folderWarning()`).
   * @throws StoreOpenError naming the file, saying what is wrong (not a
   *   regular file, another user's, not a store); nothing is written
   */
  async read(): Promise<Tables> {
    const refuse = (problem: string) => new StoreOpenError(`cannot read the store file ${this.path}: ${problem}`);
    const warning = await folderWarning(this.path);
    if (warning) this.warnings.push(warning);
    let found: OpenFile | undefined;
    try {
      // Checked open (a regular file, ours) before lowdb reads it: no other user can replace a file of ours but in a folder folderWarning reports.
      found = await openToRead(this.path);
      const text = found ? await this.file.read() : null;
      if (text === null) return new Tables();
      const tables = this.parse(text, refuse);
      // Only a file that proved to be a snapshot has its mode changed.
      if (found) await keepToOwner(found);
      return tables;
    } catch (error) {
      throw error instanceof StoreOpenError ? error : refuse((error as Error).message);
    } finally {
      await found?.handle.close();
    }
  }

  private parse(text: string, refuse: (problem: string) => StoreOpenError): Tables {
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
   * Removes the temporary files of snapshots a crash left (`removeTemporaries()`),
   * once: the first write waits for it, so that it never meets a temporary
   * file being written. Never rejects: a file that cannot be removed is no
   * reason to refuse writes.
   */
  sweep(): Promise<void> {
    this.swept ??= removeTemporaries(this.path).then(
      () => undefined,
      () => undefined,
    );
    return this.swept;
  }

  /**
   * Replaces the snapshot with `records` and waits until it is durable: the
   * temporary file is written a chunk at a time (the event loop runs between
   * chunks), fsync'd, renamed over the snapshot once `ready` resolves, and
   * the folder is fsync'd.
   * @param ready resolves once every record written is in the log: the old
   *   snapshot is replaced only then; rejects when the disk refused some
   * @throws Error from the disk, or `ready`'s; the previous snapshot is then
   *   still in place, and the temporary file is removed (on a full disk it
   *   would keep the space the log needs)
   */
  async write(records: SnapshotRecords, ready: Promise<void> = Promise.resolve()): Promise<void> {
    await this.sweep();
    // A fresh file under a name no one can guess: a file or link left at a known name would set the snapshot's mode, or receive it.
    const { path: temporary, handle } = await createTemporary(this.path);
    try {
      try {
        let unsynced = 0;
        for (const chunk of snapshotChunks(records)) {
          await handle.writeFile(chunk);
          unsynced += chunk.length;
          // A log append's fdatasync would otherwise wait for all the snapshot's dirty pages at once (ext4 ordered mode), and commits during a fold with it.
          if (unsynced >= SYNC_EVERY_CHARS) {
            await handle.datasync();
            unsynced = 0;
          }
        }
        // Before the rename: a crash must find the old snapshot or the whole new one, never a renamed file whose data is not on disk.
        await handle.sync();
      } finally {
        await handle.close();
      }
      await ready;
      await rename(temporary, this.path);
    } catch (error) {
      await rm(temporary, { force: true }).catch(() => undefined);
      throw error;
    }
    // The rename lives in the folder: without this a crash could bring the old snapshot back after the log is removed.
    await syncFolder(dirname(this.path));
  }
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
  if (snapshot.version === 3) return Tables.of(snapshot);
  if (snapshot.version === 2) return Tables.of({ ...snapshot, webhooks: [], clocks: [], deliveries: [] });
  const tables = new Tables();
  for (const [publicKey, merchant] of Object.entries(snapshot.merchants)) {
    if (merchant.publicKey !== publicKey) return `/merchants/${pointer(publicKey)} holds the merchant ${JSON.stringify(merchant.publicKey)}`;
    tables.replay({ kind: 'merchant', merchant });
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
    rows('payments', snapshot.payments, (payment) => tables.replay({ kind: 'payment', payment })) ??
    rows('orders', snapshot.orders, (order) => tables.replay({ kind: 'order', order }));
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
