import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';
import { describe } from 'vitest';
import { INSTALL_POSTGRESQL, POSTGRES_TAG, postgresBinaries, type PostgresPrograms } from './postgres-binaries.js';
import { freePort } from './process.js';

export { postgresBinaries, postgresTestsSkipped } from './postgres-binaries.js';

/**
 * A throwaway PostgreSQL server for tests: a fresh cluster in a temporary
 * folder, listening on a free loopback port, trusted without a password from
 * this machine only, durable to nothing (fsync off) because it is deleted
 * when the tests end. Debian's `postgresql` package (or PG_BIN) provides the
 * programs; nothing is downloaded.
 */

const run = promisify(execFile);

/** How long initdb, pg_ctl start and pg_ctl stop may each take, in milliseconds. */
const COMMAND_WITHIN = 60_000;
/** How many times, and how far apart in milliseconds, a client tries to connect after pg_ctl says the server started. */
const CONNECT_TRIES = 50;
const CONNECT_EVERY = 100;
/** How many free ports are tried when another process takes the one picked before the server binds it. */
const PORT_TRIES = 3;
/** The OS user Debian's package creates, under which the server runs when the tests run as root. */
const POSTGRES_USER = 'postgres';

/** A running server: its connection URL, and how to stop it. */
export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`: the superuser, trusted, on the `postgres` database. */
  url: string;
  /** The loopback TCP port it listens on. */
  port: number;
  /** Stops the server (`pg_ctl stop -m fast`) and deletes its folder. Safe to call twice; the second call waits for the first. */
  stop(): Promise<void>;
  /**
   * Stops the server (`pg_ctl stop -m fast`: open connections are closed) and
   * keeps its folder, for a test of what clients do while the database is
   * down. `resume()` starts it again.
   */
  halt(): Promise<void>;
  /**
   * Starts a halted server again on the same port and folder, and waits until
   * a client connects (as startPostgres does).
   * @throws Error with the end of the server's log when it does not start, or when the port was taken meanwhile
   */
  resume(): Promise<void>;
}

/**
 * Creates a cluster in a new temporary folder and starts it: `initdb` (UTF8,
 * C locale, `--no-sync`, trust for local sockets and 127.0.0.1 only), then
 * `pg_ctl start` with listen_addresses=127.0.0.1, a free port, the Unix
 * socket in the folder and fsync off, then waits until a `pg` client
 * connects over TCP. Throws when the programs are missing (with how to
 * install them), when initdb or pg_ctl fail, or when no connection is
 * accepted within about 5 s; the error carries the end of the server's log,
 * and the folder is removed. The caller must call `stop()` (in afterAll).
 */
export async function startPostgres(): Promise<PostgresServer> {
  const programs = postgresBinaries();
  if (!programs.found) throw new Error(`PostgreSQL not found: ${programs.why}. Install Debian's package (${INSTALL_POSTGRESQL}) or set PG_BIN`);
  const folder = await mkdtemp(join(tmpdir(), 'payments-sandbox-pg-'));
  const asRoot = process.getuid?.() === 0;
  try {
    // PostgreSQL refuses to run as root (initdb and postgres both exit). As root, as in CI's container,
    // the programs run as the `postgres` user Debian's package creates (runuser), so it must own the folder.
    if (asRoot) {
      const uid = Number((await run('id', ['-u', POSTGRES_USER])).stdout.trim());
      const gid = Number((await run('id', ['-g', POSTGRES_USER])).stdout.trim());
      await chown(folder, uid, gid);
    }
    const data = join(folder, 'data');
    await command(programs.initdb, ['-D', data, '-U', 'postgres', '--encoding=UTF8', '--locale=C', '--auth=trust', '--no-sync'], asRoot);
    // initdb's --auth=trust also trusts ::1 and replication; the tests need local sockets and 127.0.0.1 only.
    // Rewriting the existing file keeps its owner and mode.
    await writeFile(join(data, 'pg_hba.conf'), 'local all all trust\nhost all all 127.0.0.1/32 trust\n');
    return await start(programs, folder, data, asRoot);
  } catch (error) {
    await rm(folder, { recursive: true, force: true });
    throw error;
  }
}

