import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import pg from 'pg';
import { failure, StoreUnavailableError } from './errors.js';
import { CLAIM_LEASE_MS } from './lease.js';
import { migrate } from './migrations.js';
import { describeUrl } from './store-url.js';
import type { SyncLevel } from './sync-level.js';
import type { SharedBooks, SharedBooksState, SharedJournal, JournalEntryText } from './sharing.js';
import type { Change, SnapshotRecords, Undo } from './tables.js';

export type { JournalEntryText, SharedBooks, SharedBooksState, SharedJournal } from './sharing.js';

/** What the shared log does to the store's tables, for a change another replica committed, and what it reads of them to fold the log. */
export interface Replica {
  /** applies a committed change of another replica (or of this one's earlier run) to the tables, and tells the store's watchers */
  replay(change: Change): void;
  /** every record held now, for a fold */
  records(): SnapshotRecords;
  /** how many records the tables hold */
  size(): number;
}

/**
 * One entry of the shared log: a change of the tables (`fold`: the whole
 * state, put by a fold, after which older entries are deleted), or the books whole.
 */
type LogEntry = { change: Change; fold?: true } | { books: SharedBooksState } | { journalCleared: { publicKey?: string } };

/** The fewest entries worth a fold: as for the file's log, a fold waits until the log holds as many entries as the state holds records. */
const FOLD_EVERY = 10_000;

/**
 * A key as the key columns hold it: its JSON text. Any string the API takes
 * fits a text column then (a NUL or a lone surrogate in a paymentReference
 * is an escape), and two keys are equal exactly when their texts are.
 */
function keyText(key: string): string {
  return JSON.stringify(key);
}

/** A change put in the open batch, with how to take it back and whether it made a new payment. */
interface Queued {
  entry: LogEntry;
  undo?: Undo;
  newPayment?: { publicKey: string; paymentReference: string };
}

/** One unit of work waiting for its batch. */
interface Unit {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  outcome?: { value: unknown } | { error: unknown };
}

/** The advisory lock every batch of writes holds until it commits: one writer at a time across replicas (docs/decisions.md#d84-shared-store). */
const WRITE_LOCK = 0x5a4e_4450;

/** The advisory lock a replica's journal entries are written under, so that their ids are visible in order. */
const JOURNAL_LOCK = 0x5a4e_4451;

/** A replica's journal entries are written in batches of at most this many, or after JOURNAL_WAIT_MS: never on an answer's path. */
const JOURNAL_BATCH = 256;
const JOURNAL_WAIT_MS = 200;

/** How often a replica reads what others committed when no notification came, and probes the database for health. */
const POLL_MS = 1_000;

/**
 * The store's durable side on PostgreSQL: a log of changes shared by every
 * replica, each replica keeping the whole state in memory as the file store
 * does (docs/design.md, "Two stores"; docs/decisions.md#d84-shared-store).
 *
 * A unit of work runs in a batch: the batch takes one advisory lock for
 * writes, reads what other replicas committed since this one last read
 * (so the unit's reads see every committed change), runs its units one after
 * another, appends their changes and commits. The lock is held until the
 * commit, so the log's order is the order of the commits, and a unit always
 * starts from the last committed state: a paymentReference is taken once (a
 * primary key backs it), a payment changes one at a time, override and fault
 * counts are exact. Units that arrive while a batch runs go in the next one
 * (group commit).
 */
export class SharedLog {
  private readonly pool: pg.Pool;
  private readonly replica = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  private applied = 0;
  // The seq of the oldest entry the log holds: entries since then are what a fold would save.
  private oldest = 1;
  private units: Unit[] = [];
  private batch: Queued[] | undefined;
  private booksDirty = false;
  private applyingRemote = false;
  private tail: Promise<unknown> = Promise.resolve();
  private batchQueued = false;
  private queuedRefresh: Promise<void> | undefined;
  private failure: Error | undefined;
  private closed = false;
  private poller: NodeJS.Timeout | undefined;
  private listener: pg.Client | undefined;
  private books: SharedBooks | undefined;
  private booksAtOpen: SharedBooksState | undefined;
  private journal: SharedJournal | undefined;
  private journalOut: string[] = [];
  private journalKeys: Array<string | null> = [];
  private journalTimer: NodeJS.Timeout | undefined;
  private journalRead = 0;
  private journalTail: Promise<void> = Promise.resolve();

