import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * The shared log (docs/decisions.md#d84-shared-store): every change of the
 * state in commit order; the keys that back a paymentReference's uniqueness
 * per merchant (each key as its JSON text, so that any string fits); the
 * claims replicas hold on deliveries' next attempts.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE TABLE sandbox_log (
      seq bigint PRIMARY KEY,
      entry text NOT NULL,
      written_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE sandbox_payment_keys (
      public_key text NOT NULL,
      payment_reference text NOT NULL,
      PRIMARY KEY (public_key, payment_reference)
    );
    CREATE TABLE sandbox_delivery_claims (
      delivery_id text PRIMARY KEY,
      replica text NOT NULL,
      lease_until timestamptz NOT NULL
    );
  `);
}
