import { failure as describe, StoreUnavailableError } from './errors.js';
import { Folder, type Capture, type FoldTuning } from './fold.js';
import type { StoreLock } from './lock.js';
import type { SnapshotFile } from './snapshot.js';
import type { SyncLevel } from './sync-level.js';
import { changeWeight, type Change, type Tables, type Undo } from './tables.js';
import type { WriteAheadLog } from './write-ahead-log.js';

/** A change applied in memory and not yet on disk, with how to take it back. */
interface Pending {
  change: Change;
  line: string;
  undo: Undo;
  /** changeWeight(change) */
  weight: number;
}

/** The last write the disk refused: what it said, and how to try that write again. */
interface Failure {
  error: Error;
  what: string;
  retry: () => Promise<void>;
}

/** How long an acknowledged change may wait for its fdatasync at the `normal` level. */
export const SYNC_WITHIN_MS = 1000;

/** The Disk's settings: the fold's, and the durability level. */
export type DiskTuning = FoldTuning & { sync: SyncLevel };

/** What start-up found on disk besides the tables: see Folder. */
export interface Found {
  /** records in the snapshot file */
  snapshotRecords: number;
  /** true when a log set aside by an unfinished fold was replayed */
  setAside: boolean;
}

/**
 * The durable side of a store on files: group commit to the log, folds of
 * the log into the snapshot (fold.ts), and what happens when the disk
 * refuses a write. Crash safety comes from the order of writes: a change is
 * in the log before its request is answered (fdatasync'd first at `full`,
 * within SYNC_WITHIN_MS at `normal`); a snapshot
 * replaces the old one by rename and is made durable (file and folder)
 * before a log it holds is removed or emptied. A commit waits for its own
 * append only: a fold sets the log aside between two appends and writes the
 * snapshot beside them.
 */
export class Disk {
  private pending: Pending[] = [];
  private writing: Pending[] = [];
  private sequence = 0;
  private logged = 0;
  private waiters: Array<{ sequence: number; resolve: () => void; reject: (error: Error) => void }> = [];
  private flushing: Promise<void> | undefined;
  private retrying: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  // normal level: the fdatasync due for what was appended, run by the flush loop so that it never meets a rotation.
  private syncTimer: NodeJS.Timeout | undefined;
  private syncDue = false;
  private failure: Failure | undefined;
  private closed = false;
  private readonly folder: Folder;

  /**
   * @param tables the state in memory, which a refused write is taken back from
   * @param aside the name the log is set aside under for a fold (`<file>.wal.folding`)
   * @param tuning snapshotEvery: the fewest logged changes worth a fold; retryEvery: ms between tries of a refusing disk
   */
  constructor(
    private readonly tables: Tables,
    snapshot: SnapshotFile,
    private readonly log: WriteAheadLog,
    private readonly lock: StoreLock,
    aside: string,
    private readonly tuning: DiskTuning,
    found: Found,
  ) {
    this.folder = new Folder(snapshot, log, aside, tuning, found, () => this.capture(), () => this.wakeFolder());
    // The store is open: temporary files a crash left (which may hold secret keys) go now, not at the first fold.
    void snapshot.sweep();
    // A set-aside log found at start-up, or a log already due, is folded at once: the next start would replay it again.
    this.wakeFolder();
  }

  /** The disk's error while it refuses writes (naming the file), else undefined. */
  get trouble(): Error | undefined {
    return this.failure?.error;
  }

  /** The error of the folds of the log into the snapshot once they keep failing (writes go on meanwhile), else undefined. */
  get foldTrouble(): Error | undefined {
    return this.folder.trouble;
  }

  /** Takes a change already applied in memory, to be written by the next flush; `undo` takes it back should the disk refuse it. */
  queue(change: Change, undo: Undo): void {
    this.pending.push({ change, line: JSON.stringify(change), undo, weight: changeWeight(change) });
    this.sequence += 1;
  }

