import { randomInt } from 'node:crypto';
import type { DeliveryClaim, HearChange, StoreEngine } from './engine.js';
import { StoreOpenError } from './errors.js';
import { SharedLog } from './shared-log.js';
import type { SharedBooks, SharedJournal } from './sharing.js';
import { describeUrl } from './store-url.js';
import type { SyncLevel } from './sync-level.js';
import { Tables, type Change } from './tables.js';

/**
 * The state in PostgreSQL, shared by every replica pointed at it
 * (docs/decisions.md#d84-shared-store): each replica keeps the whole state
 * in its tables, and `SharedLog` makes changes durable in the shared log and
 * reads the others' (docs/design.md, "Two stores"). Loaded only for `--store`,
 * so that a start on the file or in memory never loads `pg`.
 */
export class PostgresEngine implements StoreEngine {
  readonly warnings: readonly string[] = [];
  readonly durable = true;
  readonly servesAlone = false;
  readonly takesBackBooks = true;
  readonly snapshotTrouble = undefined;

  private constructor(
    readonly tables: Tables,
    private readonly log: SharedLog,
  ) {}

  /**
   * Connects, migrates the schema, and reads the whole log into the tables.
   * @param hear told each change another replica committed, once applied (not those read at open: nobody watches yet)
   * @throws StoreOpenError naming the database (never its password) when it cannot be reached or holds a newer schema
   */
  static async open(url: string, sync: SyncLevel, hear: HearChange): Promise<PostgresEngine> {
    const tables = new Tables();
    const replica = {
      replay: (change: Change) => {
        tables.replay(change);
        hear(change);
      },
      records: () => tables.records(),
      size: () => tables.size,
    };
    try {
      return new PostgresEngine(tables, await SharedLog.open(url, replica, sync));
    } catch (error) {
      throw error instanceof StoreOpenError ? error : new StoreOpenError(`cannot open the store at ${describeUrl(url)}: ${(error as Error).message}`);
    }
  }

  get trouble(): Error | undefined {
    return this.log.trouble;
  }

  // Microseconds since the epoch at start, plus a random part for two replicas started in the same microsecond.
  eventNumberBase(): number {
    return Date.now() * 1000 + randomInt(1000);
  }

  admit(change: Change): void {
    if (!this.log.inUnit) throw new Error(`a ${change.kind} change was put outside a unit of work (Store.transaction)`);
  }

  // A new payment's key goes into sandbox_payment_keys with the batch: its primary key refuses a paymentReference taken twice.
  put(change: Change): void {
    const newPayment = change.kind === 'payment' && this.tables.payment(change.payment.publicKey, change.payment.paymentReference) === undefined;
    const undo = this.tables.apply(change);
    this.log.queue(change, undo, newPayment ? { publicKey: change.payment.publicKey, paymentReference: change.payment.paymentReference } : undefined);
  }

  transaction<T>(work: () => T): Promise<T> {
    return this.log.transaction(work);
  }

  commit(): Promise<void> {
    return this.log.commit();
  }

  refresh(): Promise<void> {
    return this.log.refresh();
  }

  claim(deliveryId: string): Promise<DeliveryClaim> {
    return this.log.claim(deliveryId);
  }

  unclaim(deliveryId: string): Promise<void> {
    return this.log.unclaim(deliveryId);
  }

  shareBooks(books: SharedBooks): void {
    this.log.shareBooks(books);
  }

  booksChanged(): void {
    this.log.booksChanged();
  }

  shareJournal(journal: SharedJournal): Promise<void> {
    return this.log.shareJournal(journal);
  }

  sendJournal(publicKey: string | undefined, text: string): void {
    this.log.sendJournal(publicKey, text);
  }

  journalCleared(publicKey?: string): void {
    this.log.journalCleared(publicKey);
  }

  close(): Promise<void> {
    return this.log.close();
  }
}
