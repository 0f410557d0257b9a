import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithPostgres, startPostgres, type PostgresServer } from '../support/postgres.js';

/**
 * What the PostgreSQL store's design (docs/design.md, "Two stores") relies
 * on, checked on a real server before any store code: a unique constraint
 * refuses a reference twice under concurrent inserts; FOR UPDATE SKIP LOCKED
 * hands each due delivery to one claimer; an advisory lock serialises two
 * connections (the migration at start). Each check uses its own connections,
 * as separate replicas would.
 */

let server: PostgresServer;
const clients: pg.Client[] = [];

/** A new connection to the test server, closed in afterAll. */
async function connect(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: server.url });
  clients.push(client);
  await client.connect();
  return client;
}

describeWithPostgres('a real PostgreSQL server, as the PostgreSQL store relies on it', () => {
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.end()));
    await server?.stop();
  }, 30_000);

  it('is the throwaway server the harness promises: loopback only, UTF8, fsync off', async () => {
    const client = await connect();
    const setting = async (name: string): Promise<string> => (await client.query(`SELECT current_setting('${name}') AS value`)).rows[0].value;
    expect(await setting('listen_addresses')).toBe('127.0.0.1');
    expect(await setting('server_encoding')).toBe('UTF8');
    expect(await setting('fsync')).toBe('off');
    expect(server.url).toBe(`postgres://postgres@127.0.0.1:${server.port}/postgres`);
  });

  it('accepts a reference once per merchant when 20 connections insert it at once', async () => {
    const setup = await connect();
    await setup.query(`CREATE TABLE payments (
      public_key text NOT NULL,
      payment_reference text NOT NULL,
      writer int NOT NULL,
      UNIQUE (public_key, payment_reference))`);
    const writers = await Promise.all(Array.from({ length: 20 }, () => connect()));
    const results = await Promise.allSettled(
      writers.map((client, writer) =>
        client.query('INSERT INTO payments (public_key, payment_reference, writer) VALUES ($1, $2, $3)', ['pk_one', 'order-1', writer]),
      ),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const refusals = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
    expect(refusals).toHaveLength(19);
    // 23505: unique_violation, the code the store will map to "reference already used".
    expect(new Set(refusals.map((refusal) => (refusal.reason as { code?: string }).code))).toEqual(new Set(['23505']));
    const { rows } = await setup.query('SELECT count(*)::int AS n FROM payments');
    expect(rows[0].n).toBe(1);
    // Another merchant may use the same reference.
    await setup.query('INSERT INTO payments (public_key, payment_reference, writer) VALUES ($1, $2, $3)', ['pk_two', 'order-1', 0]);
  });

  it('hands each of 50 queued deliveries to exactly one of 4 concurrent claimers (FOR UPDATE SKIP LOCKED)', async () => {
    const setup = await connect();
    await setup.query('CREATE TABLE deliveries (id int PRIMARY KEY, claimed_by int)');
    await setup.query('INSERT INTO deliveries (id) SELECT generate_series(1, 50)');
    const claimers = await Promise.all(Array.from({ length: 4 }, () => connect()));
    const claimed = await Promise.all(
      claimers.map(async (client, claimer) => {
        const mine: number[] = [];
        for (;;) {
          await client.query('BEGIN');
          const { rows } = await client.query<{ id: number }>(
            'SELECT id FROM deliveries WHERE claimed_by IS NULL ORDER BY id LIMIT 3 FOR UPDATE SKIP LOCKED',
          );
          if (rows.length === 0) {
            await client.query('COMMIT');
            return mine;
          }
          const ids = rows.map((row) => row.id);
          // Hold the rows a moment, as a claim that sends before it records would: the others must skip them, not wait.
          await client.query('SELECT pg_sleep(0.02)');
          await client.query('UPDATE deliveries SET claimed_by = $1 WHERE id = ANY($2)', [claimer, ids]);
          await client.query('COMMIT');
          mine.push(...ids);
        }
      }),
    );
    const all = claimed.flat().sort((a, b) => a - b);
    expect(all).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    // Claimed at once, not in turn: more than one claimer got rows.
    expect(claimed.filter((mine) => mine.length > 0).length).toBeGreaterThan(1);
    const { rows } = await setup.query<{ claimer: number; n: number }>(
      'SELECT claimed_by AS claimer, count(*)::int AS n FROM deliveries GROUP BY claimed_by ORDER BY claimed_by',
    );
    expect(rows).toEqual(claimed.map((mine, claimer) => ({ claimer, n: mine.length })).filter((row) => row.n > 0));
  });

  it('makes a second connection wait for pg_advisory_lock until the first unlocks', async () => {
    const [first, second, observer] = await Promise.all([connect(), connect(), connect()]);
    const secondPid = (await second.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const events: string[] = [];
    await first.query('SELECT pg_advisory_lock(30)');
    events.push('first locked');
    const secondLocked = second.query('SELECT pg_advisory_lock(30)').then(() => events.push('second locked'));
    // Wait until the server shows the second connection waiting for the lock, rather than for a fixed time.
    for (let i = 0; ; i++) {
      const { rows } = await observer.query("SELECT granted FROM pg_locks WHERE locktype = 'advisory' AND pid = $1", [secondPid]);
      if (rows.length === 1 && rows[0].granted === false) break;
      if (i === 100) throw new Error('the second connection never waited for the advisory lock');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const tried = await observer.query('SELECT pg_try_advisory_lock(30) AS got');
    expect(tried.rows[0].got).toBe(false);
    events.push('first unlocking');
    await first.query('SELECT pg_advisory_unlock(30)');
    await secondLocked;
    expect(events).toEqual(['first locked', 'first unlocking', 'second locked']);
    await second.query('SELECT pg_advisory_unlock(30)');
  });
});
