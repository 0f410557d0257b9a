import { describe, expect, it } from 'vitest';
import type { Payment, PaymentStatus } from '../../../src/model/records.js';
import { TRANSITIONS, refusalOf, transition, type PaymentEvent } from '../../../src/domain/state-machine.js';

/** The payment state machine, event by event and state by state (docs/decisions.md#d12-payment-states). */

const STATES: PaymentStatus[] = ['PENDING', 'SUCCESSFUL', 'FAILED', 'CANCELLED', 'REFUNDED'];
const outcome = { code: '00', message: 'Successful', scenario: 'test', now: '2026-01-01T00:00:00.000Z' };

function payment(status: PaymentStatus, refundedAmount = '0.00'): Payment {
  return {
    publicKey: 'SBTESTPUBK_statemachine1', paymentReference: `REF-${status}`, linkingReference: 'SBLNK_x', method: 'CARD',
    status, code: '', message: '', amount: '100.00', refundedAmount, currency: 'NGN', country: 'NG', scenario: '',
    createdAt: outcome.now, updatedAt: outcome.now,
  };
}

const EVENTS: PaymentEvent[] = [
  { type: 'choose-channel', channel: 'ACCOUNT', status: 'PENDING' },
  { type: 'settle', status: 'SUCCESSFUL' },
  { type: 'refund', amountMinor: 1000 },
  { type: 'cancel' },
];

describe('the table', () => {
  it.each(EVENTS.flatMap((event) => STATES.map((status) => [event.type, status, event] as const)))(
    '%s from %s happens only where the table allows it, and a refusal changes nothing',
    (_type, status, event) => {
      const before = Object.freeze(payment(status));
      const done = transition(before, event, outcome);
      const allowed = TRANSITIONS[event.type].from.includes(status);
      expect(done.refused === undefined).toBe(allowed);
      if (allowed) {
        // A new record, in a state the table lists, for the caller's answer to store.
        expect(done.payment).not.toBe(before);
        expect(TRANSITIONS[event.type].to).toContain(done.payment!.status);
        expect(done.payment).toMatchObject({ code: outcome.code, message: outcome.message, scenario: outcome.scenario, updatedAt: outcome.now });
      } else {
        expect(done.payment).toBe(before);
      }
      // The record it was given is never changed in place.
      expect(before.status).toBe(status);
    },
  );

  it('creates only over a reference not used yet', () => {
    const record = payment('PENDING');
    expect(refusalOf(undefined, { type: 'create', record, status: 'PENDING' })).toBeUndefined();
    const made = transition(undefined, { type: 'create', record, status: 'PENDING' }, outcome);
    expect(made.payment).toMatchObject({ status: 'PENDING', code: '00', scenario: 'test' });
    const again = transition(made.payment, { type: 'create', record: { ...record, amount: '5.00' }, status: 'SUCCESSFUL' }, outcome);
    expect(again.refused).toBe('reference-used');
    expect(again.payment).toBe(made.payment);
  });

  it('refunds in parts up to the amount; REFUNDED once all of it is', () => {
    const paid = payment('SUCCESSFUL');
    expect(refusalOf(paid, { type: 'refund', amountMinor: 0 })).toBe('exceeds-amount');
    expect(refusalOf(paid, { type: 'refund', amountMinor: 10001 })).toBe('exceeds-amount');
    const part = transition(paid, { type: 'refund', amountMinor: 4000 }, outcome).payment!;
    expect(part).toMatchObject({ status: 'SUCCESSFUL', refundedAmount: '40.00' });
    const rest = transition(part, { type: 'refund', amountMinor: 6000 }, outcome).payment!;
    expect(rest).toMatchObject({ status: 'REFUNDED', refundedAmount: '100.00' });
    expect(refusalOf(rest, { type: 'refund', amountMinor: 1 })).toBe('fully-refunded');
    expect(refusalOf(payment('PENDING'), { type: 'refund', amountMinor: 1 })).toBe('not-paid');
  });

  it('an authorisation expires seven days after it is authorised, while nothing is captured (docs/decisions.md#d48-card-operations)', () => {
    const record = { ...payment('PENDING'), capturedAmount: '0.00' };
    const authorised = transition(undefined, { type: 'create', record, status: 'AUTHORIZED' }, outcome).payment!;
    expect(authorised.due).toEqual({ at: '2026-01-08T00:00:00.000Z', event: 'expire' });
    // Authorised later, by the customer's authentication: the seven days count from then.
    const pending = transition(undefined, { type: 'create', record, status: 'PENDING' }, outcome).payment!;
    const authenticated = transition(pending, { type: 'settle', status: 'SUCCESSFUL' }, { ...outcome, now: '2026-01-02T12:00:00.000Z' }).payment!;
    expect(authenticated).toMatchObject({ status: 'AUTHORIZED', due: { at: '2026-01-09T12:00:00.000Z', event: 'expire' } });
    const captured = transition(authorised, { type: 'capture', amountMinor: 1000 }, outcome).payment!;
    expect(captured).toMatchObject({ status: 'PARTIALLY_CAPTURED', due: undefined });
    expect(refusalOf(captured, { type: 'expire' })).toBe('not-pending');
    expect(transition(authorised, { type: 'expire' }, outcome).payment).toMatchObject({ status: 'EXPIRED', due: undefined });
    expect(refusalOf({ ...authorised, status: 'EXPIRED' }, { type: 'capture', amountMinor: 1000 })).toBe('not-authorised');
  });

  it('refuses to lead anywhere the table does not list', () => {
    expect(() => transition(payment('PENDING'), { type: 'settle', status: 'REFUNDED' }, outcome)).toThrow('settle cannot lead to REFUNDED');
  });
});

describe('the README', () => {
  it('shows the table as it is (docs/decisions.md#d12-payment-states)', async () => {
    const { readFile } = await import('node:fs/promises');
    const readme = await readFile(new URL('../../../README.md', import.meta.url), 'utf8');
    for (const [type, { from, to }] of Object.entries(TRANSITIONS)) {
      const row = readme.split('\n').find((line) => line.trim().startsWith(`| ${type} `));
      expect(row, type).toBeDefined();
      const [, , fromCell, toCell] = row!.split('|').map((cell) => cell.trim());
      for (const state of from) expect(fromCell, `${type} from`).toContain(state === 'none' ? 'not used yet' : state);
      expect([...new Set(toCell!.match(/[A-Z][A-Z_]{4,}/g))].sort()).toEqual([...new Set(to)].sort());
    }
  });
});
