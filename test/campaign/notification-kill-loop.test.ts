import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { accountPayment } from '../support/sandbox.js';
import { banner, EXIT_WITHIN, run, stopAll, within, type Run } from '../support/process.js';
import { SYNC_LEVELS, type SyncLevel } from '../../src/store/store.js';
import { PaymentsApi, send, type Answer } from './support/api.js';
import { knob, seedFrom } from './support/knobs.js';
import { CampaignReceiver, closedPort, type ReceivedEvent } from './support/receiver.js';

/**
 * kill -9 between a payment's change and its notification: payments-sandbox
 * runs as a real process on a data file, with a merchant's notification URL
 * set; payments are completed (ACCOUNT initiate, then validate with OTP
 * 123456, several at once), and the process is killed (SIGKILL) a chosen
 * delay after a chosen number of completions were answered, or of events
 * were received, while deliveries are pending: the receiver is down (the
 * URL names a closed port), slow (it holds each answer, so attempts are in
 * flight), or up. After a restart on the same file, with the receiver up
 * (and, when it was down, the merchant's URL set to it), every payment whose
 * completion was answered, and every payment the store holds as SUCCESSFUL,
 * must reach the receiver as a `transaction` event; the merchant's clock is
 * advanced (control API) so that attempts scheduled later are made at once.
 * The outbox keeps a payment's change and its delivery in one log line
 * (src/domain/commit.ts), so:
 *
 * - right after the restart, each resolved payment has exactly one
 *   `transaction` delivery record, and a PENDING one none (the deliveries
 *   list, paged, its total and the count endpoint agree with the store);
 * - every event received before the kill is the event of a delivery the
 *   store kept: an event whose change the log lost told the merchant of a
 *   payment that, after the restart, never happened;
 * - in the end each delivery is `delivered`, and the receiver got its event
 *   at least once, every copy with the delivery's eventId and
 *   X-Expected-Ack-Reference (duplicates across a crash are allowed: at
 *   least once, never a new eventId);
 * - once delivered, a delivery stays delivered across another kill: two
 *   hours on the clock send none of them again (the payments still PENDING
 *   expire then, and their new `transaction` events are delivered).
 *
 * fast-check chooses the kill points: the receiver's state, the number of
 * payments, how many are completed at once and how fast, what starts the
 * kill's delay (answers or receipts), how many, and the delay. It fits the
 * process model because each run is independent (its own data file,
 * process, merchant and receiver) and bounded in time. The first four runs
 * are fixed examples, so that every level meets a down receiver, a slow one,
 * and, with many completions in flight, a kill the moment the receiver gets
 * its sixth event and one the moment it gets an event for a completion not
 * yet answered. A kill lands wherever the process happens to be, so
 * a run cannot be replayed exactly and shrinking would chase timing: the
 * property stops at the first failure (`endOnFailure`), prints it, and
 * keeps that run's data files. NOTIFY_KILL_RUNS sets the runs per level
 * (default 6); NOTIFY_KILL_SEED replays the choices.
 */

const RUNS = knob('NOTIFY_KILL_RUNS', 6);
/** How long one run (start, payments, kill, restart, deliveries, checks) may take. */
const PER_RUN_MS = 45_000;
/** How long, after the restart, every expected event has to reach the receiver. */
const DELIVERED_WITHIN_MS = 25_000;
/** How long a slow receiver holds its answer: under the 5 s an attempt may take, past the kill. */
const SLOW_MS = 1_500;

type ReceiverState = 'down' | 'slow' | 'up';

/** Where a run kills the process. */
interface KillPoint {
  receiver: ReceiverState;
  /** payments initiated, then completed */
  payments: number;
  /** completions sent at once */
  atOnce: number;
  /**
   * what starts the kill's delay: `killAfter` completions answered, or
   * `killAfter` events received, or the first event received for a
   * completion not yet answered (`early`: its change may not be in the log
   * yet). A down receiver gets no event: the kill then comes once every
   * completion was sent.
   */
  trigger: 'answers' | 'receipts' | 'early';
  /** completions answered, or events received, before the kill's delay starts (at most `payments`) */
  killAfter: number;
  /** milliseconds from then to SIGKILL */
  killDelayMs: number;
  /** milliseconds each of the `atOnce` senders waits between two completions, so that the kill can land among them */
  paceMs: number;
}

