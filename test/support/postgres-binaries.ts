import { accessSync, constants, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { isCI } from '../browser/chromium.js';

/**
 * Whether this run can start a PostgreSQL server, read by vitest.config.ts
 * (to skip the PostgreSQL tests), by the run's end notice and by the harness
 * in test/support/postgres.ts. Kept apart from the harness so that the config
 * reads it without loading `pg` or vitest. As with Chromium: a contributor's
 * machine need not have PostgreSQL, and there its tests are skipped and the
 * run says so; CI must have it, and there a missing server fails them.
 */

/** Where Debian's packages put each major version's programs: `/usr/lib/postgresql/<version>/bin`. */
export const DEBIAN_POSTGRESQL = '/usr/lib/postgresql';

/** The vitest tag every PostgreSQL test carries (describeWithPostgres sets it), which skips it when PostgreSQL is missing outside CI. */
export const POSTGRES_TAG = 'postgres';

/** The command that installs what these tests need on Debian or Ubuntu. */
export const INSTALL_POSTGRESQL = 'apt-get install -y --no-install-recommends postgresql';

/** The two programs the harness runs, as absolute paths, and the folder they came from. */
export interface PostgresPrograms {
  found: true;
  /** The folder holding them: PG_BIN, or the newest `/usr/lib/postgresql/<version>/bin`. */
  bin: string;
  initdb: string;
  pgCtl: string;
}

/** Why the programs were not found, in words fit for a test's output. */
export interface PostgresMissing {
  found: false;
  why: string;
}

/**
 * Finds `initdb` and `pg_ctl`: in `PG_BIN` when it is set (and only there,
 * so that a wrong PG_BIN is reported rather than silently bypassed), else in
 * the newest /usr/lib/postgresql/<version>/bin that has both. Never
 * throws: a missing or unreadable folder is an answer with `found: false`
 * and the reason, since a machine without PostgreSQL is a normal case here.
 * Versions compare by number (16 is newer than 9.6), not as text.
 */
export function postgresBinaries(env: NodeJS.ProcessEnv = process.env): PostgresPrograms | PostgresMissing {
  const fixed = env.PG_BIN?.trim();
  if (fixed) {
    const programs = programsIn(fixed);
    return programs ?? { found: false, why: `no executable initdb and pg_ctl in PG_BIN=${fixed}` };
  }
  let versions: string[];
  try {
    versions = readdirSync(DEBIAN_POSTGRESQL).filter((name) => /^\d+(\.\d+)?$/.test(name));
  } catch {
    versions = [];
  }
  versions.sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const programs = programsIn(join(DEBIAN_POSTGRESQL, version, 'bin'));
    if (programs) return programs;
  }
  return { found: false, why: `no PostgreSQL under ${DEBIAN_POSTGRESQL}/*/bin and no PG_BIN` };
}

/** The programs in one folder, when both are there and executable. */
function programsIn(bin: string): PostgresPrograms | undefined {
  const initdb = join(bin, 'initdb');
  const pgCtl = join(bin, 'pg_ctl');
  try {
    accessSync(initdb, constants.X_OK);
    accessSync(pgCtl, constants.X_OK);
  } catch {
    return undefined;
  }
  return { found: true, bin, initdb, pgCtl };
}

/** Whether the PostgreSQL tests are skipped in this run: its programs are missing and this is not CI. */
export function postgresTestsSkipped(env: NodeJS.ProcessEnv = process.env): boolean {
  return !postgresBinaries(env).found && !isCI(env);
}

/**
 * The one line that ends a run whose PostgreSQL tests were skipped: which
 * files, why, and how to run them. `files` are paths relative to the
 * repository, such as `test/store/postgres-server.test.ts`.
 */
export function skippedPostgresTestsLine(files: readonly string[], env: NodeJS.ProcessEnv = process.env): string {
  const found = postgresBinaries(env);
  const why = found.found ? 'PostgreSQL found' : found.why;
  const which = files.length === 1 ? files[0] : `{${[...files].sort().join(',')}}`;
  return `Skipped the PostgreSQL tests, ${why}: ${which}. Run them with Debian's PostgreSQL installed (${INSTALL_POSTGRESQL}) or PG_BIN=/path/to/postgresql/bin npm test`;
}
