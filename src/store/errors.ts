/**
 * The store's two failures a caller can act on: it cannot start (a file it
 * cannot trust, or another process using it) and it cannot write for now.
 */

/**
 * The store could not be opened: the message names the file (and the line of
 * the log, or the process holding the lock). Nothing was written: the
 * snapshot and the log are left byte for byte as they were.
 */
export class StoreOpenError extends Error {
  override name = 'StoreOpenError';
}

/**
 * The store cannot write at the moment (disk full, an I/O error): what the
 * refused writes changed was taken back, reads keep working, and the store
 * becomes writable again by itself once the disk recovers. The message is
 * always "Store unavailable" (what the HTTP layer answers, with 503); `cause`
 * holds the error of the disk.
 */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';

  /** @param cause the error the disk gave, kept for the health report and the logs */
  constructor(cause?: unknown) {
    super('Store unavailable', cause === undefined ? undefined : { cause });
  }
}

/** An error saying what could not be done (`cannot write F`) and what the disk answered, the disk's error kept as `cause`. */
export function failure(what: string, error: unknown): Error {
  return new Error(`${what}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
}