  private constructor(
    private readonly url: string,
    private readonly target: Replica,
    sync: SyncLevel,
  ) {
    // At `normal` the commit does not wait for the server's fdatasync (README, "Durability levels"): a replica's crash loses
    // nothing acknowledged, the database server's may lose its last fraction of a second, as the file's OS crash may.
    // Set when each connection starts, so that no query runs before it; `full` says `on` whatever the server's default.
    const options = `-c synchronous_commit=${sync === 'full' ? 'on' : 'off'}`;
    this.pool = new pg.Pool({ connectionString: url, max: 6, connectionTimeoutMillis: 5_000, options });
    // An idle connection the server dropped: the next query finds out and the probe reports it.
    this.pool.on('error', (error) => void (this.failure = failure('the database closed a connection', error)));
  }

  /**
   * Connects, migrates the schema under its advisory lock (two replicas
   * starting at once migrate once), and reads the whole log into the tables.
   * @throws Error naming the database (never its password) when it cannot be reached or holds a newer schema
   */
  static async open(url: string, target: Replica, sync: SyncLevel = 'normal'): Promise<SharedLog> {
    const log = new SharedLog(url, target, sync);
    try {
      const client = await log.pool.connect();
      try {
        await migrate(client, describeUrl(url));
      } finally {
        client.release();
      }
      await log.catchUp(log.pool);
    } catch (error) {
      await log.pool.end().catch(() => undefined);
      throw error;
    }
    log.poller = setInterval(() => void log.probe(), POLL_MS);
    log.poller.unref();
    void log.listen();
    return log;
  }

  /** What the books' owner gives so that overrides and faults are shared too. */
  shareBooks(books: SharedBooks): void {
    this.books = books;
    // The books as the log held them when this replica started, read before there was anyone to give them to.
    const found = this.booksAtOpen;
    this.booksAtOpen = undefined;
    if (found) this.quietly(() => books.apply(found));
  }

  /**
   * Shares the journal: this replica's entries are written to the table
   * (`send`) and other replicas' are read into it; a new replica first reads
   * the newest `capacity` entries.
   * @throws nothing: the journal is best effort, as its memory form is (docs/decisions.md#d26-in-memory-test-session)
   */
  async shareJournal(journal: SharedJournal): Promise<void> {
    this.journal = journal;
    try {
      const { rows } = await this.pool.query<{ id: string; entry: string }>(
        'SELECT id::text, entry FROM (SELECT id, entry FROM sandbox_journal ORDER BY id DESC LIMIT $1) newest ORDER BY newest.id',
        [journal.capacity],
      );
      this.receiveJournal(rows);
      if (rows.length === 0) this.journalRead = Number((await this.pool.query<{ last: string }>('SELECT coalesce(max(id), 0)::text AS last FROM sandbox_journal')).rows[0]!.last);
    } catch {
      // Read on the next refresh.
    }
  }

  /** Writes one of this replica's journal entries (its JSON text, as the journal keeps it) to the table, with the next batch of them. */
  sendJournal(publicKey: string | undefined, text: string): void {
    this.journalOut.push(text);
    this.journalKeys.push(publicKey === undefined ? null : keyText(publicKey));
    if (this.journalOut.length >= JOURNAL_BATCH) void this.flushJournal();
    else if (!this.journalTimer) {
      this.journalTimer = setTimeout(() => void this.flushJournal(), JOURNAL_WAIT_MS);
      this.journalTimer.unref();
    }
  }

  /**
   * Says, in the running unit, that the journal's entries of one merchant (or all) were let go of:
   * the table forgets them, and every replica's journal does.
   */
  journalCleared(publicKey?: string): void {
    if (!this.batch) throw new Error('the journal was cleared outside a unit of work');
    this.batch.push({ entry: { journalCleared: publicKey === undefined ? {} : { publicKey } } });
  }

  /** The database's last error while it does not answer, else undefined: the store is not writable then. */
  get trouble(): Error | undefined {
    return this.closed ? new Error('the store is closed') : this.failure;
  }

