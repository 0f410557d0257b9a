import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe } from 'vitest';
import { Store } from '../../../src/store/store.js';
import { describeWithPostgres, startPostgres, type PostgresServer } from '../../support/postgres.js';

/**
 * The three engines the store's contract runs on: the JSON file in a temporary
 * folder, memory only, and PostgreSQL on a throwaway server. Each test gets
 * its own place (a new folder, a new database), and every store it opened is
 * closed after it.
 */

/** What a test can do with its engine's place. */
export interface EnginePlace {
  /**
   * Opens a store on this test's place: the same file (close the store holding
   * it first: the file takes one process; `name` opens another file of the
   * test's folder instead), or the same database (one more replica); in
   * memory, a new empty store each time. Closed after the test.
   */
  open(name?: string): Promise<Store>;
  /**
   * A store opened now on what is durable at this place, the open stores left
   * as they are, as another process would find it: a copy of the file and its
   * log (a crash's view), or one more replica of the database; undefined in
   * memory, where nothing is durable. Closed after the test.
   */
  durableView(): Promise<Store | undefined>;
  /** the JSON file's path, or the database's URL; undefined in memory */
  readonly where: string | undefined;
}

/** One engine: its name, the describe block its tests need, and how each test gets its place. */
export interface Engine {
  name: string;
  kind: 'file' | 'memory' | 'postgres';
  /** `describe`, or `describeWithPostgres` for the engine that needs a server (skipped alone without PostgreSQL) */
  block(name: string, fn: () => void): void;
  /** registers the hooks that make each test's place; call it at the top of the engine's block */
  prepare(): EnginePlace;
}

/** Closes, after each test, the stores opened during it. */
function tracked(): { keep: (store: Store) => Store } {
  let stores: Store[] = [];
  afterEach(async () => {
    for (const store of stores.reverse()) await store.close().catch(() => undefined);
    stores = [];
  });
  return { keep: (store) => (stores.push(store), store) };
}

/** The JSON file store, in a new temporary folder for each test. */
export const fileEngine: Engine = {
  name: 'the JSON file',
  kind: 'file',
  block: (name, fn) => describe(name, fn),
  prepare() {
    const { keep } = tracked();
    let dir = '';
    let copies = 0;
    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), 'payments-sandbox-contract-'));
    });
    afterEach(async () => {
      await rm(dir, { recursive: true, force: true });
    });
    return {
      get where() {
        return join(dir, 'sandbox.json');
      },
      open: async (name = 'sandbox.json') => keep(await Store.open({ file: join(dir, name) })),
      async durableView() {
        // The files as they are now under another name: what a process starting after a crash would read.
        copies += 1;
        const copy = join(dir, `view-${copies}.json`);
        for (const suffix of ['', '.wal', '.wal.folding']) {
          const from = join(dir, `sandbox.json${suffix}`);
          if (existsSync(from)) await copyFile(from, `${copy}${suffix}`);
        }
        return keep(await Store.open({ file: copy }));
      },
    };
  },
};

/** The store in memory only (`--in-memory`). */
export const memoryEngine: Engine = {
  name: 'memory',
  kind: 'memory',
  block: (name, fn) => describe(name, fn),
  prepare() {
    const { keep } = tracked();
    return {
      where: undefined,
      open: async () => keep(await Store.open({})),
      durableView: async () => undefined,
    };
  },
};

/** The store on PostgreSQL: one server for the engine's block, a new database for each test. */
export const postgresEngine: Engine = {
  name: 'PostgreSQL',
  kind: 'postgres',
  block: (name, fn) => describeWithPostgres(name, fn),
  prepare() {
    let server: PostgresServer | undefined;
    let admin: pg.Client | undefined;
    let databases = 0;
    let url = '';
    beforeAll(async () => {
      server = await startPostgres();
      admin = new pg.Client({ connectionString: server.url });
      await admin.connect();
    }, 60_000);
    afterAll(async () => {
      await admin?.end().catch(() => undefined);
      await server?.stop();
    }, 30_000);
    // Registered before tracked(): vitest runs afterEach hooks in reverse, so the stores close before the database goes.
    afterEach(async () => {
      const name = new URL(url).pathname.slice(1);
      // Other sessions (a store's listener that has not seen its close yet) would make DROP wait: FORCE ends them.
      await admin!.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    });
    const { keep } = tracked();
    beforeEach(async () => {
      databases += 1;
      const name = `contract_${process.pid}_${databases}`;
      await admin!.query(`CREATE DATABASE ${name}`);
      const at = new URL(server!.url);
      at.pathname = `/${name}`;
      url = at.toString();
    });
    const open = async () => keep(await Store.open({ url }));
    return {
      get where() {
        return url;
      },
      open,
      durableView: open,
    };
  },
};
