import type { DeliveryClaim, StoreEngine } from './engine.js';
import type { SharedBooks, SharedJournal } from './sharing.js';
import type { Change, Tables } from './tables.js';

/**
 * What the engines of one process (memory, the file) share: the state is
 * this process's alone, so there is nothing to read from others, nobody to
 * claim against, and nobody to share the books or the journal with
 * (StoreEngine says what each member means on each engine).
 */
export abstract class OneProcessEngine implements StoreEngine {
  abstract readonly tables: Tables;
  abstract readonly warnings: readonly string[];
  abstract readonly durable: boolean;
  abstract readonly trouble: Error | undefined;
  abstract readonly snapshotTrouble: Error | undefined;
  readonly servesAlone = true;
  readonly takesBackBooks = false;

  abstract admit(change: Change): void;
  abstract put(change: Change): void;
  abstract commit(): Promise<void>;
  abstract close(): Promise<void>;

  eventNumberBase(): number {
    return 0;
  }

  // The work runs at once, as a caller of `put*` and `commit()` always did: nothing to wait for before it.
  transaction<T>(work: () => T): Promise<T> {
    try {
      const value = work();
      return this.commit().then(() => value);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  refresh(): Promise<void> {
    return Promise.resolve();
  }

  claim(_deliveryId: string): Promise<DeliveryClaim> {
    return Promise.resolve({ claimed: true, untilMs: Number.POSITIVE_INFINITY });
  }

  unclaim(_deliveryId: string): Promise<void> {
    return Promise.resolve();
  }

  shareBooks(_books: SharedBooks): void {}

  booksChanged(): void {}

  shareJournal(_journal: SharedJournal): Promise<void> {
    return Promise.resolve();
  }

  sendJournal(_publicKey: string | undefined, _text: string): void {}

  journalCleared(_publicKey?: string): void {}
}
