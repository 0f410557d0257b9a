import { afterAll, describe, expect, it } from 'vitest';
import { accountPayment } from '../support/sandbox.js';
import { banner, rssMb, run, stopAll } from '../support/process.js';
import { PaymentsApi, send } from './support/api.js';
import { knob } from './support/knobs.js';
import { closedPort } from './support/receiver.js';

/**
 * A flood of notifications to a dead receiver: payments-sandbox runs as a
 * real process, in memory, with every merchant's notification URL
 * (`--webhook-url`) on a port of 127.0.0.1 that nothing listens on. A few
 * thousand payments are completed (ACCOUNT initiate, then validate with OTP
 * 123456), each a `transaction` event whose first attempt fails at once;
 * then the merchant's clock is advanced (control API) so that every retry
 * of the schedule is made and fails: one minute on (the 30 s retry), then
 * two hours on (the 2, 10 and 30 minute and 1 hour retries), after which
 * each delivery is `undelivered`. Meanwhile:
 *
 * - the resident memory of the process (VmRSS in /proc/<pid>/status) stays
 *   under RSS_LIMIT_MB, and grows by at most GROWTH_KB_PER_EVENT per event
 *   between N and 2N events (each delivery record is kept, as a payment is:
 *   the growth must be that of a record, not of a socket, a timer or a
 *   queue per event), and no more once every delivery is undelivered;
 * - the count endpoint says every delivery is `scheduled` or `undelivered`,
 *   none lost, none delivered, and the list (paged) holds one per payment;
 * - the sandbox keeps answering: a health check every 250 ms, and a payment
 *   query during the clock's advance, each within ANSWER_WITHIN_MS.
 *
 * The heap is capped (NODE_OPTIONS --max-old-space-size=NOTIFY_FLOOD_HEAP_MB,
 * default 128, and --max-semi-space-size=2): the sandbox keeps some 40 MB
 * of JavaScript objects at the end (4000 payments and deliveries of six
 * attempts each, and its journal), and uncapped, V8 lets the heap grow far
 * past what it keeps before it collects, so that the resident memory shows
 * the collector's pace (one run with V8's defaults: 8.9 KB per event, 207 MB
 * at the end) more than what is kept (about 3 KB per event, measured with
 * gc() in a sandbox in a test's process). Under the cap a leak shows as
 * growth, or as the process dying of it. A large NOTIFY_FLOOD_HEAP_MB
 * (4096) leaves it practically uncapped. NOTIFY_FLOOD_EVENTS sets the
 * number of payments completed (default 4000).
 */

const EVENTS = knob('NOTIFY_FLOOD_EVENTS', 4000);
const HEAP_MB = knob('NOTIFY_FLOOD_HEAP_MB', 128);
const RSS_LIMIT_MB = 300;
/** Growth per event between N and 2N events: a payment and its delivery record, with room for the collector's timing. */
const GROWTH_KB_PER_EVENT = 8;
/** Growth allowed once every delivery is undelivered, while the clock moves on and nothing is due. */
const IDLE_GROWTH_MB = 10;
const ANSWER_WITHIN_MS = 1_000;
/** Payments completed at once. */
const AT_ONCE = 8;
/** How often the health check is asked and the memory read. */
const PROBE_EVERY_MS = 250;
/** Attempts of a delivery on the `current` schedule: the first, then after 30 s, 2 min, 10 min, 30 min and 1 h. */
const ATTEMPTS = 6;

