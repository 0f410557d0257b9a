import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SYNC_LEVELS } from '../../src/store/store.js';
import { EXIT_WITHIN, stopAll, within } from '../support/process.js';
import { PaymentsApi, type Answer } from './support/api.js';
import { knob, seededRandom, seedFrom } from './support/knobs.js';
import {
  answered,
  authorised,
  capture,
  controlPayment,
  described,
  drawMinor,
  fromMinor,
  noAuthorisedTransaction,
  preauthorisationStatus,
  sandboxOnFile,
  toMinor,
} from './support/preauth.js';

/**
 * kill -9 during captures: payments-sandbox runs as a real process on a data
 * file; each round authorises a card payment, then sends captures of it and
 * of earlier rounds' open authorisations, one after another and a few at
 * once, and kills the process (SIGKILL) at a drawn point: the moment a drawn
 * capture is answered, or a moment after a drawn capture is sent. After each
 * restart on the same file every capture answered 00 is in the stored
 * capturedAmount (README, "Storage": a crash loses nothing acknowledged), no
 * capture that was never sent or was refused is, capturedAmount stays within
 * the amount authorised, the status follows it (docs/decisions.md#d48-card-operations), and the
 * payment reads the same through GET /payments/query/{paymentReference} and
 * the control API. Both durability levels: `normal` answers before the log's
 * fdatasync, and must lose nothing to a killed process all the same.
 * PREAUTH_KILL_RUNS sets the kills per level; PREAUTH_KILL_SEED replays a run.
 */

const KILLS = knob('PREAUTH_KILL_RUNS', 4);
const PER_KILL_MS = 20_000;

/** What the campaign knows of one authorisation, in minor units. */
interface Authorisation {
  paymentReference: string;
  amountMinor: number;
  /** captured as last read from the store, plus every capture answered 00 since */
  capturedMinor: number;
  /** captures sent since that reading and cut off by the kill: each may or may not be stored */
  unanswered: number[];
}

/** Every total a subset of `amounts` can make, the empty one (0) included. */
function subsetSums(amounts: number[]): Set<number> {
  let sums = new Set([0]);
  for (const amount of amounts) sums = new Set([...sums, ...[...sums].map((sum) => sum + amount)]);
  return sums;
}

let dir: string | undefined;

