import { open as openFile } from 'node:fs/promises';
import { Low } from 'lowdb';
import { JSONFile } from 'lowdb/node';
import type { Merchant } from '../domain/merchants.js';
import type { Order, Payment } from '../domain/records.js';
import { applyChange, checkState, emptyState, type Change, type StoreData } from './state.js';
import { WriteAheadLog } from './write-ahead-log.js';

/** Where the store keeps its state. */
export interface StoreOptions {
  /** the snapshot file (JSON, written by lowdb); the log sits beside it as `<file>.wal`. Absent: memory only. */
  file?: string;
  /** how many logged changes trigger a new snapshot; default 10 000 */
  snapshotEvery?: number;
}

/** The store could not be opened; the message names the file. The file is left as it was. */
export class StoreOpenError extends Error {
  override name = 'StoreOpenError';
}

/**
 * The sandbox's state: in memory for reads, on disk for durability.
 *
 * Writers change the state in memory at once (so the next request sees it)
 * and then `await commit()`, which resolves once the change is on disk.
 * Changes that arrive together are appended to the write-ahead log in one
 * write and one fdatasync (group commit); every `snapshotEvery` changes the
 * whole state is written to the JSON file by lowdb and the log is emptied.
 * So a request pays for its own change, never for the number of payments
 * stored (README, "Storage").
 */
export class Store {
  private queued: string[] = [];
  private sequence = 0;
  private durable = 0;
  private waiters: Array<{ sequence: number; resolve: () => void; reject: (error: Error) => void }> = [];
  private flushing: Promise<void> | undefined;
  private failure: Error | undefined;
  private readonly byLinkingReference = new Map<string, Payment>();

  private constructor(
    private readonly data: StoreData,
    private readonly snapshot: Low<StoreData> | undefined,
    private readonly log: WriteAheadLog | undefined,
    private readonly snapshotEvery: number,
  ) {
    for (const payments of Object.values(data.payments)) {
      for (const payment of Object.values(payments)) this.index(payment);
    }
  }

  /**
   * Opens the store: reads the snapshot file and replays the log beside it.
   * @throws StoreOpenError naming the file when either cannot be read; nothing is written then.
   */
  static async open(options: StoreOptions = {}): Promise<Store> {
    const snapshotEvery = options.snapshotEvery ?? 10_000;
    if (options.file === undefined) return new Store(emptyState(), undefined, undefined, snapshotEvery);
    const file = options.file;
    const db = new Low<StoreData>(new JSONFile<StoreData>(file), emptyState());
    try {
      await db.read();
    } catch (error) {
      throw new StoreOpenError(`cannot read the store file ${file}: ${(error as Error).message}`);
    }
    const problem = checkState(db.data);
    if (problem) throw new StoreOpenError(`cannot read the store file ${file}: ${problem}`);
    let opened;
    try {
      opened = await WriteAheadLog.open(`${file}.wal`);
    } catch (error) {
      throw new StoreOpenError((error as Error).message);
    }
    for (const change of opened.changes) applyChange(db.data, change);
    return new Store(db.data, db, opened.log, snapshotEvery);
  }

  /** True when the state lives in memory only (`--in-memory`). */
  get inMemory(): boolean {
    return this.log === undefined;
  }

  /** The write failure that stopped the store, if any: a store that failed answers no more writes. */
  get failed(): Error | undefined {
    return this.failure;
  }

  /** The merchant with this public key, if the sandbox has seen it. */
  merchant(publicKey: string): Merchant | undefined {
    return this.data.merchants[publicKey];
  }

  /** Every merchant the sandbox has seen. */
  merchants(): Merchant[] {
    return Object.values(this.data.merchants);
  }

  /** The payment of one merchant with this paymentReference, if any. */
  payment(publicKey: string, paymentReference: string): Payment | undefined {
    return this.data.payments[publicKey]?.[paymentReference];
  }