/** One delivery as the control API lists it (the fields the checks read). */
interface DeliveryRow {
  id: string;
  paymentReference: string;
  state: string;
  ackReference: string;
  event: { eventType: string; eventId: string };
  dueAt?: string;
  attempts: Array<{ at: string; acknowledged: boolean; status?: number; reason?: string }>;
}

/** What one run saw, for the summary line. */
interface RunFigures {
  answered: number;
  /** events the receiver got before the kill (answered or not) */
  receivedBeforeKill: number;
  successful: number;
  pendingAtRestart: number;
  received: number;
  duplicates: number;
  /** payments still PENDING once everything was delivered, expired two hours on */
  expired: number;
  advances: number;
  ms: number;
}

let dir: string | undefined;
/** A failed run's data files are kept for a look, and their folder named. */
let keepFiles = false;

afterAll(async () => {
  await stopAll();
  if (dir && !keepFiles) await rm(dir, { recursive: true, force: true });
});

const killPoint: fc.Arbitrary<KillPoint> = fc
  .record({
    receiver: fc.constantFrom<ReceiverState>('down', 'slow', 'up'),
    payments: fc.integer({ min: 3, max: 24 }),
    atOnce: fc.integer({ min: 1, max: 24 }),
    trigger: fc.constantFrom<KillPoint['trigger']>('answers', 'receipts', 'early'),
    killAfter: fc.integer({ min: 0, max: 24 }),
    killDelayMs: fc.integer({ min: 0, max: 250 }),
    paceMs: fc.integer({ min: 0, max: 40 }),
  })
  .map((point) => ({ ...point, killAfter: Math.min(point.killAfter, point.payments) }) satisfies KillPoint);

/**
 * The first runs of every level: deliveries pending at the kill because the
 * receiver is down, then because it is slow; then, with the receiver up and
 * many completions in flight, a kill the moment it gets its sixth event,
 * and one the moment it gets an event for a completion not yet answered.
 */
const FIRST_RUNS: KillPoint[] = [
  { receiver: 'down', payments: 12, atOnce: 3, trigger: 'answers', killAfter: 6, killDelayMs: 20, paceMs: 20 },
  { receiver: 'slow', payments: 12, atOnce: 3, trigger: 'answers', killAfter: 4, killDelayMs: 100, paceMs: 10 },
  { receiver: 'up', payments: 24, atOnce: 12, trigger: 'receipts', killAfter: 6, killDelayMs: 0, paceMs: 0 },
  { receiver: 'up', payments: 24, atOnce: 24, trigger: 'early', killAfter: 1, killDelayMs: 0, paceMs: 0 },
];

async function startOn(dataFile: string, sync: SyncLevel): Promise<{ started: Run; origin: string }> {
  const started = run(['--port', '0', '--data', dataFile, '--sync', sync]);
  const shown = await banner(started);
  return { started, origin: shown.origin };
}

/** A control API request that must answer `status`. */
async function control(origin: string, method: string, path: string, status: number, body?: unknown, timeoutMs?: number): Promise<any> {
  const answer = await send(origin, method, `/__sandbox${path}`, { body, timeoutMs });
  if (answer.status !== status) throw new Error(`${method} /__sandbox${path} answered ${answer.status} ${JSON.stringify(answer.body)}, not ${status}`);
  return answer.body;
}