afterAll(async () => {
  await stopAll();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * Checks every known authorisation against what the restarted sandbox
 * stores and answers; then takes what is stored as known.
 */
async function expectKept(api: PaymentsApi, known: Authorisation[], after: string): Promise<void> {
  const listed = new Map((await api.payments()).map((payment) => [payment.paymentReference as string, payment]));
  const problems: string[] = [];
  for (const authorisation of known) {
    const { paymentReference, amountMinor, capturedMinor, unanswered } = authorisation;
    const stored = listed.get(paymentReference);
    const expected = `${fromMinor(capturedMinor)} of ${fromMinor(amountMinor)} captured, acknowledged${unanswered.length > 0 ? `, and maybe some of ${unanswered.map(fromMinor).join(', ')} cut off` : ''}`;
    if (!stored) {
      problems.push(`${paymentReference}: ${expected}; not stored ${after}`);
      continue;
    }
    const storedMinor = toMinor(String(stored.capturedAmount));
    if (!subsetSums(unanswered).has(storedMinor - capturedMinor)) problems.push(`${paymentReference}: ${expected}; stored ${stored.capturedAmount} ${after}`);
    if (storedMinor > amountMinor) problems.push(`${paymentReference}: stored ${stored.capturedAmount} captured of ${fromMinor(amountMinor)} authorised ${after}`);
    const status = preauthorisationStatus(amountMinor, storedMinor, 0);
    if (stored.status !== status || stored.refundedAmount !== '0.00') problems.push(`${paymentReference}: stored ${stored.status}, refunded ${stored.refundedAmount} with ${stored.capturedAmount} captured; expected ${status} ${after}`);
    // The control API's own endpoint and the merchant's status query read the same payment.
    const one = await controlPayment(api, paymentReference);
    if (JSON.stringify(one) !== JSON.stringify(stored)) problems.push(`${paymentReference}: GET /__sandbox/payments/${paymentReference} shows ${JSON.stringify(one)}, the list ${JSON.stringify(stored)}`);
    const query = await api.query(paymentReference);
    const payments = query.body?.data?.payments;
    if (query.status !== 200 || query.body?.data?.code !== '00' || payments?.paymentReference !== paymentReference || Math.round(Number(payments?.amount) * 100) !== amountMinor) {
      problems.push(`${paymentReference}: the status query answered ${query.status} ${JSON.stringify(query.body)} ${after}`);
    }
    authorisation.capturedMinor = storedMinor;
    authorisation.unanswered = [];
  }
  expect(problems, `${problems.length} problems`).toEqual([]);
}

describe.each(SYNC_LEVELS)(`payments-sandbox --sync %s killed with SIGKILL ${KILLS} times during captures`, (sync) => {
  it('keeps every acknowledged capture, and never captures more than was authorised', { timeout: KILLS * PER_KILL_MS + 30_000 }, async () => {
    const seed = seedFrom('PREAUTH_KILL_SEED', `pre-authorisation kill -9 ${sync}`);
    const random = seededRandom(seed);
    dir ??= await mkdtemp(join(tmpdir(), 'payments-sandbox-preauth-kill-'));
    const dataFile = join(dir, `sandbox-${sync}.json`);
    const tag = (seed >>> 0).toString(16).padStart(8, '0');
    const keys = { publicKey: `SBTESTPUBK_preauth${tag}`, secretKey: `SBTESTSECK_preauth${tag}` };
    const known: Authorisation[] = [];
    const unexpected: string[] = [];
    let acknowledged = 0;
    let cutOff = 0;

    for (let round = 1; round <= KILLS; round += 1) {
      const { started, origin } = await sandboxOnFile(dataFile, sync);
      const api = await PaymentsApi.as(origin, keys);
      await expectKept(api, known, `after restart ${round - 1}`);

      const amountMinor = drawMinor(random, 5_000, 50_000);
      const fresh: Authorisation = { paymentReference: await authorised(api, fromMinor(amountMinor)), amountMinor, capturedMinor: 0, unanswered: [] };
      known.push(fresh);
      // Captures of the new authorisation, and of earlier ones the restart brought back.
      const open = known.filter((authorisation) => authorisation !== fresh && authorisation.capturedMinor < authorisation.amountMinor);
      const steps: Array<Array<{ to: Authorisation; amountMinor: number }>> = [];
      const size = 8 + Math.floor(random() * 17);
      for (let planned = 0; planned < size; ) {
        const together = random() < 0.35 ? 2 + Math.floor(random() * 4) : 1;
        const step = Array.from({ length: together }, () => {
          const to = open.length > 0 && random() < 0.3 ? open[Math.floor(random() * open.length)]! : fresh;
          return { to, amountMinor: Math.max(1, Math.floor(to.amountMinor * (0.02 + random() * 0.25))) };
        });
        steps.push(step);
        planned += together;
      }
      // The kill: when the drawn capture is answered, or a moment after it is sent, while it may be half done.
      const killAt = 1 + Math.floor(random() * size);
      const onAnswer = random() < 0.5;
      const pauseMs = Math.floor(random() * 3);
      let killed = false;
      const kill = () => {
        if (killed) return;
        killed = true;
        started.child.kill('SIGKILL');
      };
      let sent = 0;

      for (const step of steps) {
        if (killed) break;
        await within(
          Promise.all(
            step.map(({ to, amountMinor: captured }) => {
              sent += 1;
              const index = sent;
              const answer = capture(api, to.paymentReference, fromMinor(captured)).then((reply: Answer) => {
                if (reply.status === 0) {
                  to.unanswered.push(captured);
                  cutOff += 1;
                  return;
                }
                if (answered(reply, '00')) {
                  to.capturedMinor += captured;
                  acknowledged += 1;
                } else if (!answered(reply, 'S12') && !noAuthorisedTransaction(reply)) {
                  unexpected.push(`capture ${fromMinor(captured)} of ${to.paymentReference}: ${described(reply)}`);
                }
                if (onAnswer && index === killAt) kill();
              });
              if (!onAnswer && index === killAt) setTimeout(kill, pauseMs);
              return answer;
            }),
          ),
          PER_KILL_MS,
          `the captures of round ${round}`,
        );
      }
      // A pause after the last capture sent may outlast the captures: the kill comes now at the latest.
      kill();
      const exit = await within(started.exited, EXIT_WITHIN, 'the killed sandbox to exit');
      expect(exit.signal).toBe('SIGKILL');
    }

    const { origin } = await sandboxOnFile(dataFile, sync);
    const api = await PaymentsApi.as(origin, keys);
    await expectKept(api, known, `after restart ${KILLS}`);
    // The restored authorisations go on where they stood: what is left of each can still be captured, and then no more.
    for (const authorisation of known.filter((candidate) => candidate.capturedMinor < candidate.amountMinor)) {
      const rest = await capture(api, authorisation.paymentReference, fromMinor(authorisation.amountMinor - authorisation.capturedMinor));
      expect(answered(rest, '00') && rest.body.data.payments.status, `${authorisation.paymentReference}: ${described(rest)}`).toBe('CAPTURED');
      const more = await capture(api, authorisation.paymentReference, '0.01');
      expect(noAuthorisedTransaction(more), `${authorisation.paymentReference}: ${described(more)}`).toBe(true);
      authorisation.capturedMinor = authorisation.amountMinor;
    }
    await expectKept(api, known, 'once all is captured');
    console.log(`pre-authorisation kill -9, --sync ${sync}: ${KILLS} kills, ${acknowledged} acknowledged captures, ${cutOff} cut off, ${known.length} authorisations checked`);
    expect(unexpected).toEqual([]);
    expect(acknowledged).toBeGreaterThan(0);
  });
});
