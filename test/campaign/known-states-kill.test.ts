import { createHash } from 'node:crypto';
import { appendFile, mkdtemp, rm, stat, truncate } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { SYNC_LEVELS } from '../../src/store/store.js';
import { EXIT_WITHIN, stopAll, within, type Run } from '../support/process.js';
import { accountPayment, cardPayment, listeningSandbox, order } from '../support/sandbox.js';
import { PaymentsApi, send } from './support/api.js';
import { basic } from './support/fuzz-context.js';
import { knob, seededRandom, seedFrom } from './support/knobs.js';
import { sandboxOnFile } from './support/preauth.js';
import { CampaignReceiver } from './support/receiver.js';

/**
 * kill -9 and the known states (docs/known-states.md: "A snapshot and a
 * fixtures load are changes like any other: once acknowledged, they survive
 * a `kill -9` whole"; docs/decisions.md#d78-snapshot-document: a load is one
 * line of the log). payments-sandbox runs as a real process on a data file,
 * at both durability levels:
 * - a snapshot loaded (PUT /__sandbox/snapshot answered 200), the process
 *   killed at once: after the restart GET /__sandbox/snapshot answers the
 *   snapshot loaded, but its `takenAt`, and without its overrides and faults
 *   (kept in memory only: lost on a restart, as documented);
 * - a large snapshot put in place of another, the process killed once the
 *   body is sent, at a drawn moment of the load or just after its answer: after the restart
 *   the state is the whole old snapshot or the whole new one, never a mix
 *   (an answered load: the new one). Some of these kills also leave the log
 *   cut inside the load's line, as a crash in the middle of its append would:
 *   the old state whole;
 * - fixtures loaded (POST /__sandbox/fixtures answered 200), the process
 *   killed at once: after the restart every payment and order the fixtures
 *   made is there, in the state the steps left it, and loading the document
 *   again finds it loaded.
 * KNOWN_STATES_KILL_RUNS sets the kills of each part per level (default 3);
 * KNOWN_STATES_KILL_PAYMENTS the payments of each large snapshot (20 000);
 * KNOWN_STATES_KILL_SEED replays a run.
 */

const KILLS = knob('KNOWN_STATES_KILL_RUNS', 3);
const LARGE = knob('KNOWN_STATES_KILL_PAYMENTS', 20_000);
const PER_KILL_MS = 30_000;
const TABLES = ['merchants', 'payments', 'orders', 'webhooks', 'clocks', 'deliveries'] as const;

type Snapshot = Record<string, any>;

/** The merchant of the source state, and a second one the large "new" snapshot adds. */
const MERCHANT = { publicKey: 'SBTESTPUBK_knownkill0001', secretKey: 'SBTESTSECK_knownkill0001' };
const SECOND = { publicKey: 'SBTESTPUBK_knownkill0002', secretKey: 'SBTESTSECK_knownkill0002' };

let dir: string | undefined;
let receiver: CampaignReceiver | undefined;
let source: Sandbox | undefined;
/** GET /__sandbox/snapshot of the source state: every kind of record, overrides and faults */
let taken: Snapshot;