/** Starts the cluster on a free port (another when the one picked is taken meanwhile) and waits for a connection. */
async function start(programs: PostgresPrograms, folder: string, data: string, asRoot: boolean): Promise<PostgresServer> {
  const log = join(folder, 'server.log');
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    // pg_ctl hands -o to a shell: the folder is quoted (mkdtemp's names have no quote in them).
    const options = `-c listen_addresses=127.0.0.1 -p ${port} -c unix_socket_directories='${folder}' -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
    try {
      await command(programs.pgCtl, ['start', '-D', data, '-l', log, '-w', '-t', String(COMMAND_WITHIN / 1000), '-o', options], asRoot);
    } catch (error) {
      const tail = await logTail(log);
      if (attempt < PORT_TRIES && /could not bind|address already in use/i.test(tail)) continue;
      throw new Error(`${(error as Error).message}\nserver log:\n${tail}`);
    }
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const stop = stopper(programs, folder, data, asRoot);
    try {
      await waitForConnection(url);
    } catch (error) {
      const tail = await logTail(log);
      await stop();
      throw new Error(`${(error as Error).message}\nserver log:\n${tail}`);
    }
    const halt = () => command(programs.pgCtl, ['stop', '-D', data, '-m', 'fast', '-w'], asRoot);
    const resume = async (): Promise<void> => {
      try {
        await command(programs.pgCtl, ['start', '-D', data, '-l', log, '-w', '-t', String(COMMAND_WITHIN / 1000), '-o', options], asRoot);
        await waitForConnection(url);
      } catch (error) {
        throw new Error(`${(error as Error).message}\nserver log:\n${await logTail(log)}`);
      }
    };
    return { url, port, stop, halt, resume };
  }
}

/**
 * The server's stop, run once however often it is called. Until it runs, a
 * worker that exits without calling it (a crash, an interrupted run) still
 * stops its server, so that no postgres process outlives the tests.
 */
function stopper(programs: PostgresPrograms, folder: string, data: string, asRoot: boolean): () => Promise<void> {
  const onExit = (): void => {
    try {
      const [file, args] = invocation(programs.pgCtl, ['stop', '-D', data, '-m', 'immediate', '-w'], asRoot);
      execFileSync(file, args, { stdio: 'ignore', timeout: COMMAND_WITHIN });
    } catch {
      // The process is exiting: nothing more can be done.
    }
  };
  process.once('exit', onExit);
  let stopped: Promise<void> | undefined;
  return () => {
    stopped ??= (async () => {
      process.off('exit', onExit);
      try {
        // A halted server (halt() without resume()) has no postmaster.pid: there is nothing to stop.
        if (existsSync(join(data, 'postmaster.pid'))) await command(programs.pgCtl, ['stop', '-D', data, '-m', 'fast', '-w'], asRoot);
      } finally {
        await rm(folder, { recursive: true, force: true });
      }
    })();
    return stopped;
  };
}

/** Connects and disconnects with a `pg` client until one connection succeeds, CONNECT_TRIES times at most. */
async function waitForConnection(url: string): Promise<void> {
  let last: unknown;
  for (let i = 0; i < CONNECT_TRIES; i++) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      return;
    } catch (error) {
      last = error;
      await client.end().catch(() => undefined);
      await sleep(CONNECT_EVERY);
    }
  }
  throw new Error(`PostgreSQL at ${url} accepted no connection in ${CONNECT_TRIES} tries: ${(last as Error)?.message}`);
}

/** Runs one PostgreSQL program, as the `postgres` user when this process is root; rejects with its output when it fails. */
async function command(program: string, args: string[], asRoot: boolean): Promise<void> {
  const [file, argv] = invocation(program, args, asRoot);
  try {
    await run(file, argv, { timeout: COMMAND_WITHIN });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${[file, ...argv].join(' ')} failed: ${(error as Error).message}\n${stdout ?? ''}${stderr ?? ''}`.trimEnd());
  }
}

/** The file and arguments that run a program: itself, or through `runuser -u postgres --` as root. */
function invocation(program: string, args: string[], asRoot: boolean): [string, string[]] {
  return asRoot ? ['runuser', ['-u', POSTGRES_USER, '--', program, ...args]] : [program, args];
}

/** The last lines of the server's log, or a note that there is none. */
async function logTail(log: string): Promise<string> {
  try {
    return (await readFile(log, 'utf8')).split('\n').slice(-20).join('\n');
  } catch {
    return '(no server log)';
  }
}

/**
 * A describe block of tests that need a PostgreSQL server. It carries the
 * `postgres` tag, which vitest.config.ts skips when PostgreSQL is missing
 * outside CI; the run then ends with one line naming the skipped files and
 * how to run them (test/browser/skipped-notice.ts), as for Chromium. In CI
 * a missing server is not skipped: startPostgres fails the suite.
 */
export function describeWithPostgres(name: string, fn: () => void): void {
  describe(name, { tags: [POSTGRES_TAG] }, fn);
}
