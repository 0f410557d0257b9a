import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { runner } from 'node-pg-migrate';
import { StoreOpenError } from './errors.js';

/** The folder of the shared store's migrations: numbered modules beside this one, compiled with it. */
const MIGRATIONS = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

/** The table node-pg-migrate records the migrations run in. */
const MIGRATIONS_TABLE = 'sandbox_migrations';

/** Declarations and maps the build writes beside the modules are no migrations. */
const IGNORE = String.raw`(\..*)|(.*\.d\.ts)|(.*\.map)`;

/** The names of the migrations this build knows, in order (a module's name without its extension). */
async function knownMigrations(): Promise<string[]> {
  const files = await readdir(MIGRATIONS);
  return files.filter((file) => !new RegExp(`^(${IGNORE})$`).test(file)).map((file) => file.replace(/\.[jt]s$/, '')).sort();
}

/**
 * Brings the database's schema up to this build's, under node-pg-migrate's
 * advisory lock (a second replica starting at once waits, then finds
 * nothing to do); migrations only add, so older replicas keep running
 * through a rolling restart (docs/deploy.md).
 * @param where the database as messages name it, without its password
 * @throws StoreOpenError when the database holds a migration this build does not know: a newer sandbox migrated it
 */
export async function migrate(client: pg.PoolClient, where: string): Promise<void> {
  await runner({
    dbClient: client,
    dir: MIGRATIONS,
    ignorePattern: IGNORE,
    migrationsTable: MIGRATIONS_TABLE,
    direction: 'up',
    advisoryLockMode: 'wait',
    checkOrder: true,
    log: () => undefined,
  });
  const known = new Set(await knownMigrations());
  const { rows } = await client.query<{ name: string }>(`SELECT name FROM ${MIGRATIONS_TABLE} ORDER BY run_on, id`);
  const unknown = rows.map((row) => row.name).filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new StoreOpenError(`the database at ${where} holds schema migration ${unknown.join(', ')}, newer than this payments-sandbox knows (up to ${[...known].at(-1)}): run a newer one, or point --store at another database`);
  }
}