afterAll(async () => {
  await stopAll();
  await source?.close();
  await receiver?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * A fixtures document of `keys`' merchant whose references end in `tag`: a
 * card payment completed by its OTP and partly refunded, an account payment
 * left pending, an order (a pending payment of its own).
 * @returns the document and what each payment must be once it is loaded
 */
function fixtures(keys: { publicKey: string; secretKey: string }, tag: string) {
  const card = `KSK-CARD-${tag}`;
  const account = `KSK-ACC-${tag}`;
  const ordered = `KSK-ORD-${tag}`;
  const document = {
    version: 1,
    merchant: keys,
    steps: [
      { id: 'card', api: { method: 'POST', path: '/payments/initiates', body: { publicKey: keys.publicKey, ...cardPayment({ paymentReference: card }) } }, expect: { code: 'S20' } },
      { api: { method: 'POST', path: '/payments/validate', body: { linkingReference: '${card.data.payments.linkingReference}', otp: '123456' } }, expect: { code: '00' } },
      {
        api: { method: 'POST', path: '/payments/refund', headers: { authorization: basic(keys) }, body: { publicKey: keys.publicKey, paymentReference: card, amount: '500.00', currency: 'NGN', country: 'NG' } },
        expect: { code: '00' },
      },
      { api: { method: 'POST', path: '/payments/initiates', body: { publicKey: keys.publicKey, ...accountPayment({ paymentReference: account }) } } },
      { api: { method: 'POST', path: '/payments/order', body: { publicKey: keys.publicKey, ...order({ paymentReference: ordered }) } }, expect: { code: '00' } },
    ],
  };
  const payments = {
    [card]: { status: 'SUCCESSFUL', amount: '1500.00', refundedAmount: '500.00' },
    [account]: { status: 'PENDING', amount: '150.00', refundedAmount: '0.00' },
    // An order is a payment too, pending until paid.
    [ordered]: { status: 'PENDING', amount: '4500.00', refundedAmount: '0.00' },
  };
  return { document, payments, orders: [ordered] };
}

/** GET /__sandbox/snapshot, parsed. */
async function snapshotOf(origin: string): Promise<Snapshot> {
  const answer = await send(origin, 'GET', '/__sandbox/snapshot', { timeoutMs: PER_KILL_MS });
  expect(answer.status, `GET /__sandbox/snapshot: ${JSON.stringify(answer.body)?.slice(0, 300)}`).toBe(200);
  return answer.body;
}

/** The state's records (the six lists), without `takenAt`, overrides and faults. */
const recordsOf = (snapshot: Snapshot): Snapshot => Object.fromEntries(TABLES.map((table) => [table, snapshot[table]]));

/** A digest of each list of a snapshot, to tell large states apart without a diff of megabytes. */
const digests = (snapshot: Snapshot): Record<string, string> =>
  Object.fromEntries(TABLES.map((table) => [table, createHash('sha256').update(JSON.stringify(snapshot[table])).digest('hex').slice(0, 16)]));

const hex = (text: string, length: number): string => createHash('sha256').update(text).digest('hex').slice(0, length);

/**
 * A large state made from the source's: `count` copies of its completed card
 * payment under references `<prefix>-<i>` (each with its own linkingReference;
 * no card token, as a snapshot never has one), the source's merchant with its clock `clockDays` ahead;
 * with `second`, another merchant with 100 payments of its own and the
 * source's orders. No deliveries, notification URLs, overrides or faults: nothing due after a restart.
 */
function largeState(prefix: string, count: number, clockDays: number, second: boolean): Snapshot {
  const template = taken.payments.find((payment: any) => payment.method === 'CARD' && payment.status === 'SUCCESSFUL');
  const merchant = taken.merchants.find((one: any) => one.publicKey === MERCHANT.publicKey);
  const copy = (publicKey: string, reference: string) => ({
    ...template,
    publicKey,
    paymentReference: reference,
    linkingReference: `SBLNK_${hex(`${publicKey}:${reference}`, 20)}`,
  });
  const payments = Array.from({ length: count }, (_, index) => copy(MERCHANT.publicKey, `${prefix}-${index}`));
  const merchants = [merchant];
  const clocks = [{ publicKey: MERCHANT.publicKey, offsetMs: clockDays * 86_400_000 }];
  if (second) {
    merchants.push({ ...merchant, ...SECOND });
    payments.push(...Array.from({ length: 100 }, (_, index) => copy(SECOND.publicKey, `${prefix}-SECOND-${index}`)));
  }
  return { version: 3, merchants, payments, orders: second ? taken.orders : [], webhooks: [], clocks, deliveries: [] };
}

/** What a PUT sent piece by piece shows: when its body was all handed to the socket, and its answer (status 0: none). */
interface PutInFlight {
  sent: Promise<void>;
  answer: Promise<{ status: number; text: string }>;
}

/** PUT /__sandbox/snapshot with `body`, over node:http, to see the moment the body is sent. */
function putSnapshot(origin: string, body: Buffer): PutInFlight {
  let sentDone!: () => void;
  const sent = new Promise<void>((resolve) => (sentDone = resolve));
  const answer = new Promise<{ status: number; text: string }>((resolve) => {
    const req = request(`${origin}/__sandbox/snapshot`, { method: 'PUT', agent: false, headers: { 'content-type': 'application/json', 'content-length': body.length }, timeout: PER_KILL_MS });
    req.once('timeout', () => req.destroy());
    req.once('error', () => {
      sentDone();
      resolve({ status: 0, text: '' });
    });
    req.once('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.once('error', () => resolve({ status: 0, text }));
    });
    req.end(body, () => sentDone());
  });
  return { sent, answer };
}

/** Kills the process (SIGKILL) and waits until it is gone. */
async function kill(started: Run): Promise<void> {
  started.child.kill('SIGKILL');
  const exit = await within(started.exited, EXIT_WITHIN, 'the killed sandbox to exit');
  expect(exit.signal).toBe('SIGKILL');
}

const sizeOf = (path: string): Promise<number> => stat(path).then((found) => found.size, () => 0);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payments-sandbox-known-states-kill-'));
  // The source state, made by real requests: fixtures, a notification URL whose receiver acknowledged every event,
  // a clock moved, an override and a notification fault in force.
  receiver = await CampaignReceiver.start();
  source = await listeningSandbox();
  const origin = new URL(source.url).origin;
  // A notification URL is kept for a merchant the sandbox knows only: its keys are exchanged first.
  expect((await send(origin, 'POST', '/api/v2/encrypt/keys', { body: { key: `${MERCHANT.secretKey}.${MERCHANT.publicKey}` } })).status).toBe(200);
  expect((await send(origin, 'PUT', `/__sandbox/webhooks/${MERCHANT.publicKey}`, { body: { url: receiver.url } })).status).toBe(200);
  const loaded = await send(origin, 'POST', '/__sandbox/fixtures', { body: fixtures(MERCHANT, 'SOURCE').document });
  expect(loaded.status, JSON.stringify(loaded.body)).toBe(200);
  expect((await send(origin, 'POST', `/__sandbox/clock/${MERCHANT.publicKey}/advance`, { body: { by: 'PT1H' } })).status).toBe(200);
  expect((await send(origin, 'POST', '/__sandbox/overrides', { body: { scenario: 'card-declined', publicKey: MERCHANT.publicKey, times: 2 } })).status).toBe(201);
  expect((await send(origin, 'POST', `/__sandbox/webhooks/${MERCHANT.publicKey}/faults`, { body: { kind: 'duplicate', times: 1 } })).status).toBe(201);
  for (let tries = 0; ; tries += 1) {
    taken = await snapshotOf(origin);
    if (taken.deliveries.length > 0 && taken.deliveries.every((delivery: any) => delivery.state === 'delivered')) break;
    if (tries > 100) throw new Error(`the source's deliveries were not all delivered: ${JSON.stringify(taken.deliveries)}`);
    await sleep(50);
  }
  for (const table of TABLES) expect(taken[table].length, `the source state's ${table}`).toBeGreaterThan(0);
  expect(taken.overrides).toHaveLength(1);
  expect(taken.faults).toHaveLength(1);
}, 60_000);