/** Every delivery of the merchant, following `next` to the end, and the list's `total`. */
async function deliveriesOf(origin: string, publicKey: string): Promise<{ rows: DeliveryRow[]; total: number }> {
  const rows: DeliveryRow[] = [];
  let cursor: string | undefined;
  let total = 0;
  do {
    const page = await control(origin, 'GET', `/webhooks/deliveries?publicKey=${encodeURIComponent(publicKey)}&limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, 200);
    rows.push(...page.deliveries);
    total = page.total;
    cursor = page.next;
  } while (cursor);
  return { rows, total };
}

async function countOf(origin: string, publicKey: string): Promise<{ count: number; byState: Record<string, number> }> {
  return control(origin, 'GET', `/webhooks/deliveries/count?publicKey=${encodeURIComponent(publicKey)}`, 200);
}

/** The merchant's payments by paymentReference, with their status. */
async function statuses(api: PaymentsApi): Promise<Map<string, string>> {
  return new Map((await api.payments()).map((payment) => [String(payment.paymentReference), String(payment.status)]));
}

/**
 * The deliveries against the store: exactly one `transaction` delivery per
 * resolved payment (SUCCESSFUL, or EXPIRED once the clock passed its
 * expiry), none for a PENDING one, none for a payment the store does not
 * hold; the list's pages, its total and the count endpoint agreeing.
 * @returns the rows by paymentReference
 */
function expectOneDeliveryPerResolved(stored: Map<string, string>, listed: { rows: DeliveryRow[]; total: number }, counted: { count: number }, when: string): Map<string, DeliveryRow> {
  const byReference = new Map<string, DeliveryRow[]>();
  for (const row of listed.rows) byReference.set(row.paymentReference, [...(byReference.get(row.paymentReference) ?? []), row]);
  const problems: string[] = [];
  for (const [reference, status] of stored) {
    const rows = byReference.get(reference) ?? [];
    if (status !== 'PENDING' && (rows.length !== 1 || rows[0]!.event.eventType !== 'transaction')) {
      problems.push(`${reference} ${status} has ${rows.length} deliveries (${rows.map((row) => `${row.event.eventType} ${row.state}`).join(', ')}), not one transaction`);
    }
    if (status === 'PENDING' && rows.length > 0) problems.push(`${reference} PENDING has ${rows.length} deliveries`);
  }
  for (const reference of byReference.keys()) if (!stored.has(reference)) problems.push(`a delivery for ${reference}, which the store does not hold`);
  const resolved = [...stored.values()].filter((status) => status !== 'PENDING').length;
  if (listed.rows.length !== listed.total) problems.push(`the list gave ${listed.rows.length} rows across its pages but says total ${listed.total}`);
  if (counted.count !== listed.rows.length) problems.push(`the count endpoint says ${counted.count}, the list holds ${listed.rows.length}`);
  if (listed.rows.length !== resolved) problems.push(`${listed.rows.length} deliveries for ${resolved} resolved payments`);
  expect(problems, `deliveries against the store ${when}`).toEqual([]);
  return new Map(listed.rows.map((row) => [row.paymentReference, row]));
}

/** Each received event against the delivery of its payment: same eventType, eventId and X-Expected-Ack-Reference. */
function receivedAgainstDeliveries(received: readonly ReceivedEvent[], deliveries: Map<string, DeliveryRow>, stored: Map<string, string>): string[] {
  const problems: string[] = [];
  for (const event of received) {
    const row = deliveries.get(event.paymentReference);
    if (!row) {
      problems.push(
        `the receiver got ${event.eventType} ${event.eventId} (code ${event.code}) for ${event.paymentReference}, which the store holds as ` +
          `${stored.get(event.paymentReference) ?? 'nothing'} with no delivery: the event went out before its change was in the log`,
      );
    } else if (event.eventId !== row.event.eventId || event.eventType !== row.event.eventType) {
      problems.push(`the receiver got ${event.eventType} ${event.eventId} for ${event.paymentReference}; its delivery holds ${row.event.eventType} ${row.event.eventId}`);
    } else if (event.ackReference !== row.ackReference) {
      problems.push(`the receiver got ${event.eventId} with X-Expected-Ack-Reference ${event.ackReference}; its delivery's is ${row.ackReference}`);
    }
  }
  return problems;
}

/** A delivery in a line: its payment, state, next attempt and attempts. */
function describeDelivery(row: DeliveryRow): string {
  const attempts = row.attempts.map((attempt) => `${attempt.at} ${attempt.acknowledged ? 'acknowledged' : `${attempt.status ?? '-'} ${attempt.reason ?? ''}`}`);
  return `${row.id} ${row.paymentReference} ${row.state}${row.dueAt ? ` due ${row.dueAt}` : ''}; attempts: ${attempts.join(' | ') || 'none'}`;
}

