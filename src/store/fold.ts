import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { failure, StoreUnavailableError } from './errors.js';
import { recordCount, syncFolder, type SnapshotFile, type SnapshotRecords } from './snapshot.js';
import type { WriteAheadLog } from './write-ahead-log.js';

/**
 * Folding the log into the snapshot, off the commit path.
 *
 * When the log is due, the flush loop sets it aside between two appends
 * (`<file>.wal` renamed to `<file>.wal.folding`, a new `<file>.wal`, the
 * folder fsync'd) and appends go on at once. The records are taken from
 * memory (lists of the frozen records, not copies) and written as the new
 * snapshot in 64 KiB chunks, the event loop free between them. Changes queued but not yet
 * logged when the records were taken are in them: the new snapshot replaces
 * the old one only once those are logged too, and never if the disk refuses
 * them. Once the snapshot is durable the set-aside log is removed. One fold
 * at a time.
 *
 * Written from memory rather than by a worker that would read the snapshot
 * and the set-aside log back from disk: no second copy of the state in the
 * process, and less CPU (stringifying only; a worker would read, parse and
 * check the snapshot first), paid in small slices.
 *
 * A fold is due once the log holds as many changes as the snapshot holds
 * records (and at least `snapshotEvery`): a fold costs the whole state, so
 * each change pays a constant share of it whatever the size of the state,
 * as Redis rewrites its append-only file once it has doubled.
 */

/*
 * Why a crash in any window loses nothing. Start-up replays the set-aside
 * log, then the log, over the snapshot. Until the new snapshot's rename, the
 * snapshot is the one the set-aside log starts from: a plain replay. After
 * it, the snapshot also holds the set-aside log, and maybe the log's first
 * changes (those queued when the records were taken; a retried fold, or the
 * fold of a set-aside log found at start-up, takes all that was logged by
 * then). Say the set-aside log started from the state S, L is the set-aside
 * log followed by the log, and the snapshot holds G(S) for G the first
 * changes of L, L = G then R. Start-up computes R(G(G(S))), which is
 * R(G(S)) = L(S), because applying a sequence of changes twice in a row
 * leaves what applying it once does:
 * - merchants are only put, each replacing by key, in place: after G the
 *   table holds S's merchants in S's order, then those G added in the order
 *   G first put them, each with the last record G put for it (S's if none);
 *   G again adds no key and puts the same last records;
 * - payments and orders, merchant by merchant: if G resets the merchant
 *   (alone or with all), its rows after G are what G put after its last
 *   such reset, whatever they were before, so the same both times; if not,
 *   S's rows stay in place and G's new ones follow in order, as for merchants;
 * - the linkingReference index follows the payments: a linkingReference
 *   names one payment for good.
 * Only the order in which merchants' rows follow one another in the file may
 * differ, which nothing shows: the store lists payments and orders by
 * merchant, and reading a snapshot sorts its rows back by merchant. Hence the
 * set-aside log is removed only once the snapshot is durable, and no sooner.
 * test/unit/store/fold-crash.test.ts holds the store in each window and checks
 * the property itself on random sequences.
 */

/** Fold attempts failing in a row before `trouble` says so: a refused fold that the next try gets through is no alarm. */
const REPORT_AFTER = 3;
/** The longest wait between two tries of a failing fold, in multiples of retryEvery (about a minute by default). */
const LONGEST_WAIT = 64;

/**
 * The records in memory at one moment (the same frozen objects, not
 * copies), and a promise that resolves once every change they hold is in
 * the log, or rejects when the disk refused some (they were then taken back
 * in memory, and must not reach the snapshot).
 */
export interface Capture {
  records: SnapshotRecords;
  logged: Promise<void>;
}

/** snapshotEvery: the fewest logged changes worth a fold; retryEvery: ms before the first retry of a failed fold. */
export interface FoldTuning {
  snapshotEvery: number;
  retryEvery: number;
}

/** The folds of one store's log into its snapshot; the Disk calls `begin()` from its flush loop when `due()`. */
export class Folder {
  private running: Promise<void> | undefined;
  private failures = 0;
  private error: Error | undefined;
  // True while a failed fold's wait runs: set and cleared by the timer alone, since a timer may fire a little before Date.now() says its time has come.
  private waiting = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private setAside: boolean;
  // Records of the snapshot on disk: the log is due once it holds as many changes.
  private base: number;