describe.each(SYNC_LEVELS)(`payments-sandbox --sync %s killed with SIGKILL around snapshot and fixtures loads`, (sync) => {
  it('keeps a snapshot load answered 200, whole, but its overrides and faults', { timeout: KILLS * PER_KILL_MS }, async () => {
    for (let round = 1; round <= KILLS; round += 1) {
      const dataFile = join(dir!, `answered-${sync}-${round}.json`);
      let { started, origin } = await sandboxOnFile(dataFile, sync);
      // Something to replace: a merchant and a payment of another state.
      const api = await PaymentsApi.as(origin);
      expect((await api.initiate(accountPayment())).status).toBe(200);
      const loaded = await send(origin, 'PUT', '/__sandbox/snapshot', { body: taken, timeoutMs: PER_KILL_MS });
      await kill(started);
      expect([loaded.status, loaded.body], `PUT /__sandbox/snapshot of round ${round}`).toEqual([200, { loaded: 'all', payments: taken.payments.length }]);

      ({ started, origin } = await sandboxOnFile(dataFile, sync));
      const after = await snapshotOf(origin);
      expect(recordsOf(after), `the state after kill -9 ${round}`).toEqual(recordsOf(taken));
      expect([after.overrides, after.faults], 'overrides and faults live in memory only').toEqual([[], []]);
      await kill(started);
    }
  });

  it('keeps the whole old state or the whole new one when killed in the middle of a large snapshot load', { timeout: (KILLS + 2) * PER_KILL_MS }, async () => {
    const seed = seedFrom('KNOWN_STATES_KILL_SEED', `snapshot load kill -9 ${sync}`);
    const random = seededRandom(seed);
    const states = { old: largeState('KSK-OLD', LARGE, 1, false), new: largeState('KSK-NEW', LARGE, 2, true) };
    const bodies = { old: Buffer.from(JSON.stringify(states.old)), new: Buffer.from(JSON.stringify(states.new)) };
    const prints = { old: JSON.stringify(digests(states.old)), new: JSON.stringify(digests(states.new)) };
    const dataFile = join(dir!, `middle-${sync}.json`);
    const wal = `${dataFile}.wal`;

    // The old state, loaded and answered: the time its load takes sets when the kills fall.
    let { started, origin } = await sandboxOnFile(dataFile, sync);
    const first = putSnapshot(origin, bodies.old);
    await first.sent;
    const sentAt = performance.now();
    const answer = await first.answer;
    const loadMs = performance.now() - sentAt;
    expect(answer.status, answer.text.slice(0, 300)).toBe(200);
    let current: 'old' | 'new' = 'old';
    const outcomes: string[] = [];

    for (let round = 1; round <= KILLS; round += 1) {
      const next = current === 'old' ? 'new' : 'old';
      const walBefore = await sizeOf(wal);
      const put = putSnapshot(origin, bodies[next]);
      let answered = false;
      void put.answer.then((got) => (answered = got.status !== 0));
      await put.sent;
      // The first kill falls early in the load; the others anywhere in it or just after its answer.
      await sleep(Math.floor(random() * loadMs * (round === 1 ? 0.5 : 1.5)));
      await kill(started);
      const got = await put.answer;
      if (answered) expect(got.status, got.text.slice(0, 300)).toBe(200);

      // Unanswered: now and then, the log as a crash in the middle of the load's append leaves it.
      let torn = false;
      if (!answered && (round === 1 || random() < 0.5)) {
        const walNow = await sizeOf(wal);
        if (walNow > walBefore + 1) await truncate(wal, walBefore + 1 + Math.floor(random() * (walNow - walBefore - 1)));
        else {
          const line = JSON.stringify({ kind: 'replace', records: recordsOf(states[next]) });
          await appendFile(wal, line.slice(0, 1 + Math.floor(random() * (line.length - 1))));
        }
        torn = true;
      }

      ({ started, origin } = await sandboxOnFile(dataFile, sync));
      const after = JSON.stringify(digests(await snapshotOf(origin)));
      const found = after === prints.old ? 'old' : after === prints.new ? 'new' : undefined;
      expect(found, `after kill ${round} (${answered ? 'answered' : torn ? 'unanswered, the log torn' : 'unanswered'}): the lists' digests ${after}, old ${prints.old}, new ${prints.new}`).toBeDefined();
      if (answered) expect(found, `an answered load, killed after its answer (round ${round})`).toBe(next);
      if (torn) expect(found, `the log torn inside the load's line (round ${round})`).toBe(current);
      outcomes.push(`${answered ? 'answered' : torn ? 'torn' : 'unanswered'}:${current}->${found}`);
      current = found!;
    }
    await kill(started);
    console.log(`snapshot load kill -9, --sync ${sync}: ${LARGE} payments a state (${(bodies.old.length / 2 ** 20).toFixed(1)} MB), a load answered in ${loadMs.toFixed(0)} ms; ${outcomes.join(', ')}`);
    expect(outcomes.some((outcome) => !outcome.startsWith('answered')), 'kills before the answer').toBe(true);
  });

  it('keeps every payment and order of a fixtures load answered 200', { timeout: (KILLS + 1) * PER_KILL_MS }, async () => {
    const dataFile = join(dir!, `fixtures-${sync}.json`);
    const expected = new Map<string, { status: string; amount: string; refundedAmount: string }>();
    const orders: string[] = [];
    const documents: unknown[] = [];
    let { started, origin } = await sandboxOnFile(dataFile, sync);
    for (let round = 1; round <= KILLS; round += 1) {
      const made = fixtures(MERCHANT, `${sync}-${round}`);
      const loaded = await send(origin, 'POST', '/__sandbox/fixtures', { body: made.document, timeoutMs: PER_KILL_MS });
      await kill(started);
      expect([loaded.status, loaded.body?.loaded], `POST /__sandbox/fixtures of round ${round}: ${JSON.stringify(loaded.body)}`).toEqual([200, true]);
      for (const [reference, payment] of Object.entries(made.payments)) expected.set(reference, payment);
      orders.push(...made.orders);
      documents.push(made.document);

      ({ started, origin } = await sandboxOnFile(dataFile, sync));
      const after = await snapshotOf(origin);
      const stored = after.payments.filter((payment: any) => payment.publicKey === MERCHANT.publicKey);
      expect(
        Object.fromEntries(stored.map((payment: any) => [payment.paymentReference, { status: payment.status, amount: payment.amount, refundedAmount: payment.refundedAmount }])),
        `the payments after kill -9 ${round}`,
      ).toEqual(Object.fromEntries(expected));
      expect(after.orders.map((one: any) => one.paymentReference).sort(), `the orders after kill -9 ${round}`).toEqual([...orders].sort());
    }
    // Each document is found loaded: nothing is made twice.
    for (const document of documents) {
      const again = await send(origin, 'POST', '/__sandbox/fixtures', { body: document, timeoutMs: PER_KILL_MS });
      expect([again.status, again.body?.alreadyLoaded], JSON.stringify(again.body)).toEqual([200, true]);
    }
    expect((await snapshotOf(origin)).payments).toHaveLength(expected.size);
    await kill(started);
  });
});