/** Resolves once `ready()` holds, advancing the merchant's clock every second meanwhile; @returns how many advances it took. */
async function deliverAll(origin: string, publicKey: string, ready: () => Promise<string | undefined>): Promise<number> {
  const deadline = Date.now() + DELIVERED_WITHIN_MS;
  let advances = 0;
  for (let poll = 1; ; poll += 1) {
    const missing = await ready();
    if (missing === undefined) return advances;
    if (Date.now() > deadline) throw new Error(`not delivered within ${DELIVERED_WITHIN_MS} ms after the restart: ${missing}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
    // Attempts that failed before or at the restart are due 30 s or 2 min later on the merchant's clock: bring them on.
    if (poll % 4 === 0) {
      await control(origin, 'POST', `/clock/${publicKey}/advance`, 200, { by: 'PT3M' }, 20_000);
      advances += 1;
    }
  }
}

/** One run: payments, a kill at `point`, a restart, every expected event delivered, another kill, nothing sent again. */
async function killBetweenChangeAndDelivery(sync: SyncLevel, point: KillPoint, index: number): Promise<RunFigures> {
  const begun = Date.now();
  dir ??= await mkdtemp(join(tmpdir(), 'payments-sandbox-notify-kill-'));
  const dataFile = join(dir, `sandbox-${sync}-${index}.json`);
  const tag = randomBytes(5).toString('hex');
  const keys = { publicKey: `SBTESTPUBK_nk${tag}`, secretKey: `SBTESTSECK_nk${tag}` };
  const { publicKey } = keys;
  const receiver = await CampaignReceiver.start(point.receiver === 'slow' ? { kind: 'slow', delayMs: SLOW_MS } : { kind: 'acknowledge' });
  try {
    // Before the kill: the merchant's URL, payments initiated (all answered), then completed until the kill.
    const first = await startOn(dataFile, sync);
    const api = await PaymentsApi.as(first.origin, keys);
    const downUrl = `http://127.0.0.1:${await closedPort()}/hook`;
    await control(first.origin, 'PUT', `/webhooks/${publicKey}`, 200, { url: point.receiver === 'down' ? downUrl : receiver.url });
    const linking = new Map<string, string>();
    const unexpected: string[] = [];
    await Promise.all(
      Array.from({ length: point.payments }, async (_, n) => {
        // A letter before the number: ten hex digits that happen to be all digits, then the number, could pass as a card number and be shown masked.
        const reference = `NK-${tag}-n${n}`;
        const answer = await api.initiate(accountPayment({ paymentReference: reference }));
        if (answer.body?.data?.code !== '20') throw new Error(`initiate ${reference} answered ${answer.status} ${JSON.stringify(answer.body)}`);
        linking.set(reference, answer.body.data.payments.linkingReference);
      }),
    );

    const answered = new Set<string>();
    const kill = () => {
      if (first.started.child.exitCode === null && first.started.child.signalCode === null) first.started.child.kill('SIGKILL');
    };
    let armed = false;
    const armKill = () => {
      if (armed) return;
      armed = true;
      if (point.killDelayMs === 0) kill();
      else setTimeout(kill, point.killDelayMs);
    };
    if (point.killAfter === 0 && point.trigger !== 'early') armKill();
    if (point.trigger === 'receipts') {
      receiver.onEvent = () => {
        if (receiver.received.length === point.killAfter) armKill();
      };
    } else if (point.trigger === 'early') {
      receiver.onEvent = (event) => {
        if (!answered.has(event.paymentReference)) armKill();
      };
    }
    const queue = [...linking];
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const [reference, linkingReference] = next;
        const answer: Answer = await api.validate(linkingReference);
        if (answer.status === 0) continue;
        if (answer.body?.data?.code !== '00') {
          unexpected.push(`validate ${reference}: ${answer.status} ${JSON.stringify(answer.body)}`);
          continue;
        }
        answered.add(reference);
        if (point.trigger === 'answers' && answered.size === point.killAfter) armKill();
        if (point.paceMs > 0) await new Promise((resolve) => setTimeout(resolve, point.paceMs));
      }
    };
    await within(Promise.all(Array.from({ length: point.atOnce }, worker)), 20_000, 'the completions before the kill');
    // Every completion answered before the kill's delay ran out: the kill comes when it does.
    armKill();
    const exit = await within(first.started.exited, EXIT_WITHIN + point.killDelayMs, 'the killed sandbox to exit');
    expect(exit.signal).toBe('SIGKILL');
    expect(unexpected, 'completions answered otherwise than 00').toEqual([]);
    receiver.onEvent = undefined;
    const receivedBeforeKill = receiver.received.length;

    // The restart: the receiver up and the URL its own; the outbox as the store kept it.
    receiver.mode = { kind: 'acknowledge' };
    const second = await startOn(dataFile, sync);
    if (point.receiver === 'down') await control(second.origin, 'PUT', `/webhooks/${publicKey}`, 200, { url: receiver.url });
    const api2 = await PaymentsApi.as(second.origin, keys);
    const stored = await statuses(api2);
    const lost = [...answered].filter((reference) => stored.get(reference) !== 'SUCCESSFUL').map((reference) => `${reference}: completion answered, stored ${stored.get(reference) ?? 'nowhere'}`);
    expect(lost, 'answered completions lost by the kill').toEqual([]);
    const atRestart = expectOneDeliveryPerResolved(stored, await deliveriesOf(second.origin, publicKey), await countOf(second.origin, publicKey), 'right after the restart');
    // What went out before the kill must be what the store kept: an event for a change the log does not hold is a notification of something that did not happen.
    expect(receivedAgainstDeliveries(receiver.received.slice(0, receivedBeforeKill), atRestart, stored), 'events received before the kill, against the store after it').toEqual([]);
    const pendingAtRestart = [...atRestart.values()].filter((row) => row.state !== 'delivered').length;
    const expected = [...stored].filter(([, status]) => status === 'SUCCESSFUL').map(([reference]) => reference);

    const advances = await deliverAll(second.origin, publicKey, async () => {
      const got = receiver.byReference();
      const notReceived = expected.filter((reference) => !(got.get(reference) ?? []).some((event) => event.eventType === 'transaction'));
      if (notReceived.length > 0) return `${notReceived.length} of ${expected.length} events not received (${notReceived.slice(0, 5).join(', ')})`;
      const { count, byState } = await countOf(second.origin, publicKey);
      if (byState.delivered !== count) return `received, but the count says ${JSON.stringify(byState)}`;
      return undefined;
    });

    // Everything delivered: each received copy is its delivery's event, and every delivery acknowledged.
    const delivered = await statuses(api2);
    const changed = expected.filter((reference) => delivered.get(reference) !== 'SUCCESSFUL');
    expect(changed, 'SUCCESSFUL payments that changed while delivering').toEqual([]);
    const final = expectOneDeliveryPerResolved(delivered, await deliveriesOf(second.origin, publicKey), await countOf(second.origin, publicKey), 'once delivered');
    const problems = receivedAgainstDeliveries(receiver.received, final, delivered);
    for (const row of final.values()) {
      if (row.state !== 'delivered' || !row.attempts.some((attempt) => attempt.acknowledged)) problems.push(`not delivered: ${describeDelivery(row)}`);
    }
    expect(problems, 'received events against their deliveries, once delivered').toEqual([]);
    expect(receiver.malformed, 'bodies that were not notifications').toEqual([]);

    // Delivered stays delivered: another kill, a restart, two hours on the clock, and nothing is sent again.
    // The lists show a delivery's state once it is put in memory, before the log holds it (a flush round
    // later, an fdatasync at --sync full): a write answered now comes after it in the log, so once it is
    // answered the log holds every `delivered` seen above. Without it a kill may still take a `delivered`
    // back, and the event is sent again (at least once: allowed, but not what this step checks).
    await control(second.origin, 'PUT', `/webhooks/${publicKey}`, 200, { url: receiver.url });
    second.started.child.kill('SIGKILL');
    await within(second.started.exited, EXIT_WITHIN, 'the killed sandbox to exit');
    const receivedBefore = receiver.received.length;
    const third = await startOn(dataFile, sync);
    const undone = (await deliveriesOf(third.origin, publicKey)).rows.filter((row) => row.state !== 'delivered');
    expect(undone.map(describeDelivery), 'deliveries no longer delivered after a restart').toEqual([]);
    // Two hours on: the payments still PENDING expire (a `transaction` event each, delivered during the advance); nothing delivered goes again.
    const deliveredIds = new Set([...final.values()].map((row) => row.id));
    const deliveredEvents = new Set([...final.values()].map((row) => row.event.eventId));
    const advanced = await control(third.origin, 'POST', `/clock/${publicKey}/advance`, 200, { by: 'PT2H' }, 20_000);
    const again = (advanced.fired as Array<{ kind: string; deliveryId?: string; paymentReference: string }>).filter((fired) => fired.kind === 'delivery' && deliveredIds.has(fired.deliveryId!));
    expect(again, 'deliveries attempted again after they were delivered').toEqual([]);
    const after = receiver.received.slice(receivedBefore);
    expect(after.filter((event) => deliveredEvents.has(event.eventId)), 'events sent again after a restart once delivered').toEqual([]);
    const expired = await statuses(await PaymentsApi.as(third.origin, keys));
    const wasPending = [...delivered].filter(([, status]) => status === 'PENDING').map(([reference]) => reference);
    expect(wasPending.filter((reference) => expired.get(reference) !== 'EXPIRED'), 'PENDING payments not EXPIRED two hours on').toEqual([]);
    const end = expectOneDeliveryPerResolved(expired, await deliveriesOf(third.origin, publicKey), await countOf(third.origin, publicKey), 'two hours on');
    expect(receivedAgainstDeliveries(after, end, expired), 'events of the expiries against their deliveries').toEqual([]);
    expect(await countOf(third.origin, publicKey)).toEqual({ count: point.payments, byState: { scheduled: 0, held: 0, delivered: point.payments, undelivered: 0, withheld: 0 } });
    third.started.child.kill('SIGKILL');
    await within(third.started.exited, EXIT_WITHIN, 'the killed sandbox to exit');

    const distinct = new Set(receiver.received.map((event) => event.eventId)).size;
    return {
      answered: answered.size, receivedBeforeKill, successful: expected.length, pendingAtRestart, received: receiver.received.length,
      duplicates: receiver.received.length - distinct, expired: wasPending.length, advances, ms: Date.now() - begun,
    };
  } finally {
    await stopAll();
    await receiver.close();
  }
}

