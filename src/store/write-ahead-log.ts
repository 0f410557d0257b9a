import { rename, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { StoreOpenError } from './errors.js';
import { openToAppend, openToRead } from './files.js';
import { changeProblem } from './schema.js';
import { syncFolder } from './snapshot.js';
import { changeWeight, type Change } from './tables.js';

/** What a log file holds: its complete lines' changes, checked, and the byte counts of those lines and of the whole file. */
export interface LogContents {
  /** false when there is no file at the path */
  found: boolean;
  changes: Change[];
  /** bytes of the complete lines: a last line cut short by a crash ends past them */
  complete: number;
  total: number;
}

/**
 * Reads a log file (missing: empty) and checks every complete line; a last
 * line cut short by a crash was never acknowledged and is left out. Writes
 * nothing.
 * @throws StoreOpenError naming the file (and the line) when it is not a
 *   regular file, belongs to another user (who could have written any change
 *   in it), cannot be read, or a complete line is not JSON or not a change
 */
export async function readLog(path: string): Promise<LogContents> {
  const refuse = (problem: string) => new StoreOpenError(`cannot read the store log ${path}: ${problem}`);
  let text: string;
  try {
    // A device or a pipe in its place would be read for ever, or never end a line: openToRead refuses it.
    const found = await openToRead(path);
    if (!found) return { found: false, changes: [], complete: 0, total: 0 };
    try {
      text = await found.handle.readFile('utf8');
    } finally {
      await found.handle.close();
    }
  } catch (error) {
    throw refuse((error as Error).message);
  }
  const complete = text.endsWith('\n') ? text : text.slice(0, text.lastIndexOf('\n') + 1);
  const changes: Change[] = [];
  complete.split('\n').forEach((line, index) => {
    if (line === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      throw refuse(`line ${index + 1} is not JSON (${(error as Error).message})`);
    }
    const problem = changeProblem(parsed);
    if (problem) throw refuse(`line ${index + 1} is not a change: ${problem}`);
    changes.push(parsed as Change);
  });
  return { found: true, changes, complete: Buffer.byteLength(complete), total: Buffer.byteLength(text) };
}

/**
 * The write-ahead log beside the snapshot file: one JSON change a line,
 * appended before the requests that made the changes are answered, and
 * fdatasync'd then or later as the durability level says (README,
 * "Durability levels"). Its cost follows the size of the changes, not of the
 * state. When it is due for folding into the snapshot it is set aside under
 * another name and continues in a new file (`rotate()`).
 */
export class WriteAheadLog {
  private setAsideOnly = false;
  // Bytes written since the last fdatasync: what a power cut could still take.
  private unsynced = false;

  private constructor(
    readonly path: string,
    private handle: FileHandle,
    private lines: number,
    // Bytes known to be on disk: what a failed append is cut back to.
    private bytes: number,
  ) {}

  /**
   * Reads the log at `path` (missing: empty) with `readLog()`, and opens it
   * for appending (`openToAppend()`: created at 0600, or found, checked to be
   * this user's and set to 0600). A last line cut short by a crash is cut off
   * the file, the only write made here, after every line was checked.
   * @throws StoreOpenError as `readLog()` does, or naming the log when it
   *   cannot be opened (a symbolic link included); its bytes are then left as they were
   */
  static async open(path: string): Promise<{ log: WriteAheadLog; changes: Change[] }> {
    const { found, changes, complete, total } = await readLog(path);
    let handle: FileHandle | undefined;
    try {
      handle = await openToAppend(path);
      if (complete !== total) await handle.truncate(complete);
      // A new file's name lives in the folder: synced once, so that what is appended and synced later cannot lose its file.
      if (!found) await syncFolder(dirname(path));
    } catch (error) {
      await handle?.close();
      throw new StoreOpenError(`cannot read the store log ${path}: ${(error as Error).message}`);
    }
    return { log: new WriteAheadLog(path, handle, changes.reduce((sum, change) => sum + changeWeight(change), 0), complete), changes };
  }

  /**
   * True between a rotation's rename and the opening of the new file
   * (`reopen()`): the handle is then the file set aside, which must take no
   * append, as the fold of it may have read it already.
   */
  get detached(): boolean {
    return this.setAsideOnly;
  }

  /** What the changes the log holds since it was last emptied weigh (changeWeight: one a change, a replace the records it puts). */
  get size(): number {
    return this.lines;
  }

  /**
   * Appends changes (already JSON, one a line). Once it resolves they are in
   * the kernel's hands, so a killed process loses none; with `sync` they are
   * also fdatasync'd, so a power cut loses none.
   * @param weight what the lines weigh toward a fold (changeWeight); default one a line
   * @throws Error from the disk; part of the lines may then be in the file: `restore()` takes them out
   */
  async append(lines: string[], sync: boolean, weight = lines.length): Promise<void> {
    const text = lines.join('\n') + '\n';
    await this.handle.appendFile(text);
    this.unsynced = true;
    if (sync) await this.sync();
    this.bytes += Buffer.byteLength(text);
    this.lines += weight;
  }

  /** True when lines were appended since the last fdatasync. */
  get dirty(): boolean {
    return this.unsynced;
  }

  /**
   * fdatasyncs what was appended since the last time (nothing to do when nothing was).
   * @throws Error from the disk
   */
  async sync(): Promise<void> {
    if (!this.unsynced) return;
    this.unsynced = false;
    try {
      await this.handle.datasync();
    } catch (error) {
      this.unsynced = true;
      throw error;
    }
  }

  /**
   * Cuts the log back to what was on disk before a failed append: lines of a
   * refused batch must not come back at the next start.
   * @throws Error from the disk
   */
  async restore(): Promise<void> {
    // Never longer: truncating past the end would pad the log with zero bytes.
    if ((await this.handle.stat()).size > this.bytes) await this.handle.truncate(this.bytes);
    await this.handle.datasync();
  }

  /**
   * Tells whether the disk takes `size` bytes again: after `restore()`, writes
   * that many empty lines (which a reader skips, should the process die
   * now), syncs them, and cuts them off again.
   * @throws Error from the disk while it still refuses
   */
  async probe(size: number): Promise<void> {
    await this.restore();
    await this.handle.appendFile('\n'.repeat(Math.max(size, 1)));
    await this.handle.datasync();
    await this.restore();
  }

  /**
   * Sets the log aside: renames it to `aside` and continues in a new empty
   * file at `path` (`reopen()`). Call it between appends, never during one:
   * the lines of the log set aside are then exactly the changes logged so far.
   * @throws Error from the disk: after a refused rename nothing changed; after
   *   a refused new file the log takes no append until `reopen()` succeeds
   */
  async rotate(aside: string): Promise<void> {
    await rename(this.path, aside);
    this.setAsideOnly = true;
    // What is set aside is made durable before the fold goes on: a fold is one of the moments the log is synced.
    await this.sync();
    await this.reopen();
  }

  /**
   * Opens the new log after `rotate()` set the old one aside (nothing to do
   * otherwise), and syncs the folder: the new file's name must be durable
   * before anything acknowledged is in it.
   * @throws Error from the disk, or saying why a file found at the log's name
   *   is not used (another user's: in a shared folder one may be made between
   *   the rename and this); the log still takes no append then
   */
  async reopen(): Promise<void> {
    if (!this.setAsideOnly) return;
    // As at open: created fresh at 0600, or checked. A file of ours left by a refused try holds nothing acknowledged.
    const handle = await openToAppend(this.path);
    try {
      await handle.truncate(0);
      await syncFolder(dirname(this.path));
    } catch (error) {
      await handle.close();
      throw error;
    }
    const aside = this.handle;
    this.handle = handle;
    this.setAsideOnly = false;
    this.unsynced = false;
    this.lines = 0;
    this.bytes = 0;
    await aside.close().catch(() => undefined);
  }

  /** Empties the log, once a snapshot holds everything in it. */
  async clear(): Promise<void> {
    await this.handle.truncate(0);
    this.lines = 0;
    this.bytes = 0;
    await this.handle.datasync();
    this.unsynced = false;
  }

  /** Closes the file. */
  close(): Promise<void> {
    return this.handle.close();
  }
}
