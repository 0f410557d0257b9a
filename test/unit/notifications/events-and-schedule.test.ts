import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MerchantClocks } from '../../../src/clock/clocks.js';
import { paymentWrite } from '../../../src/domain/answer.js';
import { putWrites } from '../../../src/domain/commit.js';
import { dueOf, walletDaysOf } from '../../../src/domain/due.js';
import { eventsOf } from '../../../src/domain/notification-events.js';
import { settleDue } from '../../../src/domain/payments.js';
import { transition } from '../../../src/domain/state-machine.js';
import { durationMs, durationOf } from '../../../src/model/durations.js';
import { NotificationFaults } from '../../../src/notifications/faults.js';
import { NotificationOutbox } from '../../../src/notifications/outbox.js';
import { nextAttemptAt } from '../../../src/notifications/retry-schedule.js';
import { judge } from '../../../src/notifications/send.js';
import { Store } from '../../../src/store/store.js';
import { CATALOGUE, ENGINE } from '../domain/fixtures.js';
import { storedPayment } from '../scenarios/rules.js';

/**
 * The parts of notifications and clocks that need no HTTP: which events a
 * change causes, the retry schedules, what an answer acknowledges, what falls
 * due, and the outbox's one log line.
 */

const pending = storedPayment({ method: 'ACCOUNT', code: '20', scenario: 'account-pending' });
const outcome = (code: string, message: string) => ({ code, message, scenario: 'rule', now: '2025-01-01T12:05:00.000Z' });

describe('eventsOf: the events of one change', () => {
  it('none for a payment created or left pending; one transaction when it resolves', () => {
    expect(eventsOf(undefined, pending)).toEqual([]);
    expect(eventsOf(pending, { ...pending, updatedAt: '2025-01-01T12:01:00.000Z' })).toEqual([]);
    for (const status of ['SUCCESSFUL', 'FAILED', 'CANCELLED', 'EXPIRED'] as const) {
      const events = eventsOf(pending, { ...pending, status });
      expect(events.map((event) => event.eventType), status).toEqual(['transaction']);
    }
    // Created already resolved (a declined card): one too.
    expect(eventsOf(undefined, { ...pending, status: 'FAILED' }).map((event) => event.eventType)).toEqual(['transaction']);
  });

  it('a pre-authorisation: one transaction when authorised, one per capture with what was taken so far, one when voided; a refund event for a refund (docs/decisions.md#d57-preauth-notifications)', () => {
    const card = { bin: '512345', last4: '0008', token: 'SBCTK_x' };
    const authorised = storedPayment({ method: 'CARD', status: 'AUTHORIZED', code: '00', amount: '100.00', capturedAmount: '0.00', card });
    const types = (before: typeof authorised | undefined, after: typeof authorised) => eventsOf(before, after).map((event) => `${event.eventType} ${String(event.data.amount)}`);
    expect(types(undefined, authorised)).toEqual(['transaction 100']);
    const part = { ...authorised, status: 'PARTIALLY_CAPTURED' as const, capturedAmount: '40.00' };
    expect(types(authorised, part)).toEqual(['transaction 40']);
    const more = { ...part, capturedAmount: '70.00' };
    expect(types(part, more)).toEqual(['transaction 70']);
    const all = { ...more, status: 'CAPTURED' as const, capturedAmount: '100.00' };
    expect(types(more, all)).toEqual(['transaction 100']);
    expect(types(authorised, { ...authorised, status: 'CANCELLED' })).toEqual(['transaction 100']);
    expect(types(all, { ...all, refundedAmount: '30.00' })).toEqual(['refund 30.00']);
    // A capture refused changes nothing: no record, no event; the same record put again says nothing.
    expect(types(part, part)).toEqual([]);
  });

  it('one refund per refund, of that refund amount, and no second transaction', () => {
    const paid = { ...pending, status: 'SUCCESSFUL' as const };
    const partly = transition(paid, { type: 'refund', amountMinor: 50_000 }, outcome('00', 'APPROVED')).payment!;
    const [partial] = eventsOf(paid, partly);
    expect(eventsOf(paid, partly)).toHaveLength(1);
    expect(partial!.data).toMatchObject({ amount: '500.00', type: 'PARTIAL_REFUND', transactionRef: 'SBREF-UNIT-1', mode: 'TEST', createdAt: '2025-01-01 12:05:00' });
    const fully = transition(partly, { type: 'refund', amountMinor: 100_000 }, outcome('00', 'APPROVED')).payment!;
    expect(eventsOf(partly, fully).map((event) => event.data)).toEqual([expect.objectContaining({ amount: '1000.00', type: 'FULL_REFUND' })]);
  });

  it('types the transaction data as the provider sample does', () => {
    const card = { ...pending, method: 'CARD' as const, status: 'SUCCESSFUL' as const, card: { bin: '512345', last4: '0008', token: 'SBCTK_x' }, amount: '922.63' };
    const [event] = eventsOf(pending, card);
    expect(event!.data).toMatchObject({ amount: 922.63, maskedPan: '5123-45xx-xxxx-0008', cardBin: '512345', lastFourDigits: '0008', channelType: 'MASTERCARD', createdAt: '2025-01-01T12:00:00', updatedAt: '2025-01-01T12:00:00.000' });
    expect(JSON.stringify(event)).not.toContain('SBCTK_x');
  });
});