describe.each(SYNC_LEVELS)(`payments-sandbox --sync %s killed with SIGKILL between a change and its notification, ${RUNS} times`, (sync) => {
  it('delivers every answered or stored success after the restart, at least once, with its own eventId', { timeout: RUNS * PER_RUN_MS + 30_000 }, async () => {
    const seed = seedFrom('NOTIFY_KILL_SEED', `notification kill -9 ${sync}`);
    const lines: string[] = [];
    let index = 0;
    await fc.assert(
      fc.asyncProperty(killPoint, async (point) => {
        index += 1;
        const figures = await within(killBetweenChangeAndDelivery(sync, point, index), PER_RUN_MS, `run ${index} (${JSON.stringify(point)})`).catch((error: unknown) => {
          keepFiles = true;
          console.log(`notification kill -9, --sync ${sync}, run ${index} ${JSON.stringify(point)} failed; its files: ${join(dir!, `sandbox-${sync}-${index}.json`)}*`);
          throw error;
        });
        lines.push(
          `  run ${index} ${JSON.stringify(point)}: ${figures.answered} completions answered, ${figures.successful} SUCCESSFUL, ` +
            `${figures.receivedBeforeKill} events received before the kill, ${figures.pendingAtRestart} deliveries not delivered at the restart, ` +
            `${figures.received} events received in all (${figures.duplicates} duplicates), ${figures.expired} expired two hours on, ` +
            `${figures.advances} clock advances, ${(figures.ms / 1000).toFixed(1)} s`,
        );
      }),
      { numRuns: Math.max(RUNS, 1), seed, examples: FIRST_RUNS.slice(0, RUNS).map((point) => [point] as [KillPoint]), endOnFailure: true },
    );
    console.log(`notification kill -9, --sync ${sync}: ${index} runs\n${lines.join('\n')}`);
    expect(index).toBe(RUNS);
  });
});
