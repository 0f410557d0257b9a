// The defaults the CLI shows in its help, kept apart from the server so that `--help` does not load it.
export { DEFAULT_JOURNAL_MAX_BYTES } from './control/journal.js';

/** How many requests the journal keeps when `journalSize` (`--journal-size`) is not given. */
export const DEFAULT_JOURNAL_SIZE = 5000;