  /**
   * @param aside the name the log is set aside under (`<file>.wal.folding`)
   * @param found what start-up found: how many records the snapshot file
   *   holds, and whether a log set aside by an unfinished fold is there (it
   *   is folded at the first chance)
   * @param capture the records in memory, listed synchronously, so at one
   *   moment, with the promise of their changes being logged
   * @param wake asks the flush loop to look at `due()` again, when a fold
   *   becomes due without a new change (the previous one ended, a retry is due)
   */
  constructor(
    private readonly snapshot: SnapshotFile,
    private readonly log: WriteAheadLog,
    private readonly aside: string,
    private readonly tuning: FoldTuning,
    found: { snapshotRecords: number; setAside: boolean },
    private readonly capture: () => Capture,
    private readonly wake: () => void,
  ) {
    this.base = found.snapshotRecords;
    this.setAside = found.setAside;
  }

  /**
   * The error of the last fold once folds have failed several times in a
   * row, else undefined. Writes go on meanwhile (the log holds them); the
   * logs grow and start-up slows until a fold gets through.
   */
  get trouble(): Error | undefined {
    return this.failures >= REPORT_AFTER ? this.error : undefined;
  }

  /**
   * True when a fold should begin: none running, not stopped, no failed
   * fold's wait running, and a set-aside log to fold or a log long enough.
   * @param canRotate false while the log refuses writes: only a log set
   *   aside already may be folded then (the records in memory are what the
   *   logs hold, the refused changes having been taken back)
   */
  due(canRotate: boolean): boolean {
    if (this.stopped || this.running || this.waiting) return false;
    return this.setAside || (canRotate && this.log.size >= Math.max(this.tuning.snapshotEvery, this.base));
  }

  /**
   * Begins a fold: sets the log aside (unless a set-aside log waits already)
   * and takes the records, then writes the snapshot in the background. Call
   * it between two appends: what is set aside must be what was taken.
   * @throws Error when the log was renamed but no new log could be made:
   *   the log must take no append until its `reopen()` succeeds (a refused
   *   rename changes nothing and is a failed fold, tried again later)
   */
  async begin(): Promise<void> {
    if (!this.setAside) {
      try {
        await this.log.rotate(this.aside);
      } catch (error) {
        if (!this.log.detached) return this.failed(`cannot set ${this.log.path} aside`, error);
        this.setAside = true;
        throw error;
      }
      this.setAside = true;
    }
    const taken = this.capture();
    this.running = this.fold(taken).finally(() => {
      this.running = undefined;
      this.wake();
    });
  }

  /** Resolves once no fold is running (never rejects: a failed fold is tried again later). */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  /** No fold begins from now on, and a waiting retry is dropped: the store is closing. */
  stop(): void {
    this.stopped = true;
    this.waiting = false;
    clearTimeout(this.timer);
  }

  /**
   * The last snapshot, at close (after `stop()` and `idle()`): every record
   * the logs leave, then the set-aside log removed and the log emptied.
   * @throws Error from the disk; the files then still hold every acknowledged change
   */
  async last(): Promise<void> {
    const { records, logged } = this.capture();
    await this.snapshot.write(records, logged);
    if (this.setAside) await this.removeAside();
    await this.log.clear();
  }

  private async fold({ records, logged }: Capture): Promise<void> {
    try {
      await this.snapshot.write(records, logged);
    } catch (error) {
      // A change in the records refused by the log: say what the disk said.
      return this.failed(`cannot write ${this.snapshot.path}`, error instanceof StoreUnavailableError ? error.cause : error);
    }
    try {
      await this.removeAside();
    } catch (error) {
      // The snapshot holds the set-aside log: replaying it is harmless, and the next try removes it.
      return this.failed(`cannot remove ${this.aside}`, error);
    }
    this.base = recordCount(records);
    this.failures = 0;
    this.error = undefined;
  }

  // Its removal is made durable before the next rotation may reuse the name: an older set-aside log coming back after a crash would undo newer changes.
  private async removeAside(): Promise<void> {
    await rm(this.aside, { force: true });
    await syncFolder(dirname(this.aside));
    this.setAside = false;
  }

  // Each try after a failure waits twice as long as the one before: a fold costs the whole state, and a disk that stays full must not make the sandbox fold for ever.
  private failed(what: string, error: unknown): void {
    this.failures += 1;
    this.error = failure(what, error);
    clearTimeout(this.timer);
    if (this.stopped) return;
    this.waiting = true;
    this.timer = setTimeout(() => {
      this.waiting = false;
      this.wake();
    }, this.tuning.retryEvery * Math.min(2 ** (this.failures - 1), LONGEST_WAIT));
    // A disk that stays broken must not keep the process alive.
    this.timer.unref();
  }
}
