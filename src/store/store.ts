import type { Delivery, MerchantClock, WebhookEndpoint } from '../model/notifications.js';
import type { Merchant } from '../model/records.js';
import type { Order, Payment, StoredCard } from '../model/records.js';
import { Disk } from './disk.js';
import { StoreOpenError, StoreUnavailableError } from './errors.js';
import { StoreLock } from './lock.js';
import { changeProblem } from './schema.js';
import { SnapshotFile } from './snapshot.js';
import type { SyncLevel } from './sync-level.js';
import { DEFAULT_MAX_MERCHANTS, Tables, type Change, type MerchantRecord, type SnapshotRecords } from './tables.js';
import { readLog, WriteAheadLog } from './write-ahead-log.js';
import type { SharedBooks, SharedJournal, SharedLog } from './shared-log.js';
import { describeUrl } from './store-url.js';

export { StoreOpenError, StoreUnavailableError } from './errors.js';
export { SYNC_LEVELS, type SyncLevel } from './sync-level.js';
export { DEFAULT_MAX_MERCHANTS, type Change, type MerchantRecord, type SnapshotRecords } from './tables.js';
export type { SharedBooks, SharedBooksState, SharedJournal } from './shared-log.js';

/** What `Store.claim` answers: whether this replica may make the delivery's attempt, and until when (epoch ms) the claim holds. */
export interface DeliveryClaim {
  claimed: boolean;
  untilMs: number;
}

/** Where the store keeps its state. */
export interface StoreOptions {
  /**
   * the snapshot file (JSON); the log sits beside it as `<file>.wal`, the log
   * set aside while it is folded into the snapshot as `<file>.wal.folding`,
   * the lock as `<file>.lock`. Absent: memory only.
   */
  file?: string;
  /**
   * a PostgreSQL connection string (`postgres://user:pass@host:port/db`,
   * `--store`): the state is kept there, shared by every replica pointed at
   * it (docs/decisions.md#d84-shared-store); `file` is then ignored
   */
  url?: string;
  /**
   * the fewest logged changes that make a new snapshot; default 10 000. The
   * log is folded into the snapshot once it holds this many changes and as
   * many as the snapshot holds records, so that each change pays a constant
   * share of rewriting the state.
   */
  snapshotEvery?: number;
  /** milliseconds between two tries of a disk that refused a log write, and before the first retry of a failed fold; default 1 000 */
  retryEvery?: number;
  /**
   * when an acknowledged change is fdatasync'd (README, "Durability levels"); default `normal`. On PostgreSQL,
   * `normal` commits without waiting for the server's flush (`synchronous_commit = off`), `full` waits for it
   */
  sync?: SyncLevel;
  /**
   * the most merchants the store takes, an integer of at least 1; default
   * DEFAULT_MAX_MERCHANTS (1 000). Merchants a store file already holds
   * beyond it are kept and keep working; only new ones are refused.
   */
  maxMerchants?: number;
}

/**
 * Whether the store can write now, for the health endpoint; `error` says
 * what the disk answered when it cannot. `snapshotError` says what the disk
 * answered to the last folds of the log into the snapshot once several have
 * failed in a row: writes still work (the log holds them), but the log grows
 * and start-up slows until a fold gets through.
 */
export interface StoreHealth {
  writable: boolean;
  error?: string;
  snapshotError?: string;
}

/**
 * The sandbox's state: in memory for reads, on disk for durability.
 *
 * Writers change the state in memory at once (so the next request sees it)
 * and then `await commit()`, which resolves once the change is in the
 * write-ahead log (and fdatasync'd, at `sync: 'full'`). Changes that arrive
 * together are appended in one write (group commit). Once the log holds as many changes
 * as the snapshot holds records (and at least `snapshotEvery`), it is set
 * aside and folded into a new snapshot in the background, while appends go
 * on in a new log (fold.ts). So a request pays for its own change, never for
 * the number of payments stored (README, "Storage").
 *
 * Records are deep-frozen once put: a caller changes a record by putting a
 * new one. When the disk refuses a write, the refused changes are taken back
 * in memory, `commit()` rejects, and writes throw StoreUnavailableError until
 * the disk takes writes again; reads keep working throughout.
 */
export class Store {
  private closing: Promise<void> | undefined;
  private readonly watchers: Array<(change: Change, fromReplica: boolean) => void> = [];

  private shared: SharedLog | undefined;

