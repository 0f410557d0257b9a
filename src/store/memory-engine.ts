import { OneProcessEngine } from './one-process.js';
import { Tables, type Change } from './tables.js';

/** The state in memory only (`--in-memory`): a change is durable as soon as it is put, and gone with the process. */
export class MemoryEngine extends OneProcessEngine {
  readonly tables = new Tables();
  readonly warnings: readonly string[] = [];
  readonly durable = false;
  readonly trouble = undefined;
  readonly snapshotTrouble = undefined;

  admit(_change: Change): void {}

  put(change: Change): void {
    this.tables.apply(change);
  }

  commit(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
