import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNC_LEVELS } from '../../src/store/store.js';
import { stopAll } from '../support/process.js';
import { PaymentsApi, together, type Answer } from './support/api.js';
import { knob, seededRandom, seedFrom } from './support/knobs.js';
import {
  answered,
  authorised,
  capture,
  described,
  drawMinor,
  fromMinor,
  noAuthorisedTransaction,
  preauthorisationStatus,
  sandboxOnFile,
  toMinor,
} from './support/preauth.js';

/**
 * Races on card pre-authorisations (docs/decisions.md#d48-card-operations) over real HTTP, to
 * the executable on a data file at both durability levels (`full` answers a
 * batch of changes after its fdatasync, so requests that arrive together
 * wait in one batch): captures at once never add up to more than was
 * authorised, a capture and a cancel never both win, and a refund racing a
 * capture never gives back more than was captured when it was decided.
 * Amounts, mixes and sending orders are drawn from a seed, printed, that
 * PREAUTH_RACE_SEED replays; RACE_CONCURRENCY (how many captures race) and
 * RACE_ROUNDS (how often each race is run) are the knobs of races.test.ts.
 */

const CONCURRENCY = knob('RACE_CONCURRENCY', 25);
const ROUNDS = knob('RACE_ROUNDS', 3);
const TIMEOUT = 60_000;

const lines = (answers: Answer[], amounts: string[]) => answers.map((answer, index) => `${amounts[index]}: ${described(answer)}`).join(', ');

/** `items` in an order drawn from `random` (Fisher-Yates). */
function shuffled<T>(items: T[], random: () => number): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [copy[index], copy[other]] = [copy[other]!, copy[index]!];
  }
  return copy;
}

let dir: string | undefined;

