import type { Delivery, MerchantClock, WebhookEndpoint } from '../model/notifications.js';
import type { Order, Payment, StoredCard } from '../model/records.js';
import type { DeliveryClaim, StoreEngine } from './engine.js';
import { StoreUnavailableError } from './errors.js';
import { MemoryEngine } from './memory-engine.js';
import { ownScope, recordKeys, type OwnChanges, type OwnScope } from './own-changes.js';
import { changeProblem } from './schema.js';
import type { SharedBooks, SharedJournal } from './sharing.js';
import type { SyncLevel } from './sync-level.js';
import { withoutOwn, type TakenBack } from './take-back.js';
import { DEFAULT_MAX_MERCHANTS, type Change, type MerchantRecord, type SnapshotRecords, type Tables } from './tables.js';

export type { DeliveryClaim } from './engine.js';
export { StoreOpenError, StoreUnavailableError } from './errors.js';
export { SYNC_LEVELS, type SyncLevel } from './sync-level.js';
export { DEFAULT_MAX_MERCHANTS, type Change, type MerchantRecord, type SnapshotRecords } from './tables.js';
export type { SharedBooks, SharedBooksState, SharedJournal } from './sharing.js';
export { OwnChanges, type RecordKey, type UnitWatcher } from './own-changes.js';
export type { TakenBack } from './take-back.js';

/** Where the store keeps its state: PostgreSQL with `url`, else the JSON file with `file`, else memory only. */
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
 * what the disk (or the database) answered when it cannot. `snapshotError` says what the disk
 * answered to the last folds of the log into the snapshot once several have
 * failed in a row: writes still work (the log holds them), but the log grows
 * and start-up slows until a fold gets through.
 */
export interface StoreHealth {
  writable: boolean;
  error?: string;
  snapshotError?: string;
}

/** Told each change put, and `fromReplica`: true for a change another replica committed (PostgreSQL), read from the shared log. */
type Watcher = (change: Change, fromReplica: boolean) => void;

/**
 * The sandbox's state: in memory for reads, made durable by its engine
 * (StoreEngine: memory, the JSON file, or PostgreSQL), chosen once by `open`.
 * This face is the same on every engine; nobody outside src/store asks which one runs.
 *
 * Writers change the state in memory at once (so the next request sees it),
 * in a unit of work (`transaction`), which resolves once the changes are
 * durable. On the file that is once they are in the write-ahead log (and
 * fdatasync'd, at `sync: 'full'`); changes that arrive together are appended
 * in one write (group commit), and the log is folded into a new snapshot in
 * the background (fold.ts), so a request pays for its own change, never for
 * the number of payments stored (README, "Storage").
 *
 * Records are deep-frozen once put: a caller changes a record by putting a
 * new one. When the engine refuses a write, the refused changes are taken back
 * in memory, the unit rejects with StoreUnavailableError, and so do writes until
 * the engine takes writes again; reads keep working throughout.
 */
export class Store {
  private closing: Promise<void> | undefined;
  private readonly tables: Tables;
  // The writer whose unit is running now, while one records its own changes (recordOwn).
  private own: OwnChanges | undefined;

  private constructor(
    private readonly engine: StoreEngine,
    private readonly watchers: Watcher[],
    /** the most merchants it takes (StoreOptions.maxMerchants) */
    readonly maxMerchants: number,
  ) {
    this.tables = engine.tables;
  }

