import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { accountPayment, cardPayment, momoPayment } from '../support/sandbox.js';
import { describeWithPostgres, startPostgres, type PostgresServer } from '../support/postgres.js';
import { EXIT_WITHIN, ROOT, run, stopAll, within } from '../support/process.js';
import { Receiver } from '../support/receiver.js';
import {
  api,
  basic,
  bearer,
  createDatabase,
  kill,
  newMerchant,
  reference,
  replicaArgs,
  split,
  sql,
  startReplica,
  twoReplicas,
  waitFor,
  type Replica,
} from './support.js';

/**
 * Two replicas of one sandbox on one PostgreSQL database, end to end
 * (docs/decisions.md#d84-shared-store): the built CLI started twice with
 * `--store <url>`, real sockets, concurrent requests split between replica
 * A and replica B. What one sandbox promises must hold across both: a
 * paymentReference taken once, refunds and captures never beyond the
 * amount, an override's count exact, a due event fired once, the same state
 * seen from either, one schema migration, and a health check that follows
 * the database. Each case has its own database (CREATE DATABASE), so the
 * cases are independent.
 */

/** The advisory lock key every batch of writes takes (WRITE_LOCK in src/store/shared-log.ts). */
const WRITE_LOCK = 0x5a4e_4450;

/** How long a case that starts replicas may take. */
const CASE_WITHIN = 120_000;

let server: PostgresServer;
let databases = 0;
const receivers: Receiver[] = [];

/** The names of the migrations the build holds (dist/store/migrations: a module's name without its extension), in order. */
async function builtMigrations(): Promise<string[]> {
  const files = await readdir(join(ROOT, 'dist/store/migrations'));
  return files.filter((file) => file.endsWith('.js')).map((file) => file.slice(0, -3)).sort();
}

/** A new database on the file's server, for one case; its URL. */
const database = (): Promise<string> => createDatabase(server.url, `replicas_${++databases}_${process.pid}`);

