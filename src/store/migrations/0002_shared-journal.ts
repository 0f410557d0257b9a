import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * The bounded shared part of the journal (docs/decisions.md#d84-shared-store):
 * each replica's newest entries, as it keeps them (bounded and redacted),
 * for every replica's control API and dashboard; `public_key` as its JSON text.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE TABLE sandbox_journal (
      id bigserial PRIMARY KEY,
      replica text NOT NULL,
      public_key text,
      entry text NOT NULL
    );
    CREATE INDEX sandbox_journal_public_key ON sandbox_journal (public_key);
  `);
}