  /**
   * Opens the store on its engine: PostgreSQL when `url` is given (connects,
   * migrates, reads the shared log), the file when `file` is (takes the lock,
   * reads the snapshot, replays the logs, checking every record against its
   * schema), memory otherwise.
   * @throws StoreOpenError naming the file (and the log's line, or the pid
   *   holding the lock) or the database (never its password) when it cannot be trusted or reached;
   *   nothing is written then and every file is left byte for byte as it was. RangeError for a
   *   `maxMerchants` that is not an integer of at least 1, before any file is touched.
   */
  static async open(options: StoreOptions = {}): Promise<Store> {
    const tuning = { snapshotEvery: options.snapshotEvery ?? 10_000, retryEvery: options.retryEvery ?? 1_000, sync: options.sync ?? 'normal' };
    const maxMerchants = options.maxMerchants ?? DEFAULT_MAX_MERCHANTS;
    if (!Number.isInteger(maxMerchants) || maxMerchants < 1) throw new RangeError(`maxMerchants must be an integer of at least 1, not ${maxMerchants}`);
    const watchers: Watcher[] = [];
    let engine: StoreEngine;
    if (options.url !== undefined) {
      // pg and the migrations load only for a store on PostgreSQL, so a start on the file reads nothing more.
      const { PostgresEngine } = await import('./postgres-engine.js');
      engine = await PostgresEngine.open(options.url, tuning.sync, (change) => {
        for (const watcher of watchers) watcher(change, true);
      });
    } else if (options.file !== undefined) {
      // The file's engine (its log, snapshots, folds and lock) loads only for a store on a file, so a start in memory reads none of it.
      const { FileEngine } = await import('./file-engine.js');
      engine = await FileEngine.open(options.file, tuning);
    }
    else engine = new MemoryEngine();
    return new Store(engine, watchers, maxMerchants);
  }

  /** What opening the engine found that a person should know (a folder other users can write to: README, "Security"); the sandbox shows them in its banner and log. */
  get warnings(): readonly string[] {
    return this.engine.warnings;
  }

  /** True when nothing outlives the process (`--in-memory`); false on the file and PostgreSQL. */
  get inMemory(): boolean {
    return !this.engine.durable;
  }

  /**
   * True when this process serves every request the state has seen, so its
   * journal saw them all (memory, the file); false on PostgreSQL, where other
   * replicas serve requests too (docs/decisions.md#d84-shared-store).
   */
  get servesAlone(): boolean {
    return this.engine.servesAlone;
  }

  /**
   * True when a unit that rejects with StoreUnavailableError also had the
   * overrides and faults put back by the store (PostgreSQL, through `shareBooks`);
   * false on memory and the file, where whoever changed them in the unit puts them back.
   */
  get takesBackBooks(): boolean {
    return this.engine.takesBackBooks;
  }

  /**
   * The id this process's live events number on from (SandboxEvents.numberFrom): 0 on memory
   * and the file; on PostgreSQL a start-time range of its own, so that an id one replica gave
   * is answered `reload` by another.
   */
  eventNumberBase(): number {
    return this.engine.eventNumberBase();
  }

  /**
   * Runs one unit of work: `work` reads the state and puts its changes,
   * synchronously; the promise resolves with what it returned once they are
   * durable (docs/design.md, "Two stores"). On memory and the file it runs at once and
   * then commits. On PostgreSQL it runs in the next batch, after this replica
   * has read every change other replicas committed, under the lock that makes
   * replicas write one at a time.
   * @throws what `work` threw (the changes it put before are kept, on every engine);
   *   StoreUnavailableError (rejects) when the changes could not be made durable: they were taken back
   */
  transaction<T>(work: () => T): Promise<T> {
    const scope = ownScope.getStore();
    return this.engine.transaction(scope?.open ? () => this.asOwn(scope, work) : work);
  }

  /**
   * Runs `run` (a request of a fixtures load, sent in process) so that every
   * unit of work it starts before it settles records its changes in `own`,
   * on every engine: on PostgreSQL a unit runs later, in a batch, and is
   * still the writer's. Units it leaves running after it settled (a timer's)
   * are not (docs/decisions.md#d76-fixtures). One writer records at a time
   * (fixtures loads run one at a time): the scope is switched off after each `run`.
   * @throws what `run` throws
   */
  async recordOwn<T>(own: OwnChanges, run: () => Promise<T>): Promise<T> {
    const scope: OwnScope = { own, open: true };
    try {
      return await ownScope.run(scope, run);
    } finally {
      scope.open = false;
      // Nothing is carried across awaits between a writer's requests: the rest of the process pays nothing for it.
      ownScope.disable();
    }
  }

