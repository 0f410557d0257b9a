/**
 * The durability levels, named as SQLite names its `synchronous` settings
 * (README, "Durability levels"):
 * - `normal`: a change is written to the log before its answer (a killed or
 *   crashed process loses nothing) and fdatasync'd within a second (disk.ts, SYNC_WITHIN_MS), at
 *   every fold and at close (a power cut can take the last second);
 * - `full`: a change is fdatasync'd before its answer (a power cut loses nothing).
 */
export type SyncLevel = 'normal' | 'full';

/** The durability levels, for option parsers. */
export const SYNC_LEVELS: readonly SyncLevel[] = ['normal', 'full'];