afterAll(async () => {
  await stopAll();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.runIf(process.platform === 'linux')(`${EVENTS} notifications to a receiver that is down`, () => {
  it(`keep the process under ${RSS_LIMIT_MB} MB, growing a few KB per event, lose none and keep the API answering`, { timeout: 60_000 + EVENTS * 15 }, async () => {
    const port = await closedPort();
    const capped = { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --max-old-space-size=${HEAP_MB} --max-semi-space-size=2`.trim() };
    const started = run(['--port', '0', '--in-memory', '--webhook-url', `http://127.0.0.1:${port}/hook`], { env: capped });
    const shown = await banner(started);
    expect(new URL(shown.origin).port, 'the sandbox got the port meant to be closed').not.toBe(String(port));
    const pid = started.child.pid!;
    const api = await PaymentsApi.as(shown.origin);
    const { publicKey } = api.merchant;
    const rssAtStart = await rssMb(pid);

    // The health check and the memory, every PROBE_EVERY_MS until the end.
    let probing = true;
    let highest = rssAtStart;
    const health = { asked: 0, worstMs: 0, late: [] as string[] };
    const prober = (async () => {
      while (probing) {
        const asked = performance.now();
        const answer = await send(shown.origin, 'GET', '/__sandbox/health', { timeoutMs: 10_000 });
        const ms = performance.now() - asked;
        health.asked += 1;
        health.worstMs = Math.max(health.worstMs, ms);
        if (answer.status !== 200 || ms > ANSWER_WITHIN_MS) health.late.push(`${answer.status} in ${ms.toFixed(0)} ms`);
        if (started.child.exitCode === null && started.child.signalCode === null) highest = Math.max(highest, await rssMb(pid));
        await sleep(PROBE_EVERY_MS);
      }
    })();

    // Completes payments `from` to `to` (exclusive), AT_ONCE at a time; each makes one `transaction` event.
    const refused: string[] = [];
    const complete = async (from: number, to: number) => {
      let next = from;
      const worker = async () => {
        while (next < to && refused.length === 0) {
          const reference = `FLOOD-${next++}`;
          const initiated = await api.initiate(accountPayment({ paymentReference: reference }));
          if (initiated.body?.data?.code !== '20') return void refused.push(`initiate ${reference}: ${initiated.status} ${JSON.stringify(initiated.body)}`);
          const validated = await api.validate(initiated.body.data.payments.linkingReference);
          if (validated.body?.data?.code !== '00') return void refused.push(`validate ${reference}: ${validated.status} ${JSON.stringify(validated.body)}`);
        }
      };
      await Promise.all(Array.from({ length: AT_ONCE }, worker));
    };
    const half = Math.floor(EVENTS / 2);
    const floodStarted = Date.now();
    await complete(0, half);
    await sleep(500);
    const rssAtHalf = await rssMb(pid);
    await complete(half, EVENTS);
    await sleep(500);
    const rssAtAll = await rssMb(pid);
    const floodMs = Date.now() - floodStarted;
    expect(refused, 'payments the flood could not complete').toEqual([]);

    const count = async () => (await send(shown.origin, 'GET', `/__sandbox/webhooks/deliveries/count?publicKey=${publicKey}`)).body;
    const afterFlood = await count();
    expect(afterFlood.count, 'deliveries after the flood').toBe(EVENTS);
    expect(afterFlood.byState.scheduled + afterFlood.byState.undelivered, `deliveries scheduled or undelivered: ${JSON.stringify(afterFlood.byState)}`).toBe(EVENTS);

    // Every delivery, paged, with its attempts.
    const deliveryRows = async () => {
      const rows: Array<{ id: string; paymentReference: string; state: string; attempts: Array<{ acknowledged: boolean }> }> = [];
      let cursor: string | undefined;
      do {
        const page = await send(shown.origin, 'GET', `/__sandbox/webhooks/deliveries?publicKey=${publicKey}&limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { timeoutMs: 30_000 });
        expect(page.status).toBe(200);
        rows.push(...page.body.deliveries);
        cursor = page.body.next;
      } while (cursor);
      return rows;
    };
    // The first attempts are made in the background, a few at a time: on a busy machine some are still to come when the
    // flood ends. A delivery's 30 s retry is counted from its first attempt, so the clock moves on once every one was made.
    const firstAttemptsBy = Date.now() + 60_000;
    let waiting = (await deliveryRows()).filter((row) => row.attempts.length === 0).length;
    while (waiting > 0 && Date.now() < firstAttemptsBy) {
      await sleep(PROBE_EVERY_MS);
      waiting = (await deliveryRows()).filter((row) => row.attempts.length === 0).length;
    }
    expect(waiting, 'deliveries whose first attempt was not made within 60 s of the flood').toBe(0);

    // The retries: one minute on, every delivery's 30 s retry; two hours on, the rest of its schedule.
    const advance = async (by: string) => {
      const asked = Date.now();
      const answer = await send(shown.origin, 'POST', `/__sandbox/clock/${publicKey}/advance`, { body: { by }, timeoutMs: 120_000 });
      expect(answer.status, `advance ${by}: ${JSON.stringify(answer.body).slice(0, 300)}`).toBe(200);
      const fired = (answer.body.fired as Array<{ kind: string }>).filter((item) => item.kind === 'delivery').length;
      return { fired, ms: Date.now() - asked };
    };
    const oneMinute = await advance('PT1M');
    expect(oneMinute.fired, 'attempts one minute on').toBe(EVENTS);
    const afterMinute = await count();
    expect(afterMinute).toEqual({ count: EVENTS, byState: { scheduled: EVENTS, held: 0, delivered: 0, undelivered: 0, withheld: 0 } });
    const rssAfterMinute = await rssMb(pid);

    // During the long advance, a merchant's request must still be answered at once.
    const queries: number[] = [];
    let advancing = true;
    const querying = (async () => {
      await sleep(200);
      while (advancing) {
        const asked = performance.now();
        const answer = await api.query(`FLOOD-${queries.length % EVENTS}`);
        queries.push(answer.status === 200 ? performance.now() - asked : Number.POSITIVE_INFINITY);
        await sleep(PROBE_EVERY_MS);
      }
    })();
    const twoHours = await advance('PT2H');
    advancing = false;
    await querying;
    expect(twoHours.fired, 'attempts two hours on').toBe(EVENTS * (ATTEMPTS - 2));
    expect(await count(), 'every delivery undelivered').toEqual({ count: EVENTS, byState: { scheduled: 0, held: 0, delivered: 0, undelivered: EVENTS, withheld: 0 } });
    await sleep(500);
    const rssUndelivered = await rssMb(pid);

    // Nothing is due any more: a day on fires nothing, and the memory stays where it is.
    const day = await advance('P1D');
    expect(day.fired, 'attempts once every delivery is undelivered').toBe(0);
    await sleep(2_000);
    const rssIdle = await rssMb(pid);
    probing = false;
    await prober;

    // None lost: the list, paged, holds one undelivered delivery per payment, each with its every attempt.
    const rows = await deliveryRows();
    expect(rows.length).toBe(EVENTS);
    expect(new Set(rows.map((row) => row.paymentReference)).size, 'payments with a delivery').toBe(EVENTS);
    const odd = rows.filter((row) => row.state !== 'undelivered' || row.attempts.length !== ATTEMPTS || row.attempts.some((attempt) => attempt.acknowledged));
    expect(odd.slice(0, 3), `${odd.length} deliveries not undelivered after ${ATTEMPTS} failed attempts`).toEqual([]);

    const growthKb = ((rssAtAll - rssAtHalf) * 1024) / (EVENTS - half);
    const worstQuery = Math.max(0, ...queries);
    console.log(
      `notification flood (heap capped at ${HEAP_MB} MB): ${EVENTS} payments completed in ${(floodMs / 1000).toFixed(1)} s; ` +
        `advance PT1M ${oneMinute.fired} attempts in ${(oneMinute.ms / 1000).toFixed(1)} s, PT2H ${twoHours.fired} attempts in ${(twoHours.ms / 1000).toFixed(1)} s; ` +
        `RSS ${rssAtStart.toFixed(0)} MB at start, ${rssAtHalf.toFixed(1)} MB after ${half} events, ${rssAtAll.toFixed(1)} MB after ${EVENTS} (${growthKb.toFixed(1)} KB per event), ` +
        `${rssAfterMinute.toFixed(1)} MB after the 30 s retries, ${rssUndelivered.toFixed(1)} MB with all undelivered, ${rssIdle.toFixed(1)} MB a day on, highest ${highest.toFixed(1)} MB; ` +
        `${health.asked} health checks, the slowest ${health.worstMs.toFixed(0)} ms; ${queries.length} payment queries during the PT2H advance, the slowest ${worstQuery.toFixed(0)} ms`,
    );

    expect({ code: started.child.exitCode, signal: started.child.signalCode }, `the sandbox exited: ${started.stderr().slice(-2000)}`).toEqual({ code: null, signal: null });
    expect(highest, 'highest RSS in MB').toBeLessThan(RSS_LIMIT_MB);
    expect(growthKb, `RSS growth per event between ${half} and ${EVENTS} events, in KB`).toBeLessThan(GROWTH_KB_PER_EVENT);
    expect(rssIdle - rssUndelivered, 'RSS growth in MB once every delivery is undelivered').toBeLessThan(IDLE_GROWTH_MB);
    expect(health.late, `health checks not answered 200 within ${ANSWER_WITHIN_MS} ms`).toEqual([]);
    expect(queries.length, 'payment queries during the PT2H advance').toBeGreaterThan(0);
    expect(worstQuery, `the slowest payment query during the PT2H advance, in ms`).toBeLessThan(ANSWER_WITHIN_MS);
  });
});
