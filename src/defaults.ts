// The defaults the CLI shows in its help, kept apart from the server so that `--help` does not load it.
export { DEFAULT_JOURNAL_MAX_BYTES } from './journal/journal.js';

/** How many requests the journal keeps when `journalSize` (`--journal-size`) is not given. */
export const DEFAULT_JOURNAL_SIZE = 5000;

/** How many merchants the sandbox keeps when no bound is given: a key exchange of a new one beyond it answers 503 (README, "Security"). */
export { DEFAULT_MAX_MERCHANTS } from './store/tables.js';
