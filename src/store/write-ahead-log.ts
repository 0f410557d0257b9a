import { open, readFile, type FileHandle } from 'node:fs/promises';
import { checkChange, type Change } from './state.js';

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
  ) {}

  /**
   * Reads the log at `path` (missing: empty) and opens it for appending.
   * A last line cut short by a crash was never acknowledged: it is dropped.
   * @throws Error naming the file when a complete line is not JSON or not a change.
   */
  static async open(path: string): Promise<{ log: WriteAheadLog; changes: Change[] }> {
    let text = '';
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`cannot read ${path}: ${(error as Error).message}`);
    }
    const complete = text.endsWith('\n') ? text : text.slice(0, text.lastIndexOf('\n') + 1);
    const changes: Change[] = [];
    complete.split('\n').forEach((line, index) => {
      if (line === '') return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        throw new Error(`cannot read ${path}: line ${index + 1} is not JSON`);
      }
      const problem = checkChange(parsed);
      if (problem) throw new Error(`cannot read ${path}: line ${index + 1} is not a change (${problem})`);
      changes.push(parsed as Change);
    });
    const handle = await open(path, 'a+');
    if (complete.length !== text.length) await handle.truncate(Buffer.byteLength(complete));
    return { log: new WriteAheadLog(path, handle, changes.length), changes };
  }

  /** How many changes the log holds since it was last emptied. */
  get size(): number {
    return this.lines;
  }

  /** Appends changes (already JSON, one a line) and waits until they are on disk. */
  async append(lines: string[]): Promise<void> {
    await this.handle.appendFile(lines.join('\n') + '\n');
    await this.handle.datasync();
    this.lines += lines.length;
  }

  /** Empties the log, once a snapshot holds everything in it. */
  async clear(): Promise<void> {
    await this.handle.truncate(0);
    await this.handle.datasync();
    this.lines = 0;
  }

  /** Closes the file. */
  close(): Promise<void> {
    return this.handle.close();
  }
}
