import { Disk, type DiskTuning } from './disk.js';
import { StoreOpenError, StoreUnavailableError } from './errors.js';
import { StoreLock } from './lock.js';
import { OneProcessEngine } from './one-process.js';
import { SnapshotFile } from './snapshot.js';
import type { Change, Tables } from './tables.js';
import { readLog, WriteAheadLog } from './write-ahead-log.js';

/**
 * The state in a JSON snapshot and its write-ahead log, held by one process
 * (the lock file): `Disk` makes changes durable (group commit, folds), this
 * opens the files and answers for it as an engine (docs/design.md, "The store").
 */
export class FileEngine extends OneProcessEngine {
  readonly durable = true;

  private constructor(
    readonly tables: Tables,
    private readonly disk: Disk,
    readonly warnings: readonly string[],
  ) {
    super();
  }

  /**
   * Takes the lock on the file, reads the snapshot, then replays the log set
   * aside by a fold that did not end (if any) and the log, checking every
   * record against its schema.
   * @param file the snapshot; the log is `<file>.wal`, the set-aside log `<file>.wal.folding`, the lock `<file>.lock`
   * @throws StoreOpenError naming the file (and the log's line, or the pid holding the lock) when it cannot
   *   be trusted; nothing is written then and every file is left byte for byte as it was
   */
  static async open(file: string, tuning: DiskTuning): Promise<FileEngine> {
    const lock = await StoreLock.acquire(file);
    try {
      const snapshot = new SnapshotFile(file);
      const tables = await snapshot.read();
      const snapshotRecords = tables.size;
      const aside = `${file}.wal.folding`;
      // Changes the snapshot may hold already: replaying them is harmless (fold.ts).
      const setAside = await readLog(aside);
      for (const change of setAside.changes) tables.replay(change);
      const { log, changes } = await WriteAheadLog.open(`${file}.wal`);
      for (const change of changes) tables.replay(change);
      const found = { snapshotRecords, setAside: setAside.found };
      return new FileEngine(tables, new Disk(tables, snapshot, log, lock, aside, tuning, found), snapshot.warnings);
    } catch (error) {
      await lock.release();
      throw error instanceof StoreOpenError ? error : new StoreOpenError(`cannot open the store file ${file}: ${(error as Error).message}`);
    }
  }

  get trouble(): Error | undefined {
    return this.disk.trouble;
  }

  get snapshotTrouble(): Error | undefined {
    return this.disk.foldTrouble;
  }

  admit(_change: Change): void {
    const trouble = this.disk.trouble;
    if (trouble) throw new StoreUnavailableError(trouble);
  }

  put(change: Change): void {
    this.disk.queue(change, this.tables.apply(change));
  }

  commit(): Promise<void> {
    return this.disk.commit();
  }

  close(): Promise<void> {
    return this.disk.close();
  }
}
