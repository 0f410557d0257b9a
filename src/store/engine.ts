import type { Change, Tables } from './tables.js';
import type { SharedBooks, SharedJournal } from './sharing.js';

/** What `claim` answers: whether this process may make the delivery's attempt, and until when (epoch ms) the claim holds. */
export interface DeliveryClaim {
  claimed: boolean;
  untilMs: number;
}

/**
 * Where a store keeps its state, chosen once when it opens (`Store.open`):
 * memory (`memory-engine.ts`), a JSON file and its write-ahead log
 * (`file-engine.ts`), or PostgreSQL shared by replicas (`postgres-engine.ts`).
 * `Store` is the one face over it (docs/design.md, "One face, three engines");
 * every member means something on every engine, so that nobody outside
 * src/store asks which one runs. "One process" below is memory and the file:
 * the state is this process's alone.
 */
export interface StoreEngine {
  /** The whole state, in memory on every engine: reads come from here, synchronously. */
  readonly tables: Tables;

  /** What opening found that a person should know (file: a folder other users can write to, README "Security"); none on memory and PostgreSQL. */
  readonly warnings: readonly string[];

  /** False on memory: nothing outlives the process. True on the file and PostgreSQL. */
  readonly durable: boolean;

  /**
   * True when this process serves every request the state has seen, so its
   * own journal saw them all: memory and the file. False on PostgreSQL,
   * where other replicas serve requests too (docs/decisions.md#d84-shared-store).
   */
  readonly servesAlone: boolean;

  /**
   * True when a unit whose changes could not be made durable also has the
   * overrides and faults put back by the engine (PostgreSQL: the batch
   * captured them when it began, `shareBooks`). False on memory and the
   * file: there the books live beside the store, and whoever changed them puts them back.
   */
  readonly takesBackBooks: boolean;

  /**
   * Why writes are refused now, else undefined. Memory: never. File: the
   * disk refused the last write (tried again every `retryEvery` ms).
   * PostgreSQL: the database did not answer, or the engine is closed.
   */
  readonly trouble: Error | undefined;

  /**
   * Why compacting the durable state keeps failing while writes still work,
   * else undefined. File: the folds of the log into the snapshot. Never on
   * memory (nothing to compact) nor PostgreSQL (its fold is part of a batch, whose failure is `trouble`).
   */
  readonly snapshotTrouble: Error | undefined;

  /**
   * The id this process's live events number on from: 0 on one process;
   * on PostgreSQL the start time in microseconds plus a random part, so that
   * an id one replica gave lies outside every other's range.
   */
  eventNumberBase(): number;

  /**
   * Refuses a change that cannot be put now, before it is checked or applied.
   * Memory: never. File: StoreUnavailableError while the disk refuses writes.
   * PostgreSQL: Error when no unit is running (every write goes through `transaction`).
   */
  admit(change: Change): void;

  /** Applies an admitted, checked change to `tables` and queues it to be made durable by the next commit (memory: applies it, and that is all). */
  put(change: Change): void;

  /**
   * Runs `work` (reads and puts, synchronously) and resolves with what it
   * returned once its changes are durable. One process: at once, then
   * `commit()`. PostgreSQL: in the next batch, under the write lock, after
   * reading what other replicas committed.
   * @throws what `work` threw (what it put before is kept); StoreUnavailableError (rejects) when the changes were taken back
   */
  transaction<T>(work: () => T): Promise<T>;

  /**
   * Resolves once every change put so far is durable. Memory: at once. File:
   * once in the log (group commit). PostgreSQL: once every batch begun before has ended.
   * @throws StoreUnavailableError (rejects) when the changes were refused and taken back
   */
  commit(): Promise<void>;

  /**
   * Reads what other processes committed since this one last read. One
   * process: resolves at once, there is nothing to read. PostgreSQL: the log's
   * new entries and the other replicas' journal entries.
   * @throws StoreUnavailableError (rejects) on PostgreSQL while the database does not answer
   */
  refresh(): Promise<void>;

  /**
   * Claims a delivery's next attempt for this process. One process: always
   * granted, for ever (`untilMs` Infinity). PostgreSQL: a lease of
   * CLAIM_LEASE_MS (src/store/lease.ts), refused while another replica's holds.
   * @throws StoreUnavailableError (rejects) on PostgreSQL while the database does not answer
   */
  claim(deliveryId: string): Promise<DeliveryClaim>;

  /** Lets go of this process's claim once the attempt is recorded. One process: nothing to let go of. */
  unclaim(deliveryId: string): Promise<void>;

  /**
   * Takes the overrides and faults' owner. One process: they stay the
   * owner's, in memory (docs/decisions.md#d26-in-memory-test-session), and
   * nothing is kept. PostgreSQL: captured and logged whole in the unit that
   * changed them, and put in place when another replica changed them.
   */
  shareBooks(books: SharedBooks): void;

  /**
   * Says that the running unit changed the overrides or faults. One process: nothing to do.
   * @throws Error on PostgreSQL when no unit is running
   */
  booksChanged(): void;

  /**
   * Takes the journal. One process: nothing to share, resolves at once.
   * PostgreSQL: its bounded shared part (docs/decisions.md#d84-shared-store);
   * resolves once the newest entries other replicas wrote are received.
   */
  shareJournal(journal: SharedJournal): Promise<void>;

  /** Sends one of this process's journal entries (its JSON text) to the others. One process: there are none. */
  sendJournal(publicKey: string | undefined, text: string): void;

  /**
   * Says, in the running unit, that the journal of one merchant or of all was cleared. One process: the journal is the owner's alone, nothing to do.
   * @throws Error on PostgreSQL when no unit is running
   */
  journalCleared(publicKey?: string): void;

  /**
   * Makes what is pending durable and lets go of what the engine holds.
   * Memory: nothing. File: a last snapshot, the files closed, the lock
   * released. PostgreSQL: the connections closed.
   * @throws StoreUnavailableError (rejects) on the file when the last snapshot could not be written (the logs hold every acknowledged change)
   */
  close(): Promise<void>;
}

/** How an engine tells the store's watchers of a change another process committed (PostgreSQL only: one process has no others). */
export type HearChange = (change: Change) => void;
