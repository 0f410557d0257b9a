import type { SnapshotRecords } from './tables.js';

/**
 * A snapshot's text, the format of the store file's snapshot and of
 * GET /__sandbox/snapshot alike (snapshot.ts): one record a line, oldest
 * first, written a piece at a time. Apart from the file's reading and
 * writing, so that a sandbox in memory, which writes snapshots over the
 * control API only, loads no file code.
 */

/** The version this store writes. */
export const SNAPSHOT_VERSION = 3;

/** Characters of snapshot text made between two writes: stringifying them takes well under a millisecond, so the event loop is never held for long. */
const CHUNK_CHARS = 64 * 1024;

/**
 * The snapshot text of `records` (version 3, one record a line), in pieces
 * of about 64 KiB, each made only when the caller asks for it: neither the
 * whole text nor a long stretch of the event loop is ever taken. `head`'s
 * fields are written after `version`, before the lists (GET /__sandbox/snapshot adds its own);
 * `shown` gives what is written of each record (GET /__sandbox/snapshot leaves card tokens out).
 */
export function* snapshotChunks(records: SnapshotRecords, head: Record<string, unknown> = {}, shown: (row: object) => object = (row) => row): Generator<string> {
  const tables: Array<[string, readonly object[]]> = [
    ['merchants', records.merchants],
    ['payments', records.payments],
    ['orders', records.orders],
    ['webhooks', records.webhooks],
    ['clocks', records.clocks],
    ['deliveries', records.deliveries],
  ];
  let chunk = `{"version": ${SNAPSHOT_VERSION},`;
  for (const [name, value] of Object.entries(head)) {
    if (value !== undefined) chunk += `\n${JSON.stringify(name)}: ${JSON.stringify(value)},`;
  }
  for (const [index, [name, rows]] of tables.entries()) {
    chunk += `\n"${name}": [`;
    for (const [at, row] of rows.entries()) {
      chunk += (at === 0 ? '\n' : ',\n') + JSON.stringify(shown(row));
      if (chunk.length >= CHUNK_CHARS) {
        yield chunk;
        chunk = '';
      }
    }
    chunk += (rows.length === 0 ? ']' : '\n]') + (index < tables.length - 1 ? ',' : '}\n');
  }
  yield chunk;
}

/** How many records `records` holds: what a snapshot of them costs to write and to read. */
export function recordCount(records: SnapshotRecords): number {
  return records.merchants.length + records.payments.length + records.orders.length + records.webhooks.length + records.clocks.length + records.deliveries.length;
}
