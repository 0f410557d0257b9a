import { mkdtemp, readFile, rm, stat, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { SYNC_LEVELS } from '../../src/store/store.js';
import { EXIT_WITHIN, stopAll, within } from '../support/process.js';
import { advanceTo, chargesOwed, clockOf, CYCLE_MS, paidSubscription, recurrentDeliveries, startDateText, subscribesBody } from '../support/subscriptions.js';
import { PaymentsApi, send } from './support/api.js';
import { knob, seededRandom, seedFrom } from './support/knobs.js';
import { sandboxOnFile } from './support/preauth.js';
import { CampaignReceiver } from './support/receiver.js';

/**
 * kill -9 while subscriptions are charged on the merchant's clock:
 * payments-sandbox runs as a real process on a data file, with DAILY
 * subscriptions paid and a notification URL set; each round advances the
 * clock a few days (answered), then weeks on, and kills the process
 * (SIGKILL) once a drawn share of that advance is in the log, or the moment
 * it is answered. After each restart on the same file the clock
 * is advanced again to where the killed advance was going, and each
 * subscription's charges must be `<billingId>-1` to `-N`, none missing or
 * made twice, N its stored charge count and the cycles due by the clock, each
 * SUCCESSFUL for the subscription's amount, made within its own cycle, with
 * one `transaction.recurrent` delivery; every charge a completed advance
 * answered is still there, unchanged; and the clock's next charge is
 * `<billingId>-<N+1>` (README, "Subscriptions" and "Storage"; docs/decisions.md#d59-subscriptions).
 *
 * A charge and the subscription's moving on are two log lines of one append
 * (src/agenda/agenda.ts), so a kill lands between them only when it tears that
 * append. After a kill in the middle of an advance the log is cut inside the
 * move-on line that follows the last charge, one that advance made: the file
 * a kill in the middle of that write leaves. On restart the subscription is still due
 * for a cycle whose charge is stored, and must only move on: made again, the
 * charge has a second delivery. Both durability levels.
 * SUBSCRIPTION_KILL_RUNS sets the kills per level; SUBSCRIPTION_KILL_SEED replays a run.
 */

const KILLS = knob('SUBSCRIPTION_KILL_RUNS', 4);
const PER_KILL_MS = 20_000;
const DAY_MS = CYCLE_MS.DAILY;

/** What the campaign knows of one subscription. */
interface Known {
  billingId: string;
  amount: string;
  /** on the merchant's clock, epoch ms: a moment after its first payment was paid, in the same cycle */
  paidMs: number;
  /** charges an answered advance named */
  acknowledged: Set<string>;
  /** each charge as first read from the store: linkingReference, createdAt and its delivery's eventId */
  seen: Map<string, string>;
}

let dir: string | undefined;
let receiver: CampaignReceiver | undefined;

afterAll(async () => {
  await stopAll();
  await receiver?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * Every charge a completed advance answered is stored, and reads as it did
 * when last seen: read right after a restart, before anything is made again.
 */
async function expectAcknowledged(api: PaymentsApi, known: Known[], after: string): Promise<void> {
  const stored = new Map((await api.payments()).map((payment) => [payment.paymentReference as string, payment]));
  const problems: string[] = [];
  for (const subscription of known) {
    for (const reference of subscription.acknowledged) {
      const charge = stored.get(reference);
      const was = subscription.seen.get(reference)?.split(' ');
      if (!charge) problems.push(`${reference}: answered by an advance, not stored ${after}`);
      else if (was && (charge.linkingReference !== was[0] || charge.createdAt !== was[1])) problems.push(`${reference}: was ${was.slice(0, 2).join(' ')}, now ${charge.linkingReference} ${charge.createdAt} ${after}`);
    }
  }
  expect(problems, `${problems.length} acknowledged charges lost or changed`).toEqual([]);
}

/**
 * Checks every subscription's charges, their deliveries and the clock's next
 * charge against the merchant's clock, with the sandbox at rest (right after
 * an answered advance); then takes the charges read as seen.
 * @param anchorMs the subscriptions' startDate, epoch ms
 */
async function expectCharges(api: PaymentsApi, known: Known[], anchorMs: number, after: string, delivered = false): Promise<number> {
  const clock = await clockOf(api);
  const nowMs = Date.parse(clock.now);
  const payments = await api.payments();
  const deliveries = await recurrentDeliveries(api);
  const stored = new Map(payments.map((payment) => [payment.paymentReference as string, payment]));
  const problems: string[] = [];
  let total = 0;
  for (const subscription of known) {
    const { billingId, amount } = subscription;
    const owed = chargesOwed(anchorMs, DAY_MS, subscription.paidMs, nowMs);
    // The n-th charge falls at the n-th whole day after the anchor that comes after the first payment.
    const chargeAt = (n: number) => anchorMs + (Math.floor((subscription.paidMs - anchorMs) / DAY_MS) + n) * DAY_MS;
    const count = stored.get(billingId)?.subscription?.charges;
    const charges = payments.filter((payment) => payment.recurring?.billingId === billingId && payment.recurring?.kind === 'scheduled');
    const references = charges.map((payment) => payment.paymentReference as string).sort((a, b) => Number(a.slice(billingId.length + 1)) - Number(b.slice(billingId.length + 1)));
    const expected = Array.from({ length: owed }, (_, index) => `${billingId}-${index + 1}`);
    if (references.join() !== expected.join()) problems.push(`${billingId}: charges ${references.join(' ') || 'none'}; ${owed} owed by ${clock.now} ${after}`);
    if (count !== owed) problems.push(`${billingId}: charge count ${count}; ${owed} owed by ${clock.now} ${after}`);
    for (const reference of subscription.acknowledged) if (!stored.has(reference)) problems.push(`${reference}: answered by an advance, not stored ${after}`);
    for (const charge of charges) {
      const reference = charge.paymentReference as string;
      const n = Number(reference.slice(billingId.length + 1));
      const createdMs = Date.parse(charge.createdAt);
      if (charge.status !== 'SUCCESSFUL' || charge.code !== '00' || charge.amount !== amount || charge.recurring.cycle !== n) {
        problems.push(`${reference}: ${charge.status} ${charge.code} ${charge.amount} cycle ${charge.recurring.cycle}; expected SUCCESSFUL 00 ${amount} cycle ${n} ${after}`);
      }
      if (!(createdMs >= chargeAt(n) && createdMs < chargeAt(n + 1))) problems.push(`${reference}: made at ${charge.createdAt}, its cycle is ${iso(chargeAt(n))} to ${iso(chargeAt(n + 1))} ${after}`);
      const its = deliveries.filter((delivery) => delivery.paymentReference === reference);
      if (its.length !== 1) {
        problems.push(`${reference}: ${its.length} transaction.recurrent deliveries (${its.map((delivery) => delivery.event.eventId).join(' ')}), one expected ${after}`);
        continue;
      }
      const delivery = its[0]!;
      if (delivery.event.data.reference !== reference || delivery.event.data.amount !== amount) problems.push(`${reference}: its delivery tells of ${delivery.event.data.reference} ${delivery.event.data.amount} ${after}`);
      if (delivered && (delivery.state !== 'delivered' || !receiver!.received.some((event) => event.eventId === delivery.event.eventId))) {
        problems.push(`${reference}: delivery ${delivery.id} ${delivery.state}, its event ${receiver!.received.some((event) => event.eventId === delivery.event.eventId) ? '' : 'not '}received ${after}`);
      }
      const identity = `${charge.linkingReference} ${charge.createdAt} ${delivery.event.eventId}`;
      const was = subscription.seen.get(reference);
      if (was !== undefined && was !== identity) problems.push(`${reference}: read ${was}, now ${identity}: made again ${after}`);
      subscription.seen.set(reference, identity);
    }
    const next = clock.pending.filter((item) => item.kind === 'charge' && item.paymentReference.startsWith(`${billingId}-`));
    const nextExpected = [{ at: iso(chargeAt(owed + 1)), kind: 'charge', paymentReference: `${billingId}-${owed + 1}` }];
    if (JSON.stringify(next.map(({ at, kind, paymentReference }) => ({ at, kind, paymentReference }))) !== JSON.stringify(nextExpected)) {
      problems.push(`${billingId}: the clock's next charge ${JSON.stringify(next)}; expected ${JSON.stringify(nextExpected)} ${after}`);
    }
    total += owed;
  }
  const stray = deliveries.filter((delivery) => !stored.get(delivery.paymentReference)?.recurring);
  for (const delivery of stray) problems.push(`${delivery.paymentReference}: a transaction.recurrent delivery for no stored charge ${after}`);
  expect(problems, `${problems.length} problems`).toEqual([]);
  return total;
}

/**
 * The log as a kill in the middle of a charge's append leaves it: cut inside
 * the subscription line that follows the last charge's line, when that
 * charge is one no answer named and no check read (else the cut would lose
 * what the sandbox had shown, which no crash may).
 * @returns the charge's paymentReference, or undefined when there is none to cut after
 */
async function tearAfterCharge(wal: string, known: Known[], random: () => number): Promise<string | undefined> {
  const bytes = await readFile(wal).catch(() => undefined);
  if (!bytes) return undefined;
  const lines: Array<{ start: number; end: number }> = [];
  for (let start = 0, end = bytes.indexOf(10); end !== -1; start = end + 1, end = bytes.indexOf(10, start)) lines.push({ start, end });
  const read = (index: number) => JSON.parse(bytes.subarray(lines[index]!.start, lines[index]!.end).toString('utf8'));
  for (let index = lines.length - 2; index >= 0; index -= 1) {
    const charge = read(index);
    if (charge.kind !== 'payment' || charge.payment.recurring?.kind !== 'scheduled') continue;
    const { billingId, cycle } = charge.payment.recurring;
    const moveOn = read(index + 1);
    if (moveOn.kind !== 'payment' || moveOn.payment.paymentReference !== billingId || moveOn.payment.subscription?.charges !== cycle) return undefined;
    const reference = charge.payment.paymentReference as string;
    if (known.some((subscription) => subscription.acknowledged.has(reference) || subscription.seen.has(reference))) return undefined;
    const { start, end } = lines[index + 1]!;
    await truncate(wal, start + 1 + Math.floor(random() * (end - start - 1)));
    return reference;
  }
  return undefined;
}

/** Bytes in the store's log files: the log, and one set aside by a fold until the fold ends. */
async function logBytes(dataFile: string): Promise<number> {
  const sizes = await Promise.all([`${dataFile}.wal`, `${dataFile}.wal.folding`].map((path) => stat(path).then((found) => found.size, () => 0)));
  return sizes[0]! + sizes[1]!;
}

describe.each(SYNC_LEVELS)(`payments-sandbox --sync %s killed with SIGKILL ${KILLS} times while subscriptions are charged`, (sync) => {
  it('charges each cycle once, none skipped, across every kill and a torn append', { timeout: KILLS * PER_KILL_MS + 30_000 }, async () => {
    const seed = seedFrom('SUBSCRIPTION_KILL_SEED', `subscription kill -9 ${sync}`);
    const random = seededRandom(seed);
    dir ??= await mkdtemp(join(tmpdir(), 'payments-sandbox-subscription-kill-'));
    receiver ??= await CampaignReceiver.start();
    const dataFile = join(dir, `sandbox-${sync}.json`);
    const tag = (seed >>> 0).toString(16).padStart(8, '0');
    const keys = { publicKey: `SBTESTPUBK_subkill${tag}${sync}`, secretKey: `SBTESTSECK_subkill${tag}${sync}` };
    const known: Known[] = [];
    let anchorMs = 0;
    // Where the last advance was going: half a day from any charge time, so real time never moves a charge across it.
    let targetMs = 0;
    let tears = 0;
    let cutOff = 0;
    let acknowledged = 0;

    const restart = async (round: number) => {
      const { started, origin } = await sandboxOnFile(dataFile, sync);
      const api = await PaymentsApi.as(origin, keys);
      if (round > 1) {
        await expectAcknowledged(api, known, `after restart ${round - 1}`);
        // The killed advance is carried on to where it was going; the clock may already be past it.
        const caughtUp = await advanceTo(api, iso(Math.max(targetMs, Date.parse((await clockOf(api)).now) + 1_000)), PER_KILL_MS);
        expect(caughtUp.status, `the advance after restart ${round - 1}`).toBe(200);
        await expectCharges(api, known, anchorMs, `after restart ${round - 1}`);
      }
      return { started, api };
    };

    for (let round = 1; round <= KILLS; round += 1) {
      const { started, api } = await restart(round);
      if (round === 1) {
        const answer = await send(api.origin, 'PUT', `/__sandbox/webhooks/${api.merchant.publicKey}`, { body: { url: receiver.url } });
        expect(answer.status).toBe(200);
        const nowMs = Date.parse((await clockOf(api)).now);
        anchorMs = Math.floor(nowMs / 1_000) * 1_000 - DAY_MS / 2;
        targetMs = anchorMs + DAY_MS / 2;
      }
      // New subscriptions each round, all on one anchor: each owes from the first whole day after it is paid.
      for (let index = 0; index < (round === 1 ? 2 : 1); index += 1) {
        const billingId = `SUBKILL_${tag}_${sync}_${round}_${index}`;
        const amount = `${500 + Math.floor(random() * 9_500)}.${String(Math.floor(random() * 100)).padStart(2, '0')}`;
        await paidSubscription(api, subscribesBody({ paymentReference: billingId, amount, startDate: startDateText(anchorMs) }));
        known.push({ billingId, amount, paidMs: Date.parse((await clockOf(api)).now), acknowledged: new Set(), seen: new Map() });
      }

      // An advance answered in full: its charges are acknowledged, and it tells how fast the log grows.
      const days = 2 + Math.floor(random() * 6);
      const fromBytes = await logBytes(dataFile);
      targetMs += days * DAY_MS;
      const whole = await advanceTo(api, iso(targetMs), PER_KILL_MS);
      expect(whole.status, `the answered advance of round ${round}`).toBe(200);
      const bytesPerDay = ((await logBytes(dataFile)) - fromBytes) / days;
      const acknowledge = (fired: Array<{ kind: string; paymentReference: string }> = []) => {
        for (const item of fired.filter((one) => one.kind === 'charge')) {
          known.find((subscription) => item.paymentReference.startsWith(`${subscription.billingId}-`))!.acknowledged.add(item.paymentReference);
          acknowledged += 1;
        }
      };
      acknowledge(whole.body?.fired);
      await expectCharges(api, known, anchorMs, `after the answered advance of round ${round}`);

      // The advance killed: once a drawn share of what it writes is in the log, or the moment it is answered.
      const killedDays = 12 + Math.floor(random() * 24);
      const onAnswer = round > 1 && random() < 0.25;
      const share = 0.1 + random() * 0.7;
      const base = await logBytes(dataFile);
      targetMs += killedDays * DAY_MS;
      let answered = false;
      let killedNow = false;
      const kill = () => {
        if (killedNow) return;
        killedNow = true;
        started.child.kill('SIGKILL');
      };
      const killed = advanceTo(api, iso(targetMs), PER_KILL_MS).then((answer) => {
        answered = answer.status !== 0;
        if (answered) acknowledge(answer.body?.fired);
        kill();
        return answer;
      });
      if (!onAnswer) {
        while (!killedNow) {
          if ((await logBytes(dataFile)) - base >= share * bytesPerDay * killedDays) kill();
          else await sleep(1);
        }
      }
      const answer = await within(killed, PER_KILL_MS, `the killed advance of round ${round}`);
      expect([0, 200], `the killed advance of round ${round}: ${answer.status}`).toContain(answer.status);
      const exit = await within(started.exited, EXIT_WITHIN, 'the killed sandbox to exit');
      expect(exit.signal).toBe('SIGKILL');
      if (answered) continue;
      cutOff += 1;
      if (round === 1 || random() < 0.6) {
        const torn = await tearAfterCharge(`${dataFile}.wal`, known, random);
        if (torn) tears += 1;
      }
    }

    const { api } = await restart(KILLS + 1);
    // The restored subscriptions go on: three more days charge three more cycles each, delivered.
    targetMs += 3 * DAY_MS;
    const more = await advanceTo(api, iso(targetMs), PER_KILL_MS);
    expect(more.status).toBe(200);
    const charges = await expectCharges(api, known, anchorMs, 'three days after the last restart', true);
    for (const { billingId, amount } of known) {
      const shown = await api.call('GET', `/recurring/billingId/${billingId}`);
      expect([shown.status, shown.body?.data?.subscriptions?.status, shown.body?.data?.subscriptions?.amount], billingId).toEqual([200, 'ACTIVE', amount]);
    }
    console.log(`subscription kill -9, --sync ${sync}: ${KILLS} kills (${cutOff} in the middle of an advance, ${tears} of them with the append torn after a charge), ${acknowledged} acknowledged charges, ${charges} charges of ${known.length} subscriptions checked`);
    expect(tears, 'kills that left a charge stored and its subscription not moved on').toBeGreaterThan(0);
  });
});
