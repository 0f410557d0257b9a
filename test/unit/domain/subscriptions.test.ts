import { describe, expect, it } from 'vitest';
import { chargeTimeMs, nextChargeAfter, startDateOf } from '../../../src/domain/billing.js';
import { transition } from '../../../src/domain/state-machine.js';
import { chargeDue, chargeReferenceOf } from '../../../src/domain/subscriptions.js';
import type { Payment, Subscription } from '../../../src/model/records.js';
import { ENGINE, MERCHANT, NOW } from './fixtures.js';

/**
 * Subscriptions without HTTP (README, "Subscriptions"; docs/decisions.md#d59-subscriptions): when
 * charges fall, how the state machine starts, pauses and counts a
 * subscription, and what a charge that falls due writes.
 */

const at = (iso: string) => new Date(iso).toISOString();
const cycle = (billingCycle: Subscription['billingCycle'], startDate: string, billingPeriod = 1) => ({ billingCycle, billingPeriod, startDate: at(startDate) });

describe('when a subscription\'s charges fall (src/domain/billing.ts)', () => {
  it('counts calendar months from the start date each time, the day held to the month\'s last', () => {
    const monthly = cycle('MONTHLY', '2027-01-31T09:00:00Z');
    expect([1, 2, 3, 13].map((n) => new Date(chargeTimeMs(monthly, n)).toISOString())).toEqual([
      '2027-02-28T09:00:00.000Z', '2027-03-31T09:00:00.000Z', '2027-04-30T09:00:00.000Z', '2028-02-29T09:00:00.000Z',
    ]);
    expect(new Date(chargeTimeMs(cycle('ANNUALLY', '2028-02-29T00:00:00Z'), 1)).toISOString()).toBe('2029-02-28T00:00:00.000Z');
    expect(new Date(chargeTimeMs(cycle('WEEKLY', '2027-01-01T00:00:00Z', 2), 3)).toISOString()).toBe('2027-02-12T00:00:00.000Z');
  });

  it('the next charge is the first strictly after the given time: the start date when it is to come, else the next whole period', () => {
    expect(nextChargeAfter(cycle('DAILY', '2027-05-01T06:00:00Z'), NOW)).toBe('2027-05-01T06:00:00.000Z');
    // A start date in the past charges nothing for the time before.
    expect(nextChargeAfter(cycle('WEEKLY', '2020-02-25T00:00:00Z'), '2026-11-25T04:00:00.000Z')).toBe('2026-12-01T00:00:00.000Z');
    expect(nextChargeAfter(cycle('HOURLY', '2020-01-01T00:30:00Z'), '2026-11-25T04:30:00.000Z')).toBe('2026-11-25T05:30:00.000Z');
    expect(nextChargeAfter(cycle('MONTHLY', '2000-01-31T00:00:00Z'), '2027-02-28T00:00:00.000Z')).toBe('2027-03-31T00:00:00.000Z');
  });

  it('reads the provider\'s start date form as UTC, and ISO 8601; anything else is no date', () => {
    expect(startDateOf('2020-02-25 00:00:00')).toBe('2020-02-25T00:00:00.000Z');
    expect(startDateOf('2020-02-25')).toBe('2020-02-25T00:00:00.000Z');
    expect(startDateOf('2020-02-25T10:00:00+01:00')).toBe('2020-02-25T09:00:00.000Z');
    expect(startDateOf('25/02/2020')).toBeUndefined();
    expect(startDateOf('2020-02-30 00:00:00')).toBeUndefined();
  });
});

/** A subscription's first payment as stored, pending its customer. */
function started(fields: Partial<Subscription> = {}): Payment {
  return {
    publicKey: MERCHANT.publicKey, paymentReference: 'SBREF-SUB-U1', linkingReference: 'SBLNK_00000000000000000099', method: 'CARD', status: 'PENDING',
    code: 'S20', message: 'Transaction is pending', amount: '1000.00', refundedAmount: '0.00', currency: 'NGN', country: 'NG', scenario: 'subscription-authentication-pending',
    card: { bin: '512345', last4: '0008', token: 'SBCTK_0' }, authorizationCode: '0123456789abcdef0123',
    subscription: { billingCycle: 'WEEKLY', billingPeriod: 1, amount: '1000.00', status: 'INACTIVE', startDate: '2025-12-30T00:00:00.000Z', charges: 0, ...fields },
    createdAt: NOW, updatedAt: NOW,
  };
}

const outcome = (now: string) => ({ code: '00', message: 'Successful', scenario: 'otp-correct', now });