  /** True inside a unit's work: the only time a change may be put. */
  get inUnit(): boolean {
    return this.batch !== undefined;
  }

  /**
   * Takes a change put by a unit's work into the open batch.
   * @throws Error when no unit is running: every write goes through `transaction`
   */
  queue(change: Change, undo: Undo, newPayment?: { publicKey: string; paymentReference: string }): void {
    if (!this.batch) throw new Error(`a ${change.kind} change was put outside a unit of work`);
    this.batch.push({ entry: { change }, undo, newPayment });
  }

  /** Marks the books changed by the running unit; a change applied from another replica is not marked. */
  booksChanged(): void {
    if (this.applyingRemote) return;
    if (!this.batch) throw new Error('the overrides or faults changed outside a unit of work');
    this.booksDirty = true;
  }

  /**
   * Runs `work` in the next batch, once this replica has read every change
   * committed before the batch took the write lock.
   * @returns what `work` returned, once its changes are committed
   * @throws what `work` threw (its changes up to then are committed all the same, as on the file store);
   *   StoreUnavailableError when the batch could not be committed (its changes are taken back)
   */
  transaction<T>(work: () => T): Promise<T> {
    if (this.closed) return Promise.reject(new StoreUnavailableError(new Error('the store is closed')));
    return new Promise<T>((resolve, reject) => {
      this.units.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.batchQueued) {
        this.batchQueued = true;
        void this.serial(() => this.runBatch());
      }
    });
  }

  /** Resolves once every batch begun before it has ended. */
  commit(): Promise<void> {
    return this.serial(async () => undefined);
  }

  /**
   * Reads what other replicas committed since this one last read, and the
   * journal entries they wrote (a query each; callers that arrive before
   * the log's reading starts share it).
   * @throws StoreUnavailableError when the database does not answer
   */
  refresh(): Promise<void> {
    return Promise.all([this.refreshLog(), this.refreshJournal()]).then(() => undefined);
  }

  // The log's new entries, in the order of batches: callers that arrive before the reading starts share it.
  private refreshLog(): Promise<void> {
    if (this.queuedRefresh) return this.queuedRefresh;
    const run = this.serial(async () => {
      this.queuedRefresh = undefined;
      try {
        await this.catchUp(this.pool);
        this.failure = undefined;
      } catch (error) {
        this.failure = failure('the database did not answer', error);
        throw new StoreUnavailableError(this.failure);
      }
    });
    this.queuedRefresh = run;
    return run;
  }

  /**
   * Claims a delivery's next attempt for this replica, for CLAIM_LEASE_MS of
   * wall time: false while another replica's claim is in force.
   * @returns true when this replica holds the claim; `until` the epoch ms another's claim runs out
   * @throws StoreUnavailableError when the database does not answer
   */
  async claim(deliveryId: string): Promise<{ claimed: boolean; untilMs: number }> {
    try {
      const { rows } = await this.pool.query<{ replica: string; until_ms: string }>(
        `INSERT INTO sandbox_delivery_claims AS c (delivery_id, replica, lease_until)
           VALUES ($1, $2, clock_timestamp() + make_interval(secs => $3::double precision / 1000))
         ON CONFLICT (delivery_id) DO UPDATE SET replica = EXCLUDED.replica, lease_until = EXCLUDED.lease_until
           WHERE c.lease_until < clock_timestamp() OR c.replica = EXCLUDED.replica
         RETURNING replica, (extract(epoch FROM lease_until) * 1000)::bigint::text AS until_ms`,
        [deliveryId, this.replica, CLAIM_LEASE_MS],
      );
      if (rows.length > 0) return { claimed: true, untilMs: Number(rows[0]!.until_ms) };
      const held = await this.pool.query<{ until_ms: string }>(
        'SELECT (extract(epoch FROM lease_until) * 1000)::bigint::text AS until_ms FROM sandbox_delivery_claims WHERE delivery_id = $1',
        [deliveryId],
      );
      return { claimed: false, untilMs: Number(held.rows[0]?.until_ms ?? Date.now()) };
    } catch (error) {
      throw new StoreUnavailableError(failure('the database did not answer', error));
    }
  }

  /** Lets go of this replica's claim on a delivery once its attempt is recorded. */
  async unclaim(deliveryId: string): Promise<void> {
    await this.pool.query('DELETE FROM sandbox_delivery_claims WHERE delivery_id = $1 AND replica = $2', [deliveryId, this.replica]).catch(() => undefined);
  }

  /** Waits for what is under way, stops reading, and closes the connections. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.commit().catch(() => undefined);
    await this.flushJournal();
    this.closed = true;
    if (this.poller) clearInterval(this.poller);
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
    await this.pool.end();
  }

  // One batch: the write lock, what others committed, the units, their changes appended, the commit.
  private async runBatch(): Promise<void> {
    this.batchQueued = false;
    const units = this.units;
    this.units = [];
    if (units.length === 0) return;
    let client: pg.PoolClient | undefined;
    let books: SharedBooksState | undefined;
    const batch: Queued[] = [];
    try {
      client = await this.pool.connect();
      // One round trip: the transaction, the write lock, and what others appended since (the numbers are this replica's own).
      const begun = (await client.query(`BEGIN; SELECT pg_advisory_xact_lock(${WRITE_LOCK}); SELECT seq::text, entry FROM sandbox_log WHERE seq > ${this.applied} ORDER BY sandbox_log.seq`)) as unknown as pg.QueryResult[];
      this.apply(begun.at(-1)!.rows as Array<{ seq: string; entry: string }>);
      books = this.books?.capture();
      this.batch = batch;
      this.booksDirty = false;
      for (const unit of units) {
        try {
          unit.outcome = { value: unit.work() };
        } catch (error) {
          unit.outcome = { error };
        }
      }
      this.batch = undefined;
      const fold = this.applied + batch.length - this.oldest >= Math.max(FOLD_EVERY, this.target.size());
      if ((this.booksDirty || fold) && this.books) batch.push({ entry: { books: this.books.capture() } });
      if (fold) batch.push({ entry: { change: { kind: 'replace', records: this.target.records() }, fold: true } });
      // The usual batch (new payments and changes of records) is appended and committed in one round trip.
      const last = this.applied + batch.length;
      const commit = batch.length > 0 ? `SELECT pg_notify('sandbox_log', '${last}'); COMMIT` : 'COMMIT';
      const appended = batch.length > 0 && !fold ? this.appendAndCommit(batch, commit) : undefined;
      if (appended !== undefined) await client.query(appended);
      else {
        if (batch.length > 0) await this.append(client, batch);
        // The fold's entry holds the whole state and the books' entry just before it the books: what came before is no longer needed.
        if (fold) await client.query('DELETE FROM sandbox_log WHERE seq < $1', [last - 1]);
        await client.query(commit);
      }
      if (batch.length > 0) this.applied += batch.length;
      if (fold) this.oldest = this.applied - 1;
      this.failure = undefined;
    } catch (error) {
      this.batch = undefined;
      await client?.query('ROLLBACK').catch(() => undefined);
      for (const queued of batch.slice().reverse()) queued.undo?.();
      if (books && this.booksDirty) this.quietly(() => this.books!.apply(books!));
      const unavailable = error instanceof StoreUnavailableError ? error : new StoreUnavailableError(failure('the database refused the write', error));
      this.failure = unavailable.cause as Error;
      for (const unit of units) unit.reject(unavailable);
      return;
    } finally {
      this.batch = undefined;
      client?.release();
    }
    for (const unit of units) {
      const outcome = unit.outcome!;
      if ('error' in outcome) unit.reject(outcome.error);
      else unit.resolve(outcome.value);
    }
  }

  // The batch's entries, numbered after the last one read (the write lock is held, so nobody else numbers),
  // and the keys that back a paymentReference's uniqueness: a new payment's key is a plain INSERT.
  /**
   * The text of one simple query that appends a usual batch (no reset,
   * replace or clear of the journal: those take statements in order), puts
   * the new payments' keys, notifies and commits; undefined for another batch.
   * The entries and keys go as JSON literals in dollar quotes, whose tag the
   * text is checked not to hold, so nothing in them is read as SQL.
   */
  private appendAndCommit(batch: Queued[], commit: string): string | undefined {
    const plain = batch.every((queued) => !('journalCleared' in queued.entry) && !('change' in queued.entry && (queued.entry.change.kind === 'reset' || queued.entry.change.kind === 'replace')));
    if (!plain) return undefined;
    const entries = JSON.stringify(batch.map((queued) => JSON.stringify(queued.entry)));
    const keys = JSON.stringify(batch.flatMap((queued) => (queued.newPayment ? [[keyText(queued.newPayment.publicKey), keyText(queued.newPayment.paymentReference)]] : [])));
    const tag = `$e${randomBytes(6).toString('hex')}$`;
    if (entries.includes(tag) || keys.includes(tag)) return undefined;
    return `WITH keys AS (INSERT INTO sandbox_payment_keys (public_key, payment_reference) SELECT k->>0, k->>1 FROM json_array_elements(${tag}${keys}${tag}::json) AS k)
      INSERT INTO sandbox_log (seq, entry) SELECT ${this.applied}::bigint + t.i, t.e FROM json_array_elements_text(${tag}${entries}${tag}::json) WITH ORDINALITY AS t(e, i); ${commit}`;
  }

  // Appends a batch statement by statement: the entries as one JSON array (node-postgres escapes a text[] parameter
  // character by character), then, in order, what resets, replaces and clears of the journal do to the other tables.
  private async append(client: pg.PoolClient, batch: Queued[]): Promise<void> {
    const entries = batch.map((queued) => JSON.stringify(queued.entry));
    await client.query('INSERT INTO sandbox_log (seq, entry) SELECT $2::bigint + t.i, t.e FROM json_array_elements_text($1::json) WITH ORDINALITY AS t(e, i)', [JSON.stringify(entries), this.applied]);
    for (const queued of batch) {
      if ('journalCleared' in queued.entry) {
        const { publicKey } = queued.entry.journalCleared;
        if (publicKey === undefined) await client.query('DELETE FROM sandbox_journal');
        else await client.query('DELETE FROM sandbox_journal WHERE public_key = $1', [keyText(publicKey)]);
        continue;
      }
      if ('books' in queued.entry) continue;
      const change = queued.entry.change;
      if (queued.newPayment) {
        await client.query('INSERT INTO sandbox_payment_keys (public_key, payment_reference) VALUES ($1, $2)', [keyText(queued.newPayment.publicKey), keyText(queued.newPayment.paymentReference)]);
      } else if (change.kind === 'reset' || change.kind === 'replace') {
        if (change.publicKey === undefined) await client.query('DELETE FROM sandbox_payment_keys');
        else await client.query('DELETE FROM sandbox_payment_keys WHERE public_key = $1', [keyText(change.publicKey)]);
        if (change.kind === 'replace' && change.records.payments.length > 0) {
          await client.query(
            'INSERT INTO sandbox_payment_keys (public_key, payment_reference) SELECT * FROM unnest($1::text[], $2::text[])',
            [change.records.payments.map((payment) => keyText(payment.publicKey)), change.records.payments.map((payment) => keyText(payment.paymentReference))],
          );
        }
      }
    }
  }

  // Applies, in order, every entry committed after the last one read.
  private async catchUp(db: pg.Pool | pg.PoolClient): Promise<void> {
    const { rows } = await db.query<{ seq: string; entry: string }>('SELECT seq::text, entry FROM sandbox_log WHERE seq > $1 ORDER BY sandbox_log.seq', [this.applied]);
    this.apply(rows);
  }

  // Applies rows of the log in order: changes to the tables, the books, a clear of the journal.
  private apply(rows: ReadonlyArray<{ seq: string; entry: string }>): void {
    if (this.applied === 0 && rows.length > 0) this.oldest = Number(rows[0]!.seq);
    for (const row of rows) {
      const entry = JSON.parse(row.entry) as LogEntry;
      if ('fold' in entry) this.oldest = Number(row.seq) - 1;
      if ('journalCleared' in entry) {
        this.journal?.clear(entry.journalCleared.publicKey);
      } else if ('books' in entry) {
        if (this.books) this.quietly(() => this.books!.apply(entry.books));
        else this.booksAtOpen = entry.books;
      } else {
        this.quietly(() => this.target.replay(entry.change));
      }
      this.applied = Number(row.seq);
    }
  }

  // Other replicas' journal entries written since this one last read them.
  private async catchUpJournal(db: pg.Pool | pg.PoolClient): Promise<void> {
    if (!this.journal) return;
    const { rows } = await db.query<{ id: string; entry: string }>(
      'SELECT id::text, CASE WHEN replica = $2 THEN NULL ELSE entry END AS entry FROM sandbox_journal WHERE id > $1 ORDER BY sandbox_journal.id',
      [this.journalRead, this.replica],
    );
    this.receiveJournal(rows);
  }

  private receiveJournal(rows: Array<{ id: string; entry: string | null }>): void {
    for (const row of rows) {
      if (row.entry !== null) this.journal?.receive(JSON.parse(row.entry) as JournalEntryText);
      this.journalRead = Number(row.id);
    }
  }

  // This replica's entries, in one INSERT under the journal's lock (so ids become visible in order), and the table trimmed
  // to the journal's size. Entries the database refuses are let go of: the journal is best effort.
  private async flushJournal(): Promise<void> {
    if (this.journalTimer) clearTimeout(this.journalTimer);
    this.journalTimer = undefined;
    if (this.journalOut.length === 0 || this.closed) return;
    const entries = this.journalOut;
    const keys = this.journalKeys;
    this.journalOut = [];
    this.journalKeys = [];
    let client: pg.PoolClient | undefined;
    try {
      client = await this.pool.connect();
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [JOURNAL_LOCK]);
      // The entries and keys are JSON texts, which hold no raw line feed: one text each, split on line feeds, costs no escaping.
      await client.query(
        "INSERT INTO sandbox_journal (replica, public_key, entry) SELECT $1, nullif(k, ''), e FROM unnest(string_to_array($2, E'\\n'), string_to_array($3, E'\\n')) WITH ORDINALITY AS x(e, k, i) ORDER BY i",
        [this.replica, entries.join('\n'), keys.map((key) => key ?? '').join('\n')],
      );
      await client.query('DELETE FROM sandbox_journal WHERE id <= (SELECT id FROM sandbox_journal ORDER BY id DESC OFFSET $1 LIMIT 1)', [this.journal?.capacity ?? JOURNAL_BATCH]);
      await client.query("SELECT pg_notify('sandbox_log', $1)", [`journal ${this.replica}`]);
      await client.query('COMMIT');
    } catch {
      await client?.query('ROLLBACK').catch(() => undefined);
    } finally {
      client?.release();
    }
  }

  private quietly(apply: () => void): void {
    this.applyingRemote = true;
    try {
      apply();
    } finally {
      this.applyingRemote = false;
    }
  }

  // Every step that reads or appends the log runs in turn, so entries are applied once and in order.
  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.tail.then(task, task);
    this.tail = run.catch(() => undefined);
    return run;
  }

  // The health probe, and a read of what others committed when no notification arrived.
  private async probe(): Promise<void> {
    if (this.closed) return;
    await this.refresh().catch(() => undefined);
    if (!this.listener && !this.closed) void this.listen();
  }

  // A commit's notification names the last entry it appended, a journal batch's its replica: this replica's own,
  // and entries it has read already, cost no query.
  private notified(payload: string): void {
    if (payload.startsWith('journal ')) {
      if (payload !== `journal ${this.replica}`) void this.refreshJournal();
      return;
    }
    if (Number(payload) > this.applied) void this.refreshLog().catch(() => undefined);
  }

  // Other replicas' journal entries, read one reading at a time (apart from the log's: the journal never waits for a batch).
  private refreshJournal(): Promise<void> {
    this.journalTail = this.journalTail.then(() => this.catchUpJournal(this.pool)).catch(() => undefined);
    return this.journalTail;
  }

  // Notifications of other replicas' commits, so that this one reads them within milliseconds.
  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    this.listener = client;
    client.on('error', () => {
      if (this.listener === client) this.listener = undefined;
      void client.end().catch(() => undefined);
    });
    client.on('notification', (message) => this.notified(message.payload ?? ''));
    try {
      await client.connect();
      await client.query('LISTEN sandbox_log');
    } catch {
      if (this.listener === client) this.listener = undefined;
      await client.end().catch(() => undefined);
    }
  }
}