describe('the retry schedules', () => {
  const start = Date.parse('2026-01-01T00:00:00.000Z');
  // The waits between attempts when every attempt fails, in `unit` ms, and the time of the last attempt.
  const waits = (schedule: 'current' | 'legacy', unit: number) => {
    let last = start;
    const gaps: number[] = [];
    for (let failed = 1; ; failed += 1) {
      const next = nextAttemptAt(schedule, failed, start, last);
      if (next === undefined) return { gaps, last };
      gaps.push((next - last) / unit);
      last = next;
    }
  };
  it('current: 30 s, 2 min, 10 min, 30 min, 1 h after each failure, then undelivered', () => {
    expect(waits('current', 1000).gaps).toEqual([30, 120, 600, 1800, 3600]);
  });

  it('legacy: 2, 5, 10, 15, 30 min, 1, 2, 4 h, then every 8 h while within 7 days of the first attempt', () => {
    const { gaps, last } = waits('legacy', 60_000);
    expect(gaps.slice(0, 8)).toEqual([2, 5, 10, 15, 30, 60, 120, 240]);
    expect(new Set(gaps.slice(8))).toEqual(new Set([480]));
    expect(last - start).toBeLessThanOrEqual(7 * 86_400_000);
    expect(last + 8 * 3_600_000 - start).toBeGreaterThan(7 * 86_400_000);
  });
});

describe('judge: what acknowledges a delivery', () => {
  const current = { ackReference: 'ack_1', acknowledgement: true };
  it('only a 200 with the reference echoed exactly and status received', () => {
    expect(judge(200, '{"ackReference":"ack_1","status":"received"}', current)).toBeUndefined();
    expect(judge(200, '{"status":"received","ackReference":"ack_1","extra":1}', current)).toBeUndefined();
    expect(judge(201, '{"ackReference":"ack_1","status":"received"}', current)).toContain('HTTP 201');
    expect(judge(200, '', current)).toContain('empty body');
    expect(judge(200, '{"ackReference":"ACK_1","status":"received"}', current)).toContain('echo it exactly');
    expect(judge(200, '{"ackReference":"ack_1","status":"RECEIVED"}', current)).toContain('must be "received"');
    expect(judge(200, '["ack_1"]', current)).toContain('not a JSON object');
    expect(judge(200, '{"status":"success"}', current)).toContain('without an ackReference');
  });
  it('on the older page, any 200', () => {
    expect(judge(200, '', { ackReference: 'ack_1', acknowledgement: false })).toBeUndefined();
    expect(judge(500, '', { ackReference: 'ack_1', acknowledgement: false })).toContain('HTTP 500');
  });
  it('quotes a long answer only in part, and never a card number in full', () => {
    const reason = judge(500, `card 4111111111111111 ${'x'.repeat(5000)}`, current)!;
    expect(reason.length).toBeLessThan(400);
  });
});

