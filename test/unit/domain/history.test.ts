import { describe, expect, it } from 'vitest';
import { transition } from '../../../src/domain/state-machine.js';
import { HISTORY_LIMIT, type Payment } from '../../../src/model/records.js';

/** A payment's history, appended by the state machine and bounded (docs/decisions.md#d79-payment-history). */

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();
const outcome = (minute: number, code = '00', message = 'Successful') => ({ code, message, scenario: 'test-rule', now: at(minute) });

function created(): Payment {
  const record: Payment = {
    publicKey: 'SBTESTPUBK_history00001', paymentReference: 'REF-HISTORY', linkingReference: 'SBLNK_x', method: 'CARD',
    status: 'PENDING', code: '', message: '', amount: '100.00', refundedAmount: '0.00', currency: 'NGN', country: 'NG', scenario: '',
    createdAt: at(0), updatedAt: at(0),
  };
  return transition(undefined, { type: 'create', record, status: 'PENDING' }, outcome(0, 'S20', 'Transaction is pending')).payment!;
}

describe("a payment's history", () => {
  it('records each outcome: when, the new status, code, message, rule and event', () => {
    const paid = transition(created(), { type: 'settle', status: 'SUCCESSFUL' }, outcome(1)).payment!;
    const part = transition(paid, { type: 'refund', amountMinor: 4000 }, outcome(2, '00', '')).payment!;
    const whole = transition(part, { type: 'refund', amountMinor: 6000 }, outcome(3)).payment!;
    expect(whole.history).toEqual([
      { at: at(0), status: 'PENDING', code: 'S20', message: 'Transaction is pending', scenario: 'test-rule', event: 'create' },
      { at: at(1), status: 'SUCCESSFUL', code: '00', message: 'Successful', scenario: 'test-rule', event: 'settle' },
      // A partial refund keeps the status, and is an outcome all the same; an empty message is left out.
      { at: at(2), status: 'SUCCESSFUL', code: '00', scenario: 'test-rule', event: 'refund' },
      { at: at(3), status: 'REFUNDED', code: '00', message: 'Successful', scenario: 'test-rule', event: 'refund' },
    ]);
  });

  it('is not touched by a refusal, nor by a change or charge of a subscription', () => {
    const paid = transition(created(), { type: 'settle', status: 'SUCCESSFUL' }, outcome(1)).payment!;
    const refused = transition(paid, { type: 'cancel' }, outcome(2));
    expect(refused.refused).toBe('not-pending');
    expect(refused.payment!.history).toHaveLength(2);
    const withSubscription: Payment = { ...paid, subscription: { billingCycle: 'DAILY', billingPeriod: 1, amount: '100.00', status: 'ACTIVE', startDate: at(0), charges: 0, nextChargeAt: at(60) } };
    const billed = transition(withSubscription, { type: 'bill' }, outcome(3)).payment!;
    expect(billed.subscription!.charges).toBe(1);
    expect(billed.history).toBe(paid.history);
  });

  it('starts at the first change of a record written before it was kept', () => {
    const { history: _history, ...older } = created();
    const paid = transition(older, { type: 'settle', status: 'SUCCESSFUL' }, outcome(1)).payment!;
    expect(paid.history).toEqual([{ at: at(1), status: 'SUCCESSFUL', code: '00', message: 'Successful', scenario: 'test-rule', event: 'settle' }]);
  });

  it(`keeps the last ${HISTORY_LIMIT} entries, the oldest dropped`, () => {
    let payment = created();
    // A step that leaves it PENDING, again and again: each is an outcome.
    for (let minute = 1; minute <= HISTORY_LIMIT + 20; minute += 1) payment = transition(payment, { type: 'settle', status: 'PENDING' }, outcome(minute, 'S20')).payment!;
    expect(payment.history).toHaveLength(HISTORY_LIMIT);
    expect(payment.history![0]!.at).toBe(at(21));
    expect(payment.history!.at(-1)!.at).toBe(at(HISTORY_LIMIT + 20));
  });
});