describeWithPostgres('two replicas on one PostgreSQL database', () => {
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  // Each case's replicas and receiver end with it: the next case starts from none.
  afterEach(async () => {
    await stopAll();
    await Promise.allSettled(receivers.splice(0).map((receiver) => receiver.close()));
  }, 30_000);
  afterAll(async () => {
    await server?.stop();
  }, 60_000);

  it('takes a paymentReference once: of 200 concurrent initiates split between A and B, one is pending (20) and 199 answer S18', async () => {
    const [a, b] = await twoReplicas(await database());
    const merchant = newMerchant();
    const auth = await bearer(a, merchant);
    const paymentReference = reference('ONCE');
    const body = accountPayment({ publicKey: merchant.publicKey, paymentReference });
    const answers = await split(200, a, b, (replica) => api(replica, 'POST', '/payments/initiates', body, auth));
    const codes = answers.map((answer) => `${answer.status} ${answer.body?.data?.code}`);
    const counted = Object.fromEntries([...new Set(codes)].map((code) => [code, codes.filter((one) => one === code).length]));
    expect(counted).toEqual({ '200 20': 1, '200 S18': 199 });
    for (const replica of [a, b]) {
      const listed = await replica.control.payments(merchant.publicKey);
      expect(listed.status).toBe(200);
      expect(listed.body.total, `payments listed by ${replica.name}`).toBe(1);
      expect(listed.body.payments[0]).toMatchObject({ paymentReference, status: 'PENDING', code: '20' });
    }
  }, CASE_WITHIN);

  it('never refunds more than was paid: 50 concurrent refunds of 3.00 of a 100.00 payment, split between A and B', async () => {
    const [a, b] = await twoReplicas(await database());
    const merchant = newMerchant();
    const paymentReference = reference('REFUND');
    const initiated = await api(a, 'POST', '/payments/initiates', accountPayment({ publicKey: merchant.publicKey, paymentReference, amount: '100.00' }), await bearer(a, merchant));
    expect(initiated.body.data.code).toBe('20');
    // Paid on the other replica: the OTP completes the account payment (README, "Bank account: initiate, then the OTP").
    const paid = await api(b, 'POST', '/payments/validate', { linkingReference: initiated.body.data.payments.linkingReference, otp: '123456' }, await bearer(b, merchant));
    expect(paid.body.data.code).toBe('00');
    const refund = { publicKey: merchant.publicKey, paymentReference, amount: '3.00', currency: 'NGN', country: 'NG' };
    const answers = await split(50, a, b, (replica) => api(replica, 'POST', '/payments/refund', refund, basic(merchant)));
    const accepted = answers.filter((answer) => answer.status === 200 && answer.body?.data?.code === '00').length;
    const refused = answers.filter((answer) => answer.status === 200 && answer.body?.data?.code === 'S12').length;
    expect(accepted * 3, 'refunded in all, in NGN').toBeLessThanOrEqual(100);
    expect(accepted + refused, JSON.stringify(answers.filter((answer) => !['00', 'S12'].includes(answer.body?.data?.code)).slice(0, 3))).toBe(50);
    // Each refund starts from the last one committed: every refund that fits is made (33 of 3.00 = 99.00).
    expect(accepted).toBe(33);
    for (const replica of [a, b]) {
      const shown = await replica.control.payment(paymentReference, merchant.publicKey);
      expect(shown.body, `the payment as ${replica.name} shows it`).toMatchObject({ status: 'SUCCESSFUL', amount: '100.00', refundedAmount: `${accepted * 3}.00` });
    }
  }, CASE_WITHIN);

  it('never captures more than was authorised: 25 concurrent captures of 10.00 of a 100.00 authorisation, split between A and B', async () => {
    const [a, b] = await twoReplicas(await database());
    const merchant = newMerchant();
    const paymentReference = reference('CAPTURE');
    const card = { cardNumber: '5123450000000008', cvv: '100', expiryMonth: '05', expiryYear: '30' };
    const common = { publicKey: merchant.publicKey, paymentReference, currency: 'NGN', country: 'NG' };
    const authorised = await api(a, 'POST', '/payments/authorise', { ...common, amount: '100.00', ...card }, basic(merchant));
    expect(authorised.status).toBe(201);
    expect(authorised.body.data).toMatchObject({ code: '00', payments: { status: 'AUTHORIZED' } });
    const answers = await split(25, a, b, (replica) => api(replica, 'POST', '/payments/capture', { ...common, amount: '10.00', productDescription: 'part' }, basic(merchant)));
    const accepted = answers.filter((answer) => answer.status === 200 && answer.body?.data?.code === '00').length;
    // A capture beyond what is left answers S12; one after the authorisation is captured in full, 400 (no authorised transaction).
    const refused = answers.filter((answer) => (answer.status === 200 && answer.body?.data?.code === 'S12') || answer.status === 400).length;
    expect(accepted * 10, 'captured in all, in NGN').toBeLessThanOrEqual(100);
    const others = answers.filter((answer) => !(answer.status === 200 && ['00', 'S12'].includes(answer.body?.data?.code)) && answer.status !== 400);
    expect(accepted + refused, JSON.stringify(others.slice(0, 3))).toBe(25);
    expect(accepted).toBe(10);
    for (const replica of [a, b]) {
      const shown = await replica.control.payment(paymentReference, merchant.publicKey);
      expect(shown.body, `the payment as ${replica.name} shows it`).toMatchObject({ status: 'CAPTURED', amount: '100.00', capturedAmount: `${accepted * 10}.00` });
    }
  }, CASE_WITHIN);

  it('spends an override for the next 3 requests exactly 3 times across A and B: 10 concurrent matching requests', async () => {
    const [a, b] = await twoReplicas(await database());
    const merchant = newMerchant();
    const auth = await bearer(a, merchant);
    const override = await a.control.override({ scenario: 'card-declined', publicKey: merchant.publicKey, times: 3 });
    expect(override.times).toBe(3);
    const answers = await split(10, a, b, (replica) => api(replica, 'POST', '/payments/initiates', cardPayment({ publicKey: merchant.publicKey, paymentReference: reference('OVR') }), auth));
    const scenarios = answers.map((answer) => answer.scenario);
    expect(scenarios.filter((scenario) => scenario === 'card-declined'), JSON.stringify(scenarios)).toHaveLength(3);
    // The other 7 are decided by the card's number, as without the override (README, "The catalogue").
    expect(scenarios.filter((scenario) => scenario === 'card-succeeds-after-authentication'), JSON.stringify(scenarios)).toHaveLength(7);
    expect(answers.map((answer) => answer.body?.data?.code).sort()).toEqual([...Array(3).fill('S12'), ...Array(7).fill('S20')]);
    for (const replica of [a, b]) {
      const left = await replica.control.overrides(merchant.publicKey);
      expect(left.body.total, `overrides left on ${replica.name}`).toBe(0);
      const failed = await replica.control.send('GET', '/payments', { query: { publicKey: merchant.publicKey, status: 'FAILED' } });
      expect(failed.body.total, `payments declined as ${replica.name} lists them`).toBe(3);
    }
  }, CASE_WITHIN);

  it('fires each due event once, listed by A, when A advances the clock past the settlement of payments made on A and B, and delivers each notification once', async () => {
    const [a, b] = await twoReplicas(await database());
    const receiver = await Receiver.start();
    receivers.push(receiver);
    const merchant = newMerchant();
    // Its keys exchanged first: a notification URL is kept for a merchant the sandbox knows only.
    const auth = await bearer(a, merchant);
    const hook = await a.control.send('PUT', `/webhooks/${merchant.publicKey}`, { body: { url: receiver.url } });
    expect(hook.status).toBe(200);
    // momo-approved-later: PENDING (20), settled as a success PT10S later on the merchant's clock (README, "The catalogue").
    const references = Array.from({ length: 6 }, (_, index) => reference(`DUE${index}`));
    const made = await split(references.length, a, b, (replica, index) =>
      api(replica, 'POST', '/payments/initiates', momoPayment({ publicKey: merchant.publicKey, paymentReference: references[index], mobileNumber: 233200000010 }), auth),
    );
    expect(made.map((answer) => `${answer.scenario} ${answer.body?.data?.code}`)).toEqual(references.map(() => 'momo-approved-later 20'));
    const advanced = await a.control.send('POST', `/clock/${merchant.publicKey}/advance`, { body: { by: 'PT1M' } });
    expect(advanced.status).toBe(200);
    expect(advanced.body).toMatchObject({ offset: 'PT1M', pendingTotal: 0 });
    // B's agenda reads each step of the shared clock as A commits it, and leaves the merchant's due items to A while A steps it
    // (docs/decisions.md#d84-shared-store): A carries out and lists every settlement, each once, and the notification each made.
    const fired = advanced.body.fired as Array<{ kind: string; paymentReference: string }>;
    const listed = (kind: string) => fired.filter((one) => one.kind === kind).map((one) => one.paymentReference).sort();
    expect(listed('settlement')).toEqual([...references].sort());
    expect(listed('delivery')).toEqual([...references].sort());
    await waitFor('a notification of each payment', async () => references.every((paymentReference) => receiver.of(paymentReference).length > 0), 20_000);
    // Long enough for B's agenda and its 1 s poll to have seen the advance and its deliveries, had it meant to fire them again.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const counted: Record<string, number> = {};
    for (const { event } of receiver.events()) {
      const key = `${event.eventType}/${event.data.reference}`;
      counted[key] = (counted[key] ?? 0) + 1;
    }
    expect(counted).toEqual(Object.fromEntries(references.map((paymentReference) => [`transaction/${paymentReference}`, 1])));
    for (const replica of [a, b]) {
      for (const paymentReference of references) {
        const story = await replica.control.send('GET', `/payments/${paymentReference}/story`, { query: { publicKey: merchant.publicKey } });
        expect(story.body.payment.status, `${paymentReference} as ${replica.name} shows it`).toBe('SUCCESSFUL');
        const settled = (story.body.states as Array<{ event: string; scenario: string }>).filter((state) => state.event === 'settle');
        expect(settled.map((state) => state.scenario), `${paymentReference}'s settlements as ${replica.name} shows them`).toEqual(['settled-later-success']);
        const deliveries = story.body.deliveries as Array<{ state: string }>;
        expect(deliveries.map((delivery) => delivery.state), `${paymentReference}'s deliveries as ${replica.name} shows them`).toEqual(['delivered']);
      }
    }
  }, CASE_WITHIN);

  it('shows the same payments, overview and story from A and B after a change made on the other', async () => {
    const [a, b] = await twoReplicas(await database());
    const merchant = newMerchant();
    const paymentReference = reference('SAME');
    type Views = { payments: any; overview: any; story: any };
    const views = async (replica: Replica): Promise<Views> => {
      const payments = await replica.control.send('GET', '/payments');
      const overview = await replica.control.send('GET', '/overview');
      const story = await replica.control.send('GET', `/payments/${paymentReference}/story`, { query: { publicKey: merchant.publicKey } });
      return { payments: payments.body, overview: overview.body, story: story.body };
    };
    // Left out, as per replica or of the moment asked: the `id` of a journal entry (the story's `requests`), which each replica numbers
    // in its own journal as it records or receives the entry; a clock's `now`, the wall time of the request, so two requests a few
    // milliseconds apart differ. Everything else is compared whole.
    const shared = (view: Views) => ({
      payments: view.payments,
      overview: { ...view.overview, merchants: view.overview.merchants.map((one: any) => ({ ...one, clock: { ...one.clock, now: undefined } })) },
      story: { ...view.story, requests: view.story.requests.map(({ id: _id, ...request }: any) => request) },
    });
    // The journal reaches the other replica shortly after the answer (in batches, off the answer's path): both views are read once
    // both journals hold the payment's Payments API requests.
    const both = async (requests: number): Promise<[Views, Views]> => {
      let seen: [Views, Views] | undefined;
      await waitFor(`both replicas' stories to show ${requests} request(s)`, async () => {
        seen = [await views(a), await views(b)];
        return seen.every((view) => view.story.requests?.length === requests);
      }, 10_000);
      return seen!;
    };
    // A payment made on B, read from both.
    const made = await api(b, 'POST', '/payments/initiates', accountPayment({ publicKey: merchant.publicKey, paymentReference }), await bearer(b, merchant));
    expect(made.body.data.code).toBe('20');
    const [fromA, fromB] = await both(1);
    expect(fromA.payments.total).toBe(1);
    expect(fromA.story.payment).toMatchObject({ paymentReference, status: 'PENDING' });
    expect(shared(fromA)).toEqual(shared(fromB));
    // Settled and part refunded on A over the control API (whose requests the journal does not keep), read from both.
    expect((await a.control.complete(paymentReference, { outcome: 'success', publicKey: merchant.publicKey })).status).toBe(200);
    expect((await a.control.send('POST', `/payments/${paymentReference}/refund`, { body: { amount: '50.00', publicKey: merchant.publicKey } })).status).toBe(200);
    const [onA, onB] = await both(1);
    expect(onB.story.payment).toMatchObject({ status: 'SUCCESSFUL', refundedAmount: '50.00' });
    expect(onB.story.states.map((state: any) => state.event)).toEqual(['create', 'settle', 'refund']);
    expect(shared(onB)).toEqual(shared(onA));
  }, CASE_WITHIN);

  // The log is read in the order of its numbers: read as text (ORDER BY the output's `seq::text` column, before fa5f79a), entries 9 and
  // 10 came as '10', '9'; the replica applied them in that order, kept 9 as the last read and numbered its own entry 10 again:
  // duplicate key on sandbox_log_pkey, the batch rolled back, 503 Store unavailable to every unit in it (at 99/100 too, and so on).
  it('writes on B in a batch that reads entries 9 and 10 of A together: the log is read in the order of its numbers', async () => {
    const url = await database();
    const [a, b] = await twoReplicas(url);
    const merchant = newMerchant();
    const auth = await bearer(a, merchant);
    const lastSeq = async () => (await sql<{ seq: number }>(url, 'SELECT coalesce(max(seq), 0)::int AS seq FROM sandbox_log'))[0]!.seq;
    // A CARD initiate that spends this override writes two entries in one batch: the payment, and the overrides whole (a `books` entry).
    await a.control.override({ scenario: 'card-declined', publicKey: merchant.publicKey, times: 1 });
    // Payments until the log holds 8 entries (an initiate is one), all read by B.
    while ((await lastSeq()) < 8) {
      const made = await api(a, 'POST', '/payments/initiates', accountPayment({ publicKey: merchant.publicKey, paymentReference: reference('SEQ') }), auth);
      expect(made.body.data.code).toBe('20');
    }
    expect(await lastSeq(), 'the log holds 8 entries').toBe(8);
    expect((await b.control.payments(merchant.publicKey)).body.total).toBeGreaterThan(0);
    // The test holds the write lock of every batch (WRITE_LOCK in src/store/shared-log.ts), so that A's next batch (the declined CARD
    // initiate: entries 9 and 10) and then B's (an account initiate) wait in that order, and B's batch is the first of B to read 9 and 10.
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [WRITE_LOCK]);
      const waiting = async (count: number) =>
        (await holder.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND NOT granted", [WRITE_LOCK])).rows[0]!.n === count;
      const onA = api(a, 'POST', '/payments/initiates', cardPayment({ publicKey: merchant.publicKey, paymentReference: reference('SEQA') }), auth);
      await waitFor("A's batch to wait for the write lock", () => waiting(1), 10_000);
      const onB = api(b, 'POST', '/payments/initiates', accountPayment({ publicKey: merchant.publicKey, paymentReference: reference('SEQB') }), auth);
      await waitFor("B's batch to wait for the write lock", () => waiting(2), 10_000);
      await holder.query('SELECT pg_advisory_unlock($1)', [WRITE_LOCK]);
      expect((await onA).scenario).toBe('card-declined');
      expect(await lastSeq(), "A's batch wrote entries 9 and 10").toBeGreaterThanOrEqual(10);
      const written = await onB;
      expect(written.status, JSON.stringify(written.body)).toBe(200);
      expect(written.body.data.code).toBe('20');
    } finally {
      await holder.end().catch(() => undefined);
    }
  }, CASE_WITHIN);

  it('migrates a fresh database once when two replicas start at the same moment, and refuses a database a newer sandbox migrated (exit 2, one line, no password)', async () => {
    const password = `pw-${Math.random().toString(36).slice(2)}-secret`;
    const role = `replicas_role_${process.pid}`;
    await sql(server.url, `CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
    const url = await createDatabase(server.url, `replicas_migrate_${process.pid}`, { owner: role, as: { user: role, password } });
    expect(url).toContain(password);
    const [a, b] = await twoReplicas(url);
    for (const replica of [a, b]) expect(replica.started.stdout() + replica.started.stderr(), `what replica ${replica.name} printed`).not.toContain(password);
    const migrations = await sql<{ name: string; n: number }>(url, 'SELECT name, count(*)::int AS n FROM sandbox_migrations GROUP BY name ORDER BY name');
    expect(migrations).toEqual((await builtMigrations()).map((name) => ({ name, n: 1 })));
    await kill(a);
    await kill(b);
    await sql(url, "INSERT INTO sandbox_migrations (name, run_on) VALUES ('9999_from-the-future', now())");
    const refused = run(replicaArgs(url));
    const exit = await within(refused.closed, EXIT_WITHIN * 2, 'the replica to refuse the newer database');
    const said = refused.stderr().trim();
    expect(exit.code, said).toBe(2);
    expect(said.split('\n'), said).toHaveLength(1);
    expect(said).toContain('9999_from-the-future');
    expect(said + refused.stdout()).not.toContain(password);
  }, CASE_WITHIN);
});

describeWithPostgres('a replica whose PostgreSQL server stops and starts again', () => {
  let own: PostgresServer;
  beforeAll(async () => {
    own = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await stopAll();
    await own?.stop();
  }, 60_000);

  it('answers 503 to its health check and to an initiate while the server is down, and 200 by itself once it is back', async () => {
    const url = await createDatabase(own.url, `replicas_health_${process.pid}`);
    const replica = await startReplica('A', url);
    const merchant = newMerchant();
    const auth = await bearer(replica, merchant);
    const initiate = () => api(replica, 'POST', '/payments/initiates', accountPayment({ publicKey: merchant.publicKey, paymentReference: reference('HEALTH') }), auth);
    expect((await initiate()).body.data.code).toBe('20');
    // Observed on a 2-core machine: 503 within 10 ms (the server closes the pool's connections), 200 again within a second (the next probe).
    await own.halt();
    const down = await waitFor('the health check to answer 503', async () => (await replica.control.health()).status === 503, 10_000);
    expect(down, 'ms until the health check answered 503').toBeLessThan(10_000);
    const refused = await initiate();
    expect(refused.status, JSON.stringify(refused.body)).toBe(503);
    await own.resume();
    const up = await waitFor('the health check to answer 200 again', async () => (await replica.control.health()).status === 200, 20_000);
    expect(up, 'ms until the health check answered 200').toBeLessThan(20_000);
    const again = await initiate();
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.data.code).toBe('20');
  }, CASE_WITHIN);
});
