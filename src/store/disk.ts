import { StoreUnavailableError } from './errors.js';
import type { StoreLock } from './lock.js';
import { snapshotText, type SnapshotFile } from './snapshot.js';
import type { Change, Tables, Undo } from './tables.js';
import type { WriteAheadLog } from './write-ahead-log.js';

/** A change applied in memory and not yet on disk, with how to take it back. */
interface Pending {
  change: Change;
  line: string;
  undo: Undo;
}

/** The last write the disk refused: what it said, and how to try that write again. */
interface Failure {
  error: Error;
  what: string;
  retry: () => Promise<void>;
}

/**
 * The durable side of a store on files: group commit to the log, snapshots,
 * and what happens when the disk refuses a write. Crash safety comes from the
 * order of writes: a change is in the log (fdatasync'd) before its request is
 * answered; the snapshot replaces the old one by rename and is made durable
 * (file and directory) before the log is emptied.
 */
export class Disk {
  private pending: Pending[] = [];
  private writing: Pending[] = [];
  private sequence = 0;
  private durable = 0;
  private waiters: Array<{ sequence: number; resolve: () => void; reject: (error: Error) => void }> = [];
  private flushing: Promise<void> | undefined;
  private retrying: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private failure: Failure | undefined;
  private closed = false;

  /**
   * @param tables the state in memory, which a refused write is taken back from
   * @param tuning snapshotEvery: logged changes between snapshots; retryEvery: ms between tries of a refusing disk
   */
  constructor(
    private readonly tables: Tables,
    private readonly snapshot: SnapshotFile,
    private readonly log: WriteAheadLog,
    private readonly lock: StoreLock,
    private readonly tuning: { snapshotEvery: number; retryEvery: number },
  ) {}

  /** The disk's error while it refuses writes (naming the file), else undefined. */
  get trouble(): Error | undefined {
    return this.failure?.error;
  }

  /** Takes a change already applied in memory, to be written by the next flush; `undo` takes it back should the disk refuse it. */
  queue(change: Change, undo: Undo): void {
    this.pending.push({ change, line: JSON.stringify(change), undo });
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
    if (this.durable >= sequence) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push({ sequence, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  /**
   * Writes what is pending and a last snapshot, then closes the log and gives up the lock.
   * @throws StoreUnavailableError (rejects) when the disk refused the snapshot; the log still holds every acknowledged change
   */
  async close(): Promise<void> {
    await this.commit().catch(() => undefined);
    // The last commit resolves once its lines are logged; a snapshot may still be on its way.
    await this.flushing;
    this.closed = true;
    clearTimeout(this.timer);
    await this.retrying;
    try {
      // One last try of a refusing disk: if it is back, the snapshot can be written.
      if (this.failure) await this.failure.retry();
      await this.writeSnapshot();
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
  private async flush(): Promise<void> {
    try {
      while (this.pending.length > 0 && !this.failure) {
        const upTo = this.sequence;
        this.writing = this.pending;
        this.pending = [];
        const lines = this.writing.map((entry) => entry.line);
        try {
          await this.log.append(lines);
        } catch (error) {
          // Lines of a refused batch must not come back at the next start; the retry cuts them off too, should this fail.
          await this.log.restore().catch(() => undefined);
          const size = Buffer.byteLength(lines.join('\n') + '\n');
          return this.fail(error, `cannot write ${this.log.path}`, () => this.log.probe(size));
        }
        this.writing = [];
        this.durable = upTo;
        this.waiters = this.waiters.filter((waiter) => {
          if (waiter.sequence > upTo) return true;
          waiter.resolve();
          return false;
        });
        if (this.log.size >= this.tuning.snapshotEvery) {
          try {
            await this.writeSnapshot();
          } catch (error) {
            return this.fail(error, `cannot write ${this.snapshot.path}`, () => this.writeSnapshot());
          }
        }
      }
    } finally {
      this.flushing = undefined;
    }
  }

  // Nothing the disk refused may be shown as stored: every change not yet in
  // the log is taken back, newest first, and every commit still waiting fails.
  private fail(error: unknown, what: string, retry: () => Promise<void>): void {
    for (const entry of [...this.writing, ...this.pending].reverse()) entry.undo();
    this.writing = [];
    this.pending = [];
    this.sequence = this.durable;
    this.failure = { error: describe(what, error), what, retry };
    const refused = new StoreUnavailableError(this.failure.error);
    for (const waiter of this.waiters) waiter.reject(refused);
    this.waiters = [];
    this.scheduleRetry();
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
    } catch (error) {
      this.failure = { ...failure, error: describe(failure.what, error) };
      this.scheduleRetry();
    } finally {
      this.retrying = undefined;
    }
  }

  private async writeSnapshot(): Promise<void> {
    await this.snapshot.write(this.durableText());
    await this.log.clear();
  }

  // The snapshot holds what the log holds, not the changes queued behind it:
  // should the disk refuse those, they are taken back in memory and must not
  // live on in the file. They are taken out for the (synchronous) moment the
  // text is made, and put back.
  private durableText(): string {
    for (const entry of [...this.pending].reverse()) entry.undo();
    try {
      return snapshotText(this.tables);
    } finally {
      for (const entry of this.pending) entry.undo = this.tables.apply(entry.change);
    }
  }
}

function describe(what: string, error: unknown): Error {
  return new Error(`${what}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
}