  private constructor(
    private readonly tables: Tables,
    private readonly disk: Disk | undefined,
    /** the most merchants it takes (StoreOptions.maxMerchants) */
    readonly maxMerchants: number,
    /** what opening the files found that a person should know (a folder other users can write to: README, "Security"); the sandbox shows them in its banner and log */
    readonly warnings: readonly string[] = [],
  ) {}

  /**
   * Opens the store: takes the lock on the file, reads the snapshot, then
   * replays the log set aside by a fold that did not end (if any) and the
   * log, checking every record against its schema.
   * @throws StoreOpenError naming the file (and the log's line, or the pid
   *   holding the lock) when it cannot be trusted; nothing is written then
   *   and every file is left byte for byte as it was. RangeError for a
   *   `maxMerchants` that is not an integer of at least 1, before any file is touched.
   */
  static async open(options: StoreOptions = {}): Promise<Store> {
    const tuning = { snapshotEvery: options.snapshotEvery ?? 10_000, retryEvery: options.retryEvery ?? 1_000, sync: options.sync ?? 'normal' };
    const maxMerchants = options.maxMerchants ?? DEFAULT_MAX_MERCHANTS;
    if (!Number.isInteger(maxMerchants) || maxMerchants < 1) throw new RangeError(`maxMerchants must be an integer of at least 1, not ${maxMerchants}`);
    if (options.url !== undefined) return Store.openShared(options.url, maxMerchants, tuning.sync);
    if (options.file === undefined) return new Store(new Tables(), undefined, maxMerchants);
    const lock = await StoreLock.acquire(options.file);
    try {
      const snapshot = new SnapshotFile(options.file);
      const tables = await snapshot.read();
      const snapshotRecords = tables.size;
      const aside = `${options.file}.wal.folding`;
      // Changes the snapshot may hold already: replaying them is harmless (fold.ts).
      const setAside = await readLog(aside);
      for (const change of setAside.changes) tables.replay(change);
      const { log, changes } = await WriteAheadLog.open(`${options.file}.wal`);
      for (const change of changes) tables.replay(change);
      const found = { snapshotRecords, setAside: setAside.found };
      return new Store(tables, new Disk(tables, snapshot, log, lock, aside, tuning, found), maxMerchants, snapshot.warnings);
    } catch (error) {
      await lock.release();
      throw error instanceof StoreOpenError ? error : new StoreOpenError(`cannot open the store file ${options.file}: ${(error as Error).message}`);
    }
  }

  // pg and the migrations load only for a store on PostgreSQL, so a start on the file reads nothing more.
  private static async openShared(url: string, maxMerchants: number, sync: SyncLevel): Promise<Store> {
    const { SharedLog } = await import('./shared-log.js');
    const store = new Store(new Tables(), undefined, maxMerchants);
    try {
      store.shared = await SharedLog.open(url, { replay: (change) => store.replayShared(change), records: () => store.tables.records(), size: () => store.tables.size }, sync);
    } catch (error) {
      throw error instanceof StoreOpenError ? error : new StoreOpenError(`cannot open the store at ${describeUrl(url)}: ${(error as Error).message}`);
    }
    return store;
  }

  /** True when the state lives in memory only (`--in-memory`). */
  get inMemory(): boolean {
    return this.disk === undefined && this.shared === undefined;
  }

  /** True when the state is kept in PostgreSQL and shared with other replicas (`--store postgres://...`). */
  get isShared(): boolean {
    return this.shared !== undefined;
  }