afterAll(async () => {
  await stopAll();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe.each(SYNC_LEVELS)('pre-authorisation races, payments-sandbox on a data file with --sync %s', (sync) => {
  let api: PaymentsApi;
  let random: () => number;

  beforeAll(async () => {
    random = seededRandom(seedFrom('PREAUTH_RACE_SEED', `pre-authorisation races --sync ${sync}`));
    dir ??= await mkdtemp(join(tmpdir(), 'payments-sandbox-preauth-races-'));
    const { origin } = await sandboxOnFile(join(dir, `sandbox-${sync}.json`), sync);
    api = await PaymentsApi.as(origin);
  }, TIMEOUT);

  it(`${CONCURRENCY} captures of one authorisation at once add up to at most its amount, and what is approved is what is stored`, { timeout: TIMEOUT }, async () => {
    for (let round = 0; round < ROUNDS * 2; round += 1) {
      let amountMinor: number;
      let sent: number[];
      if (round % 2 === 0) {
        // Random parts, each above an equal share, so that together they ask for more than the amount (about twice).
        amountMinor = drawMinor(random, 10_000, 100_000);
        const share = Math.floor(amountMinor / CONCURRENCY);
        sent = Array.from({ length: CONCURRENCY }, () => drawMinor(random, share + 1, 3 * share + 1));
      } else {
        // Equal parts of which fewer than were sent make the whole: exactly that many win, and the rest find it CAPTURED.
        const parts = 1 + Math.floor(random() * (CONCURRENCY - 1));
        const part = drawMinor(random, 100, 5_000);
        amountMinor = parts * part;
        sent = Array.from({ length: CONCURRENCY }, () => part);
      }
      const reference = await authorised(api, fromMinor(amountMinor));
      const amounts = sent.map(fromMinor);
      const answers = await together(CONCURRENCY, (index) => capture(api, reference, amounts[index]!));
      const why = `authorised ${fromMinor(amountMinor)}; ${lines(answers, amounts)}`;

      const approvedMinor = answers.reduce((sum, answer, index) => (answered(answer, '00') ? sum + sent[index]! : sum), 0);
      const stored = await api.payment(reference);
      expect(stored?.capturedAmount, why).toBe(fromMinor(approvedMinor));
      expect(approvedMinor, why).toBeLessThanOrEqual(amountMinor);
      expect(stored?.refundedAmount, why).toBe('0.00');
      expect(stored?.status, why).toBe(preauthorisationStatus(amountMinor, approvedMinor, 0));
      const leftMinor = amountMinor - approvedMinor;
      const capturedAll = stored?.status === 'CAPTURED';
      for (const [index, answer] of answers.entries()) {
        if (answered(answer, '00')) expect(['PARTIALLY_CAPTURED', 'CAPTURED'], why).toContain(answer.body.data.payments.status);
        // What was left only shrinks: a capture refused as too large is larger than what is left at the end.
        else if (answered(answer, 'S12')) expect(sent[index]!, `${amounts[index]} refused as beyond what is left; ${why}`).toBeGreaterThan(leftMinor);
        else expect(noAuthorisedTransaction(answer) && capturedAll, `${amounts[index]} answered ${described(answer)}; ${why}`).toBe(true);
      }
      // The one capture that took the last of the amount says so.
      const sayCaptured = answers.filter((answer) => answered(answer, '00') && answer.body.data.payments.status === 'CAPTURED').length;
      expect(sayCaptured, why).toBe(capturedAll ? 1 : 0);
      // Each equal part fits until the whole is captured: the rest find the payment CAPTURED, none is too large.
      if (round % 2 === 1) {
        expect(approvedMinor, why).toBe(amountMinor);
        expect(answers.filter(noAuthorisedTransaction).length, why).toBe(CONCURRENCY - amountMinor / sent[0]!);
      }
    }
  });

  it('a capture and a cancel of a fresh authorisation at once: one of them wins, never both', { timeout: TIMEOUT }, async () => {
    for (let round = 0; round < ROUNDS * 4; round += 1) {
      const amountMinor = drawMinor(random, 1_000, 100_000);
      const reference = await authorised(api, fromMinor(amountMinor));
      // One to three of each, sent in a drawn order; any single capture fits in the amount.
      const captures = Array.from({ length: 1 + Math.floor(random() * 3) }, () => fromMinor(drawMinor(random, 1, amountMinor)));
      const cancels = 1 + Math.floor(random() * 3);
      const requests = shuffled([...captures.map((amount) => ({ kind: 'capture' as const, amount })), ...Array.from({ length: cancels }, () => ({ kind: 'cancel' as const, amount: '' }))], random);
      const answers = await Promise.all(requests.map((request) => (request.kind === 'capture' ? capture(api, reference, request.amount) : api.cancel(reference))));
      const why = `authorised ${fromMinor(amountMinor)}; ${requests.map((request, index) => `${request.kind} ${request.amount}: ${described(answers[index]!)}`).join(', ')}`;

      const captureAnswers = answers.filter((_, index) => requests[index]!.kind === 'capture');
      const cancelAnswers = answers.filter((_, index) => requests[index]!.kind === 'cancel');
      const cancelled = cancelAnswers.filter((answer) => answered(answer, '00')).length;
      const capturedMinor = requests.reduce((sum, request, index) => (request.kind === 'capture' && answered(answers[index]!, '00') ? sum + toMinor(request.amount) : sum), 0);
      const stored = await api.payment(reference);
      expect(cancelled, why).toBeLessThanOrEqual(1);
      if (cancelled === 1) {
        expect(capturedMinor, why).toBe(0);
        for (const answer of captureAnswers) expect(noAuthorisedTransaction(answer), why).toBe(true);
        expect(stored, why).toMatchObject({ status: 'CANCELLED', capturedAmount: '0.00' });
      } else {
        expect(capturedMinor, why).toBeGreaterThan(0);
        for (const answer of cancelAnswers) expect(answered(answer, 'S12'), why).toBe(true);
        expect(stored?.capturedAmount, why).toBe(fromMinor(capturedMinor));
        expect(stored?.status, why).toBe(preauthorisationStatus(amountMinor, capturedMinor, 0));
      }
      // Whatever the others did, a capture is approved or refused as too large or too late, nothing else.
      for (const answer of captureAnswers) expect(answered(answer, '00') || answered(answer, 'S12') || noAuthorisedTransaction(answer), why).toBe(true);
    }
  });

  it('a refund and a capture of a partly captured authorisation at once: what is refunded never exceeds what was captured when the refund was decided', { timeout: TIMEOUT }, async () => {
    for (let round = 0; round < ROUNDS * 4; round += 1) {
      const amountMinor = drawMinor(random, 1_000, 100_000);
      const firstMinor = drawMinor(random, 1, Math.floor(amountMinor * 0.6));
      const secondMinor = drawMinor(random, 1, amountMinor - firstMinor);
      // The refund is within the first capture (all of it, at times), within both, or beyond both: only the order of arrival decides the middle case.
      const refundMinor = [
        () => drawMinor(random, 1, firstMinor),
        () => firstMinor,
        () => drawMinor(random, firstMinor + 1, firstMinor + secondMinor),
        () => firstMinor + secondMinor + drawMinor(random, 1, 1_000),
      ][Math.floor(random() * 4)]!();
      const reference = await authorised(api, fromMinor(amountMinor));
      const first = await capture(api, reference, fromMinor(firstMinor));
      expect(answered(first, '00'), described(first)).toBe(true);
      const refundFirst = random() < 0.5;
      const pair = [() => api.refund(reference, fromMinor(refundMinor)), () => capture(api, reference, fromMinor(secondMinor))];
      const sentInOrder = await Promise.all((refundFirst ? pair : [...pair].reverse()).map((request) => request()));
      const [refund, second] = refundFirst ? sentInOrder : [...sentInOrder].reverse();
      const why = `authorised ${fromMinor(amountMinor)}, captured ${fromMinor(firstMinor)}; refund ${fromMinor(refundMinor)}: ${described(refund!)}, capture ${fromMinor(secondMinor)}: ${described(second!)}`;

      const refunded = answered(refund!, '00');
      const captured = answered(second!, '00');
      expect(refunded || answered(refund!, 'S12'), why).toBe(true);
      // The second capture fits: it is refused only once a refund of all that was captured has closed the payment.
      expect(captured || (noAuthorisedTransaction(second!) && refunded && refundMinor === firstMinor), why).toBe(true);
      const stored = await api.payment(reference);
      const capturedMinor = firstMinor + (captured ? secondMinor : 0);
      const refundedMinor = refunded ? refundMinor : 0;
      expect(stored?.capturedAmount, why).toBe(fromMinor(capturedMinor));
      expect(stored?.refundedAmount, why).toBe(fromMinor(refundedMinor));
      expect(refundedMinor, why).toBeLessThanOrEqual(capturedMinor);
      // A refund beyond the first capture is approved only after the second one was stored ...
      if (refunded && refundMinor > firstMinor) expect(captured, why).toBe(true);
      // ... and one within it is never refused, whatever came first.
      if (!refunded) expect(refundMinor, why).toBeGreaterThan(firstMinor);
      expect(stored?.status, why).toBe(preauthorisationStatus(amountMinor, capturedMinor, refundedMinor));
    }
  });
});
