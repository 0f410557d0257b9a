/**
 * What a sandbox keeps beside the store's tables, and how it hands it to the
 * store's engine: the overrides and notification faults (the books) and the
 * journal. On one process they stay the owner's; on PostgreSQL the engine
 * shares them between replicas (docs/decisions.md#d84-shared-store).
 */

/** The overrides and the notification faults, whole. */
export interface SharedBooksState {
  overrides: readonly object[];
  faults: readonly object[];
}

/** How the books' owner lets the engine read and put back the books it does not hold itself. */
export interface SharedBooks {
  /** the books as they are now */
  capture(): SharedBooksState;
  /** puts the books in place whole: another replica's change, or a batch taken back */
  apply(state: SharedBooksState): void;
}

/** The journal as an engine shares it (src/journal/journal.ts): entries other replicas recorded are received, a clear is applied. */
export interface SharedJournal {
  /** how many entries each replica keeps (`--journal-size`): the shared table keeps as many */
  readonly capacity: number;
  receive(entry: JournalEntryText): void;
  clear(publicKey?: string): void;
}

/** A journal entry as an engine carries it: the replica's kept form, parsed back from its JSON text. */
export type JournalEntryText = { id: number; publicKey?: string } & Record<string, unknown>;