  /**
   * The state with `own`'s changes taken back and nobody else's (take-back.ts):
   * put it with `replace`, in the same unit, so that nothing comes between.
   */
  withoutOwn(own: OwnChanges): TakenBack {
    return withoutOwn(this.tables, own);
  }

  // The writer's unit: its changes recorded, and whatever it sets going (a watcher's timer) left outside the writer's scope.
  private asOwn<T>(scope: OwnScope, work: () => T): T {
    this.own = scope.own;
    scope.own.units?.begin();
    try {
      return ownScope.exit(work);
    } finally {
      scope.own.units?.end();
      this.own = undefined;
    }
  }

  /**
   * Reads what other replicas committed since this one last read, so that a
   * read outside a unit (authentication, the control API, the pages) sees
   * them; resolves at once on memory and the file, where there are no others.
   * @throws StoreUnavailableError (rejects) while the database does not answer
   */
  refresh(): Promise<void> {
    return this.engine.refresh();
  }

  /**
   * Claims a delivery's next attempt for this process: on PostgreSQL a
   * lease of CLAIM_LEASE_MS, refused while another replica holds one; always
   * granted, for ever, on memory and the file, which one process holds.
   * @throws StoreUnavailableError (rejects) while the database does not answer
   */
  claim(deliveryId: string): Promise<DeliveryClaim> {
    return this.engine.claim(deliveryId);
  }

  /** Lets go of this process's claim once the attempt is recorded (nothing to let go of on memory and the file). */
  unclaim(deliveryId: string): Promise<void> {
    return this.engine.unclaim(deliveryId);
  }

  /**
   * Hands the overrides and notification faults to the store. On PostgreSQL
   * they are then shared: changed in units (`booksChanged`), logged whole;
   * on memory and the file they stay the owner's, in memory (docs/decisions.md#d26-in-memory-test-session).
   */
  shareBooks(books: SharedBooks): void {
    this.engine.shareBooks(books);
  }

  /**
   * Says that the running unit changed the overrides or the faults (nothing to do on memory and the file).
   * @throws Error on PostgreSQL when no unit is running
   */
  booksChanged(): void {
    this.engine.booksChanged();
  }

  /**
   * Hands the journal to the store. On PostgreSQL its bounded shared part
   * (docs/decisions.md#d84-shared-store): resolves once the newest entries
   * are read. At once on memory and the file, where the journal is the process's own.
   */
  shareJournal(journal: SharedJournal): Promise<void> {
    return this.engine.shareJournal(journal);
  }

  /** Sends one of this process's journal entries, as its JSON text, to the other replicas, off the answer's path (none on memory and the file). */
  sendJournal(publicKey: string | undefined, text: string): void {
    this.engine.sendJournal(publicKey, text);
  }

  /**
   * Says, in the running unit, that the journal of one merchant or of all was cleared: every replica clears its own (nothing to do on memory and the file).
   * @throws Error on PostgreSQL when no unit is running
   */
  journalCleared(publicKey?: string): void {
    this.engine.journalCleared(publicKey);
  }

  /**
   * Whether writes are taken now. Not writable: the engine refused the last
   * write (the file tries it again every `retryEvery` ms; PostgreSQL probes
   * every second), or the store is closed. Writable with a `snapshotError`:
   * the folds of the file's log into the snapshot keep failing (tried again
   * after `retryEvery` ms, then twice as long each time up to 64 times that).
   */
  health(): StoreHealth {
    if (this.closing) return { writable: false, error: 'the store is closed' };
    const error = this.engine.trouble;
    if (error) return { writable: false, error: error.message };
    const snapshotError = this.engine.snapshotTrouble;
    return snapshotError ? { writable: true, snapshotError: snapshotError.message } : { writable: true };
  }