  /**
   * Runs one unit of work: `work` reads the state and puts its changes,
   * synchronously; the promise resolves with what it returned once they are
   * durable (docs/design.md, "Two stores"). On the file it runs at once and
   * then commits, as a caller of `put*` and `commit()` always did. On
   * PostgreSQL it runs in the next batch, after this replica has read every
   * change other replicas committed, under the lock that makes replicas
   * write one at a time.
   * @throws what `work` threw (the changes it put before are kept, as on the file);
   *   StoreUnavailableError (rejects) when the changes could not be made durable: they were taken back
   */
  transaction<T>(work: () => T): Promise<T> {
    if (this.shared) return this.shared.transaction(work);
    try {
      const value = work();
      return this.commit().then(() => value);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Reads what other replicas committed since this one last read, so that a
   * read outside a unit (authentication, the control API, the pages) sees
   * them; at once on the file.
   * @throws StoreUnavailableError (rejects) while the database does not answer
   */
  refresh(): Promise<void> {
    return this.shared?.refresh() ?? Promise.resolve();
  }

  /**
   * Claims a delivery's next attempt for this replica (on PostgreSQL, a
   * lease of CLAIM_LEASE_MS); always granted on the file, which one process holds.
   * @throws StoreUnavailableError (rejects) while the database does not answer
   */
  claim(deliveryId: string): Promise<DeliveryClaim> {
    return this.shared?.claim(deliveryId) ?? Promise.resolve({ claimed: true, untilMs: Number.POSITIVE_INFINITY });
  }

  /** Lets go of this replica's claim once the attempt is recorded (nothing on the file). */
  unclaim(deliveryId: string): Promise<void> {
    return this.shared?.unclaim(deliveryId) ?? Promise.resolve();
  }

  /**
   * Shares the overrides and notification faults through the store on
   * PostgreSQL: their changes are then made in units (`booksChanged`); a
   * no-op on the file, where they stay in memory (docs/decisions.md#d26-in-memory-test-session).
   */
  shareBooks(books: SharedBooks): void {
    this.shared?.shareBooks(books);
  }

  /**
   * Says that the running unit changed the overrides or the faults.
   * @throws Error on PostgreSQL when no unit is running
   */
  booksChanged(): void {
    this.shared?.booksChanged();
  }

  /**
   * Shares the journal through the store on PostgreSQL (its bounded shared
   * part: docs/decisions.md#d84-shared-store); resolves once the newest
   * entries are read. A no-op on the file, where the journal is the process's own.
   */
  shareJournal(journal: SharedJournal): Promise<void> {
    return this.shared?.shareJournal(journal) ?? Promise.resolve();
  }

  /** Sends one of this replica's journal entries, as its JSON text, to the others, off the answer's path (nothing on the file). */
  sendJournal(publicKey: string | undefined, text: string): void {
    this.shared?.sendJournal(publicKey, text);
  }

  /**
   * Says, in the running unit, that the journal of one merchant or of all was cleared: every replica clears its own (nothing on the file).
   * @throws Error on PostgreSQL when no unit is running
   */
  journalCleared(publicKey?: string): void {
    this.shared?.journalCleared(publicKey);
  }

  // A change another replica committed: applied as start-up's replay is, and told to the watchers as a change put here is.
  private replayShared(change: Change): void {
    this.tables.replay(change);
    for (const watcher of this.watchers) watcher(change, true);
  }

  /**
   * Whether writes are taken now. Not writable: the disk refused the last
   * write (the store tries it again every `retryEvery` ms), or the store is
   * closed. Writable with a `snapshotError`: the folds of the log into the
   * snapshot keep failing (tried again after `retryEvery` ms, then twice as
   * long each time up to 64 times that).
   */
  health(): StoreHealth {
    if (this.closing) return { writable: false, error: 'the store is closed' };
    const error = this.disk?.trouble ?? this.shared?.trouble;
    if (error) return { writable: false, error: error.message };
    const snapshotError = this.disk?.foldTrouble;
    return snapshotError ? { writable: true, snapshotError: snapshotError.message } : { writable: true };
  }

  /** The disk's error while the store cannot write, else undefined; `health()` says the same for the health endpoint. */
  get failed(): Error | undefined {
    return this.disk?.trouble ?? this.shared?.trouble;
  }

  /** The merchant with this public key, if the sandbox has seen it, and whether a reset released it. */
  merchant(publicKey: string): MerchantRecord | undefined {
    return this.tables.merchant(publicKey);
  }

  /** Every merchant the sandbox has seen. */
  merchants(): MerchantRecord[] {
    return this.tables.merchantList();
  }

  /** True while a new merchant can be put: the store holds fewer than `maxMerchants`. */
  hasRoomForMerchant(): boolean {
    return this.tables.merchantCount < this.maxMerchants;
  }

  /** The payment of one merchant with this paymentReference, if any. */
  payment(publicKey: string, paymentReference: string): Payment | undefined {
    return this.tables.payment(publicKey, paymentReference);
  }

  /** The payment of `publicKey` with this linkingReference, if any. */
  paymentByLinkingReference(publicKey: string, linkingReference: string): Payment | undefined {
    const payment = this.tables.paymentWithLinkingReference(linkingReference);
    return payment?.publicKey === publicKey ? payment : undefined;
  }

  /** The payment with this linkingReference, whoever's it is: the customer pages know a payment by it alone. */
  paymentWithLinkingReference(linkingReference: string): Payment | undefined {
    return this.tables.paymentWithLinkingReference(linkingReference);
  }

  /**
   * The card behind a card token of one merchant (`card.token` of any of its
   * payments: an authorisation, a tokenisation, a card payment), if any; a
   * token of another merchant is none of this one's. Looks through the
   * merchant's payments: a merchant's tokens are few in a sandbox.
   */
  cardOfToken(publicKey: string, token: string): StoredCard | undefined {
    return this.tables.paymentList(publicKey).find((payment) => payment.card?.token === token)?.card;
  }

  /**
   * The paid payment behind an authorization code of one merchant: its
   * SUCCESSFUL payment made by POST /payments/create-token (docs/decisions.md#d58-token-flow) or
   * POST /recurring/subscribes ("Subscriptions") with this code; none
   * for another merchant's, or before the payment is paid.
   */
  paymentOfAuthorizationCode(publicKey: string, authorizationCode: string): Payment | undefined {
    return this.tables.paymentList(publicKey).find((payment) => payment.authorizationCode === authorizationCode && payment.status === 'SUCCESSFUL');
  }

  /** All payments of one merchant, oldest first. */
  payments(publicKey: string): Payment[] {
    return this.tables.paymentList(publicKey);
  }

  /** The order of one merchant with this paymentReference, if any. */
  order(publicKey: string, paymentReference: string): Order | undefined {
    return this.tables.order(publicKey, paymentReference);
  }

  /** All orders of one merchant, oldest first. */
  orders(publicKey: string): Order[] {
    return this.tables.orderList(publicKey);
  }

  /** The delivery with this id, whoever's it is. */
  delivery(id: string): Delivery | undefined {
    return this.tables.delivery(id);
  }

  /** The deliveries of one merchant, oldest first; of every merchant when `publicKey` is absent. */
  deliveries(publicKey?: string): Delivery[] {
    return this.tables.deliveryList(publicKey);
  }

  /** The merchant's own notification URL, if one is set. */
  webhook(publicKey: string): WebhookEndpoint | undefined {
    return this.tables.webhook(publicKey);
  }

  /** Every merchant's own notification URL. */
  webhooks(): WebhookEndpoint[] {
    return this.tables.webhookList();
  }

  /** The merchant's clock, if it was ever moved. */
  clock(publicKey: string): MerchantClock | undefined {
    return this.tables.clock(publicKey);
  }

  /** Every clock ever moved. */
  clocks(): MerchantClock[] {
    return this.tables.clockList();
  }

  /**
   * Records a merchant, deep-frozen, bound to its secret key: it replaces the
   * record of the same public key, released or not. Durable after the next `commit()`.
   * @throws StoreUnavailableError while the store cannot write; TypeError for a record that does not fit its schema;
   *   RangeError for a new merchant when the store holds `maxMerchants` already (see hasRoomForMerchant)
   */
  putMerchant(merchant: Merchant): void {
    this.change({ kind: 'merchant', merchant });
  }

  /**
   * Records a payment, deep-frozen, replacing the one with the same key, with
   * the deliveries of the notifications its change causes: one line of the
   * log holds them all. Durable after the next `commit()`.
   * @throws StoreUnavailableError while the store cannot write; TypeError for a record that does not fit its schema
   */
  putPayment(payment: Payment, deliveries: readonly Delivery[] = []): void {
    this.change(deliveries.length === 0 ? { kind: 'payment', payment } : { kind: 'payment', payment, deliveries: [...deliveries] });
  }

  /**
   * Records a delivery, deep-frozen, replacing the one with the same id. Durable after the next `commit()`.
   * @throws StoreUnavailableError while the store cannot write; TypeError for a record that does not fit its schema
   */
  putDelivery(delivery: Delivery): void {
    this.change({ kind: 'delivery', delivery });
  }

  /**
   * Sets the merchant's notification URL, or removes it (`null`). Durable after the next `commit()`.
   * @throws StoreUnavailableError while the store cannot write; TypeError for a record that does not fit its schema
   */
  putWebhook(publicKey: string, webhook: WebhookEndpoint | null): void {
    this.change({ kind: 'webhook', publicKey, webhook });
  }

  /**
   * Records a merchant's clock. Durable after the next `commit()`.
   * @throws StoreUnavailableError while the store cannot write; TypeError for a record that does not fit its schema
   */
  putClock(clock: MerchantClock): void {
    this.change({ kind: 'clock', clock });
  }

  /**
   * Records an order, deep-frozen, replacing the one with the same key. Durable after the next `commit()`.
   * @throws StoreUnavailableError while the store cannot write; TypeError for a record that does not fit its schema
   */
  putOrder(order: Order): void {
    this.change({ kind: 'order', order });
  }

  /**
   * Forgets the payments, orders and deliveries of one merchant, or of all
   * when `publicKey` is absent, and sets its clock back to real time.
   * Merchants and their notification URLs stay, each released: its tokens
   * keep working, and its next key exchange may bring another secret key
   * (MerchantRecord).
   * @throws StoreUnavailableError while the store cannot write
   */
  reset(publicKey?: string): void {
    this.change({ kind: 'reset', publicKey });
  }

  /**
   * The records held now, of every merchant or of one (`publicKey`): lists
   * of the frozen records themselves, oldest first, taken at once, so that
   * writing them out later still gives this moment's state. Nothing is copied.
   */
  records(publicKey?: string): SnapshotRecords {
    return this.tables.records(publicKey);
  }

  /**
   * Replaces the whole state, or one merchant's (`publicKey`: the records
   * must all be its own), with `records`, in one change: one line of the
   * log, so that a crash keeps all of it or none. Durable after the next `commit()`.
   * @throws StoreUnavailableError while the store cannot write; TypeError naming the first
   *   record that does not fit its schema, is another merchant's, or is held twice
   *   (`the replace cannot be stored: /payments/3/amount must be string`); nothing changes then.
   *   RangeError when the records hold more merchants than `maxMerchants`
   */
  replace(records: SnapshotRecords, publicKey?: string): void {
    const merchants = publicKey === undefined ? records.merchants.length : this.tables.merchantCount + (this.tables.merchant(publicKey) ? 0 : records.merchants.length);
    if (merchants > this.maxMerchants) throw new RangeError(`the state cannot be stored: it holds ${merchants} merchants and the store keeps at most ${this.maxMerchants}`);
    this.change(publicKey === undefined ? { kind: 'replace', records } : { kind: 'replace', publicKey, records });
  }

  /**
   * Resolves once every change made so far is on disk (at once in memory, and
   * at once when nothing changed, so that a request that only read is
   * answered while the disk refuses writes). Call it right after the changes:
   * their write, and its failure, are what it reports.
   * @throws StoreUnavailableError (rejects) when the disk refused the write:
   *   the changes not yet on disk were taken back in memory
   */
  commit(): Promise<void> {
    return this.disk?.commit() ?? this.shared?.commit() ?? Promise.resolve();
  }

  /**
   * Writes what is pending, waits for a fold under way, writes a last
   * snapshot, closes the files and gives up the lock.
   * @throws StoreUnavailableError (rejects) when the last snapshot could not be
   *   written; the files are closed all the same, and the logs hold every acknowledged change
   */
  close(): Promise<void> {
    return (this.closing ??= this.disk?.close() ?? this.shared?.close() ?? Promise.resolve());
  }

  private change(change: Change): void {
    if (this.closing) throw new StoreUnavailableError(new Error('the store is closed'));
    const trouble = this.disk?.trouble;
    if (trouble) throw new StoreUnavailableError(trouble);
    if (this.shared && !this.shared.inUnit) throw new Error(`a ${change.kind} change was put outside a unit of work (Store.transaction)`);
    // A record the schema refuses would make the store refuse to start next time: refuse it now.
    const problem = changeProblem(change);
    if (problem) throw new TypeError(`the ${change.kind} cannot be stored: ${problem}`);
    // The domain refuses a new merchant beyond the bound first, in the API's terms; this keeps any other writer to it.
    if (change.kind === 'merchant' && !this.hasRoomForMerchant() && this.tables.merchant(change.merchant.publicKey) === undefined) {
      throw new RangeError(`the merchant cannot be stored: the store keeps at most ${this.maxMerchants} merchants`);
    }
    const newPayment = this.shared && change.kind === 'payment' && this.tables.payment(change.payment.publicKey, change.payment.paymentReference) === undefined;
    const undo = this.tables.apply(change);
    this.disk?.queue(change, undo);
    this.shared?.queue(change, undo, newPayment ? { publicKey: change.payment.publicKey, paymentReference: change.payment.paymentReference } : undefined);
    for (const watcher of this.watchers) watcher(change, false);
  }

  /**
   * Calls `watcher` after each change is put (not for what start-up
   * replays): how the agenda learns what falls due. A change the disk then
   * refuses is taken back without a call; watchers check what they find
   * against the store when they act.
   * @param watcher told each change, and `fromReplica`: true for a change another replica committed (on PostgreSQL), read from the shared log
   * @returns what stops the calls
   */
  watch(watcher: (change: Change, fromReplica: boolean) => void): () => void {
    this.watchers.push(watcher);
    return () => {
      const at = this.watchers.indexOf(watcher);
      if (at >= 0) this.watchers.splice(at, 1);
    };
  }
}
