import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * The journal's shared part is best effort, as the journal is
 * (docs/decisions.md#d84-shared-store): it skips the write-ahead log
 * (a crash of the database server empties it; the state's log is untouched),
 * and its entries stay uncompressed, inline up to a page.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    ALTER TABLE sandbox_journal SET UNLOGGED;
    ALTER TABLE sandbox_journal ALTER COLUMN entry SET STORAGE EXTERNAL;
    ALTER TABLE sandbox_journal SET (toast_tuple_target = 8160);
  `);
}
