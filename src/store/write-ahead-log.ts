import { open, readFile, stat, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { StoreOpenError } from './errors.js';
import { changeProblem } from './schema.js';
import { syncFolder } from './snapshot.js';
import type { Change } from './tables.js';

/**
 * The write-ahead log beside the snapshot file: one JSON change a line,
 * appended and fdatasync'd before the requests that made the changes are
 * answered. Its cost follows the size of the changes, not of the state
 * (README, "Storage").
 */
export class WriteAheadLog {
  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    private lines: number,
    // Bytes known to be on disk: what a failed append is cut back to.
    private bytes: number,
  ) {}

  /**
   * Reads the log at `path` (missing: empty), checks every line, and opens it
   * for appending. A last line cut short by a crash was never acknowledged:
   * it is dropped, the only write made here, after every line was checked.
   * @throws StoreOpenError naming the log (and the line) when it is not a
   *   regular file, cannot be read, or a complete line is not JSON or not a
   *   change; the file is then left as it was
   */
  static async open(path: string): Promise<{ log: WriteAheadLog; changes: Change[] }> {
    const refuse = (problem: string) => new StoreOpenError(`cannot read the store log ${path}: ${problem}`);
    let text = '';
    let created = false;
    try {
      // A device or a pipe in its place would be read for ever, or never end a line.
      if (!(await stat(path)).isFile()) throw refuse('not a regular file');
      text = await readFile(path, 'utf8');
    } catch (error) {
      if (error instanceof StoreOpenError) throw error;
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw refuse((error as Error).message);
      created = true;
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
    const bytes = Buffer.byteLength(complete);
    let handle: FileHandle | undefined;
    try {
      handle = await open(path, 'a+');
      if (bytes !== Buffer.byteLength(text)) await handle.truncate(bytes);
      // A new file's name lives in the folder: synced once, so that what is appended and synced later cannot lose its file.
      if (created) await syncFolder(dirname(path));
    } catch (error) {
      await handle?.close();
      throw refuse((error as Error).message);
    }
    return { log: new WriteAheadLog(path, handle, changes.length, bytes), changes };
  }

  /** How many changes the log holds since it was last emptied. */
  get size(): number {
    return this.lines;
  }

  /**
   * Appends changes (already JSON, one a line) and waits until they are on disk.
   * @throws Error from the disk; part of the lines may then be in the file: `restore()` takes them out
   */
  async append(lines: string[]): Promise<void> {
    const text = lines.join('\n') + '\n';
    await this.handle.appendFile(text);
    await this.handle.datasync();
    this.bytes += Buffer.byteLength(text);
    this.lines += lines.length;
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

  /** Empties the log, once a snapshot holds everything in it. */
  async clear(): Promise<void> {
    await this.handle.truncate(0);
    this.lines = 0;
    this.bytes = 0;
    await this.handle.datasync();
  }

  /** Closes the file. */
  close(): Promise<void> {
    return this.handle.close();
  }
}