  /** The engine's error while the store cannot write, else undefined (never on memory); `health()` says the same for the health endpoint. */
  get failed(): Error | undefined {
    return this.engine.trouble;
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

  /**
   * The merchant's notifications of success of this payment that no status
   * query has followed yet (docs/decisions.md#d87-go-live-report).
   */
  awaitingVerification(publicKey: string, paymentReference: string): Delivery[] {
    return this.tables.awaitingVerification(publicKey, paymentReference);
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
  putMerchant(merchant: MerchantRecord): void {
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
   *   record that does not fit its schema, is another merchant's, is held twice, or shares
   *   its linkingReference or delivery id with another record of `records` or, for one
   *   merchant's, of another merchant the store holds (unique-keys.ts)
   *   (`the replace cannot be stored: /payments/3/amount must be string`); nothing changes then.
   *   RangeError when the records hold more merchants than `maxMerchants`
   */
  replace(records: SnapshotRecords, publicKey?: string): void {
    const merchants = publicKey === undefined ? records.merchants.length : this.tables.merchantCount + (this.tables.merchant(publicKey) ? 0 : records.merchants.length);
    if (merchants > this.maxMerchants) throw new RangeError(`the state cannot be stored: it holds ${merchants} merchants and the store keeps at most ${this.maxMerchants}`);
    this.change(publicKey === undefined ? { kind: 'replace', records } : { kind: 'replace', publicKey, records });
  }

  /**
   * Resolves once every change made so far is durable: at once in memory, and
   * at once when nothing changed, so that a request that only read is
   * answered while the disk refuses writes. Call it right after the changes:
   * their write, and its failure, are what it reports.
   * @throws StoreUnavailableError (rejects) when the engine refused the write:
   *   the changes not yet durable were taken back in memory
   */
  commit(): Promise<void> {
    return this.engine.commit();
  }

  /**
   * Makes what is pending durable and closes the engine: on the file, waits for
   * a fold under way, writes a last snapshot, closes the files and gives up
   * the lock; on PostgreSQL, closes the connections.
   * @throws StoreUnavailableError (rejects) when the file's last snapshot could not be
   *   written; the files are closed all the same, and the logs hold every acknowledged change
   */
  close(): Promise<void> {
    return (this.closing ??= this.engine.close());
  }

  private change(change: Change): void {
    if (this.closing) throw new StoreUnavailableError(new Error('the store is closed'));
    this.engine.admit(change);
    // A record the schema refuses would make the store refuse to start next time: refuse it now.
    // Against the tables too: a replace of one merchant's state must not take a key another merchant's record holds.
    const problem = changeProblem(change, this.tables);
    if (problem) throw new TypeError(`the ${change.kind} cannot be stored: ${problem}`);
    // The domain refuses a new merchant beyond the bound first, in the API's terms; this keeps any other writer to it.
    if (change.kind === 'merchant' && !this.hasRoomForMerchant() && this.tables.merchant(change.merchant.publicKey) === undefined) {
      throw new RangeError(`the merchant cannot be stored: the store keeps at most ${this.maxMerchants} merchants`);
    }
    const own = this.own;
    const keys = own && recordKeys(change, this.tables);
    if (keys) own!.noteBefore(keys, this.tables);
    this.engine.put(change);
    if (keys) own!.noteAfter(keys, this.tables);
    for (const watcher of this.watchers) watcher(change, false);
  }

  /**
   * Calls `watcher` after each change is put (not for what start-up
   * replays): how the agenda learns what falls due. A change the engine then
   * refuses is taken back without a call; watchers check what they find
   * against the store when they act.
   * @param watcher told each change, and `fromReplica`: true for a change another replica committed (on PostgreSQL), read from the shared log
   * @returns what stops the calls
   */
  watch(watcher: Watcher): () => void {
    this.watchers.push(watcher);
    return () => {
      const at = this.watchers.indexOf(watcher);
      if (at >= 0) this.watchers.splice(at, 1);
    };
  }
}