  /**
   * Resolves once every change queued so far is in the log; at once when
   * there is none, even while the disk refuses writes (no change can be
   * queued then), so that a request that only read is answered.
   * @throws StoreUnavailableError (rejects) when the disk refused the write
   */
  commit(): Promise<void> {
    const sequence = this.sequence;
    if (this.logged >= sequence) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push({ sequence, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  /**
   * Writes what is pending, waits for a fold under way, writes a last
   * snapshot, then closes the log and gives up the lock.
   * @throws StoreUnavailableError (rejects) when the disk refused the snapshot; the logs still hold every acknowledged change
   */
  async close(): Promise<void> {
    // First, so that the last flush begins no fold.
    this.folder.stop();
    await this.commit().catch(() => undefined);
    await this.flushing;
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.syncTimer);
    await this.retrying;
    await this.folder.idle();
    try {
      // One last try of a refusing disk: if it is back, the snapshot can be written.
      if (this.failure) await this.failure.retry();
      // Durable before the last snapshot, which may fail: the log then still holds everything.
      await this.log.sync();
      await this.folder.last();
    } catch (error) {
      throw new StoreUnavailableError(error);
    } finally {
      try {
        await this.log.close();
      } finally {
        await this.lock.release();
      }
    }
  }

  // One flush at a time; whatever queued meanwhile goes out in the next round.
  // A fold begins between two rounds, so that the log it sets aside holds
  // whole batches, and the records it takes are those the log holds.
  private async flush(): Promise<void> {
    try {
      for (;;) {
        if (this.folder.due(!this.failure)) {
          try {
            await this.folder.begin();
          } catch (error) {
            return this.fail(error, `cannot write ${this.log.path}`, () => this.log.reopen());
          }
        }
        if (this.syncDue && !this.failure) {
          this.syncDue = false;
          try {
            await this.log.sync();
          } catch (error) {
            return this.fail(error, `cannot write ${this.log.path}`, () => this.log.sync());
          }
        }
        if (this.failure || this.pending.length === 0) return;
        const upTo = this.sequence;
        this.writing = this.pending;
        this.pending = [];
        const lines = this.writing.map((entry) => entry.line);
        try {
          await this.log.append(lines, this.tuning.sync === 'full', this.writing.reduce((sum, entry) => sum + entry.weight, 0));
        } catch (error) {
          // Lines of a refused batch must not come back at the next start; the retry cuts them off too, should this fail.
          await this.log.restore().catch(() => undefined);
          const size = Buffer.byteLength(lines.join('\n') + '\n');
          return this.fail(error, `cannot write ${this.log.path}`, () => this.log.probe(size));
        }
        this.writing = [];
        this.logged = upTo;
        if (this.log.dirty) this.scheduleSync();
        this.waiters = this.waiters.filter((waiter) => {
          if (waiter.sequence > upTo) return true;
          waiter.resolve();
          return false;
        });
      }
    } finally {
      this.flushing = undefined;
    }
  }

  // A fold became due with no change to flush: a flush round with nothing to append begins it.
  private wakeFolder(): void {
    if (this.folder.due(!this.failure)) this.flushing ??= this.flush();
  }

  // Nothing the disk refused may be shown as stored: every change not yet in
  // the log is taken back, newest first, and every commit still waiting fails.
  private fail(error: unknown, what: string, retry: () => Promise<void>): void {
    for (const entry of [...this.writing, ...this.pending].reverse()) entry.undo();
    this.writing = [];
    this.pending = [];
    this.sequence = this.logged;
    this.failure = { error: describe(what, error), what, retry };
    const refused = new StoreUnavailableError(this.failure.error);
    for (const waiter of this.waiters) waiter.reject(refused);
    this.waiters = [];
    this.scheduleRetry();
  }

  // normal level: one fdatasync at most SYNC_WITHIN_MS after the first unsynced append.
  private scheduleSync(): void {
    if (this.syncTimer || this.closed) return;
    this.syncTimer = setTimeout(() => {
      this.syncTimer = undefined;
      this.syncDue = true;
      // A refusing disk is synced once it takes writes again (retry). Otherwise the flush round
      // awaits the sync before anything else: a round must never end before its first await.
      if (!this.failure) this.flushing ??= this.flush();
    }, SYNC_WITHIN_MS);
    // An idle sandbox's last fdatasync must not keep a process alive that is done: close() syncs anyway.
    this.syncTimer.unref();
  }

  private scheduleRetry(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.retrying = this.retry();
    }, this.tuning.retryEvery);
    // A disk that stays broken must not keep the process alive.
    this.timer.unref();
  }

  private async retry(): Promise<void> {
    const failure = this.failure;
    if (!failure) return;
    try {
      await failure.retry();
      this.failure = undefined;
      // A log due for folding is not set aside while it refuses writes, nor synced.
      this.wakeFolder();
      if (this.syncDue) this.flushing ??= this.flush();
    } catch (error) {
      this.failure = { ...failure, error: describe(failure.what, error) };
      this.scheduleRetry();
    } finally {
      this.retrying = undefined;
    }
  }

  // The records as they are now, queued changes included: listing them is
  // all the event loop pays (no change is taken out and put back, which
  // costs Map rehashes at 100 000 records). The snapshot waits for those
  // changes to be logged (and fdatasync'd, at `normal` too: a snapshot must
  // never hold a change a power cut can take from the log) before it replaces
  // the old one, and is dropped if the disk refuses them. The lists hold the
  // records themselves, frozen: changes made while they are written replace
  // records, never change them.
  private capture(): Capture {
    const logged = this.commit().then(() => this.log.sync());
    // Awaited only once the snapshot is written; a refusal meanwhile must not count as unhandled.
    logged.catch(() => undefined);
    const { tables } = this;
    const records = {
      merchants: tables.merchantList(), payments: tables.paymentList(), orders: tables.orderList(),
      webhooks: tables.webhookList(), clocks: tables.clockList(), deliveries: tables.deliveryList(),
    };
    return { records, logged };
  }
}