  /** The payment of `publicKey` with this linkingReference, if any. */
  paymentByLinkingReference(publicKey: string, linkingReference: string): Payment | undefined {
    const payment = this.byLinkingReference.get(linkingReference);
    return payment?.publicKey === publicKey ? payment : undefined;
  }

  /** The payment with this linkingReference, whoever's it is: the customer pages know a payment by it alone. */
  paymentWithLinkingReference(linkingReference: string): Payment | undefined {
    return this.byLinkingReference.get(linkingReference);
  }

  /** All payments of one merchant, oldest first. */
  payments(publicKey: string): Payment[] {
    return Object.values(this.data.payments[publicKey] ?? {});
  }

  /** The order of one merchant with this paymentReference, if any. */
  order(publicKey: string, paymentReference: string): Order | undefined {
    return this.data.orders[publicKey]?.[paymentReference];
  }

  /** All orders of one merchant, oldest first. */
  orders(publicKey: string): Order[] {
    return Object.values(this.data.orders[publicKey] ?? {});
  }

  /** Records a merchant. Durable after the next `commit()`. */
  putMerchant(merchant: Merchant): void {
    this.change({ kind: 'merchant', merchant });
  }

  /** Records a payment, replacing the one with the same key. Durable after the next `commit()`. */
  putPayment(payment: Payment): void {
    this.change({ kind: 'payment', payment });
    this.index(payment);
  }

  /** Records an order, replacing the one with the same key. Durable after the next `commit()`. */
  putOrder(order: Order): void {
    this.change({ kind: 'order', order });
  }

  /** Forgets the payments and orders of one merchant, or of all when `publicKey` is absent. Merchants stay. */
  reset(publicKey?: string): void {
    for (const [linkingReference, payment] of this.byLinkingReference) {
      if (publicKey === undefined || payment.publicKey === publicKey) this.byLinkingReference.delete(linkingReference);
    }
    this.change({ kind: 'reset', publicKey });
  }

  /**
   * Resolves once every change made so far is on disk (at once in memory).
   * @throws Error when the write failed; the store then refuses further commits.
   */
  commit(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const sequence = this.sequence;
    if (this.durable >= sequence) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push({ sequence, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  /** Writes what is pending, a last snapshot, and closes the files. */
  async close(): Promise<void> {
    await this.flushing;
    if (this.log && !this.failure) {
      await this.writeSnapshot();
      await this.log.close();
    }
  }

  private change(change: Change): void {
    if (this.failure) throw this.failure;
    applyChange(this.data, change);
    if (!this.log) return;
    this.queued.push(JSON.stringify(change));
    this.sequence += 1;
  }

  private index(payment: Payment): void {
    this.byLinkingReference.set(payment.linkingReference, payment);
  }

  // One flush at a time; whatever queued meanwhile goes out in the next one.
  private async flush(): Promise<void> {
    const log = this.log!;
    try {
      while (this.queued.length > 0) {
        const batch = this.queued;
        const upTo = this.sequence;
        this.queued = [];
        await log.append(batch);
        this.durable = upTo;
        this.waiters = this.waiters.filter((waiter) => {
          if (waiter.sequence > upTo) return true;
          waiter.resolve();
          return false;
        });
        if (log.size >= this.snapshotEvery) await this.writeSnapshot();
      }
    } catch (error) {
      this.failure = new Error(`cannot write the store: ${(error as Error).message}`);
      for (const waiter of this.waiters) waiter.reject(this.failure);
      this.waiters = [];
    } finally {
      this.flushing = undefined;
    }
  }

  // The snapshot holds every change applied so far, including queued ones;
  // those are logged again afterwards, which is harmless (each change replaces a whole record).
  private async writeSnapshot(): Promise<void> {
    const db = this.snapshot!;
    db.data = this.data;
    await db.write();
    const handle = await openFile(this.log!.path.slice(0, -'.wal'.length), 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await this.log!.clear();
  }
}