describe('what falls due', () => {
  const rule = (name: string) => CATALOGUE.find((scenario) => scenario.name === name)!;
  it('a rule settle, or the method lifetime, or a transfer walletDaysActive days', () => {
    const now = '2026-01-01T00:00:00.000Z';
    expect(dueOf(rule('momo-approved-later'), 'MOMO', now)).toEqual({ at: '2026-01-01T00:00:10.000Z', event: 'settle', outcome: 'success' });
    expect(dueOf(rule('account-pending'), 'ACCOUNT', now)).toEqual({ at: '2026-01-01T00:30:00.000Z', event: 'expire' });
    expect(dueOf(rule('checkout-link-created'), 'CHECKOUT', now)).toEqual({ at: '2026-01-02T00:00:00.000Z', event: 'expire' });
    expect(dueOf(rule('transfer-account-opened'), 'TRANSFER', now, 3)).toEqual({ at: '2026-01-04T00:00:00.000Z', event: 'expire' });
    expect([walletDaysOf('3'), walletDaysOf(2), walletDaysOf('0'), walletDaysOf('-1'), walletDaysOf('1.5'), walletDaysOf(null)]).toEqual([3, 2, undefined, undefined, undefined, undefined]);
  });

  it('settleDue carries out a settlement or an expiry through the catalogue, and a payment no longer pending refuses it', () => {
    const due = { ...pending, due: { at: '2025-01-01T12:00:10.000Z', event: 'settle' as const, outcome: 'failure' as const } };
    expect(settleDue(ENGINE, due, '2025-01-01T12:00:10.000Z')!.payment).toMatchObject({ status: 'FAILED', code: 'S12', scenario: 'settled-later-failure' });
    const expiring = { ...pending, due: { at: '2025-01-01T12:30:00.000Z', event: 'expire' as const } };
    const expired = settleDue(ENGINE, expiring, '2025-01-01T12:30:00.000Z')!.payment!;
    expect(expired).toMatchObject({ status: 'EXPIRED', code: 'S12', message: 'Transaction Expired' });
    expect(expired.due).toBeUndefined();
    expect(settleDue(ENGINE, { ...expired, due: expiring.due }, '2025-01-01T12:31:00.000Z')!.refused).toBe('not-pending');
    expect(settleDue(ENGINE, pending, '2025-01-01T12:31:00.000Z')).toBeUndefined();
  });
});

describe('durations', () => {
  it('reads fixed-length ISO 8601 durations and writes them back', () => {
    expect(['PT30S', 'PT2M', 'PT1H', 'P2D', 'P1W', 'PT0.5S'].map(durationMs)).toEqual([30_000, 120_000, 3_600_000, 172_800_000, 604_800_000, 500]);
    for (const bad of ['P1Y', 'P1M', '-PT1H', 'one hour', '']) expect(() => durationMs(bad), bad).toThrow(RangeError);
    expect([0, 90_000, 86_400_000 + 7_200_000].map(durationOf)).toEqual(['PT0S', 'PT1M30S', 'P1DT2H']);
  });
});

describe('the outbox', () => {
  it('writes a payment change and the delivery of its event on one line of the log, built from the stored record', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'sandbox-outbox-'));
    const store = await Store.open({ file: join(folder, 'sandbox.json'), sync: 'full' });
    try {
      store.putWebhook(pending.publicKey, { publicKey: pending.publicKey, url: 'http://127.0.0.1:9/hook', schedule: 'current', updatedAt: '2026-01-01T00:00:00.000Z' });
      store.putPayment(pending);
      await store.commit();
      const clocks = new MerchantClocks(store, () => Date.parse('2026-01-01T00:00:00.000Z'));
      const outbox = new NotificationOutbox({ store, clocks, faults: new NotificationFaults(), engine: ENGINE });
      const paid = transition(pending, { type: 'settle', status: 'SUCCESSFUL' }, outcome('00', 'Successful')).payment!;
      await store.transaction(() => putWrites(store, [paymentWrite(paid, pending)], outbox));
      const lines = (await readFile(join(folder, 'sandbox.json.wal'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line));
      const last = lines.at(-1);
      expect(last.kind).toBe('payment');
      expect(last.payment).toEqual(paid);
      expect(last.deliveries).toHaveLength(1);
      expect(last.deliveries[0]).toMatchObject({ state: 'scheduled', dueAt: '2026-01-01T00:00:00.000Z', paymentReference: paid.paymentReference });
      expect(last.deliveries[0].event.data).toMatchObject({ reference: paid.paymentReference, code: '00', updatedAt: paid.updatedAt.slice(0, 23) });
      expect(store.deliveries(pending.publicKey)).toEqual(last.deliveries);
      // Without a URL, the same change makes none.
      store.putWebhook(pending.publicKey, null);
      expect(outbox.deliveriesFor(pending, paid)).toEqual([]);
    } finally {
      await store.close();
      await rm(folder, { recursive: true, force: true });
    }
  });
});