describe('a subscription in the state machine', () => {
  it('is ACTIVE once its first payment is paid, next charged a period after the start date\'s last occurrence', () => {
    const paid = transition(started(), { type: 'settle', status: 'SUCCESSFUL' }, outcome(NOW)).payment!;
    expect(paid.subscription).toMatchObject({ status: 'ACTIVE', nextChargeAt: '2026-01-06T00:00:00.000Z', charges: 0 });
    const failed = transition(started(), { type: 'settle', status: 'FAILED' }, outcome(NOW)).payment!;
    expect(failed.subscription).toMatchObject({ status: 'INACTIVE' });
    expect(failed.subscription!.nextChargeAt).toBeUndefined();
  });

  it('is paused, resumed at its next time still to come, and repriced; refused before its first payment is paid', () => {
    const paid = transition(started(), { type: 'settle', status: 'SUCCESSFUL' }, outcome(NOW)).payment!;
    const paused = transition(paid, { type: 'update-subscription', status: 'INACTIVE', amount: '20.00' }, outcome('2026-01-20T00:00:00.000Z')).payment!;
    expect(paused.subscription).toMatchObject({ status: 'INACTIVE', amount: '20.00' });
    expect(paused.subscription!.nextChargeAt).toBeUndefined();
    expect([paused.status, paused.amount]).toEqual(['SUCCESSFUL', '1000.00']);
    const resumed = transition(paused, { type: 'update-subscription', status: 'ACTIVE' }, outcome('2026-01-20T00:00:00.000Z')).payment!;
    expect(resumed.subscription).toMatchObject({ status: 'ACTIVE', nextChargeAt: '2026-01-27T00:00:00.000Z', amount: '20.00' });
    expect(transition(started(), { type: 'update-subscription', status: 'ACTIVE' }, outcome(NOW)).refused).toBe('not-paid');
  });
});

describe('a charge that falls due (chargeDue)', () => {
  const active = () => transition(started(), { type: 'settle', status: 'SUCCESSFUL' }, outcome(NOW)).payment!;

  it('writes the charge first, then the subscription counted and moved a period on', () => {
    const subscription = active();
    const writes = chargeDue(ENGINE, MERCHANT, subscription, undefined, '2026-01-06T00:00:00.000Z');
    expect(writes.map((write) => write.kind === 'payment' && write.payment.paymentReference)).toEqual(['SBREF-SUB-U1-1', 'SBREF-SUB-U1']);
    const [charge, moved] = writes.map((write) => (write.kind === 'payment' ? write.payment : undefined));
    expect(charge).toMatchObject({
      status: 'SUCCESSFUL', code: '00', amount: '1000.00', card: subscription.card, recurring: { billingId: 'SBREF-SUB-U1', kind: 'scheduled', cycle: 1 },
      withoutAuthentication: true, createdAt: '2026-01-06T00:00:00.000Z', scenario: 'subscription-charged',
    });
    expect(charge!.linkingReference).not.toBe(subscription.linkingReference);
    expect(moved!.subscription).toMatchObject({ charges: 1, nextChargeAt: '2026-01-13T00:00:00.000Z' });
    expect([moved!.code, moved!.status]).toEqual([subscription.code, 'SUCCESSFUL']);
  });

  it('does not make a charge already stored again (a crash between the two writes): it only moves the subscription on', () => {
    const subscription = active();
    const [first] = chargeDue(ENGINE, MERCHANT, subscription, undefined, '2026-01-06T00:00:00.000Z');
    const made = first!.kind === 'payment' ? first!.payment : undefined;
    expect(made?.paymentReference).toBe(chargeReferenceOf('SBREF-SUB-U1', 1));
    const again = chargeDue(ENGINE, MERCHANT, subscription, made, '2026-01-06T00:00:01.000Z');
    expect(again.map((write) => write.kind === 'payment' && write.payment.paymentReference)).toEqual(['SBREF-SUB-U1']);
  });

  it('a declining card\'s charge fails (subscription-charge-declined); a paused subscription writes nothing', () => {
    const declining = transition({ ...started(), card: { bin: '400000', last4: '0341', token: 'SBCTK_1' } }, { type: 'settle', status: 'SUCCESSFUL' }, outcome(NOW)).payment!;
    const [charge] = chargeDue(ENGINE, MERCHANT, declining, undefined, '2026-01-06T00:00:00.000Z');
    expect(charge!.kind === 'payment' && [charge!.payment.status, charge!.payment.code, charge!.payment.scenario]).toEqual(['FAILED', 'S12', 'subscription-charge-declined']);
    const paused = transition(active(), { type: 'update-subscription', status: 'INACTIVE' }, outcome(NOW)).payment!;
    expect(chargeDue(ENGINE, MERCHANT, paused, undefined, '2026-01-06T00:00:00.000Z')).toEqual([]);
  });
});
