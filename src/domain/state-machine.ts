import { fromMinor, toMinor } from '../model/money.js';
import { HISTORY_LIMIT, type Payment, type PaymentDue, type PaymentHistoryEntry, type PaymentHistoryEvent, type PaymentStatus, type StoredCard, type Subscription, type TransferAccount } from '../model/records.js';
import { nextChargeAfter } from './billing.js';
import { authorisationDue } from './due.js';

/**
 * The payment state machine (docs/decisions.md#d12-payment-states): the one place where a
 * payment comes into being or changes. Every operation, customer page and
 * control action sends it an event; it checks the event against the table
 * and builds the new record (stored records are never changed in place),
 * which the caller's answer stores (src/domain/commit.ts). What it refuses
 * changes nothing, whatever rule was chosen: the catalogue names an answer,
 * the state machine decides whether it may happen.
 */

/** Something that happens to a payment. Amounts are in minor units. */
export type PaymentEvent =
  /** initiate, hosted checkout link, order: a new payment in its first state */
  | { type: 'create'; record: Payment; status: PaymentStatus }
  /** the customer picks a way to pay on the hosted checkout page (a declined card fails it at once) */
  | { type: 'choose-channel'; channel: NonNullable<Payment['channel']>; status: PaymentStatus; card?: StoredCard; transfer?: TransferAccount }
  /** an OTP, a card authentication, a transfer received, a settle over the control API */
  | { type: 'settle'; status: PaymentStatus }
  /** a capture of `amountMinor` of a card pre-authorisation (POST /payments/capture) */
  | { type: 'capture'; amountMinor: number }
  /** a refund of `amountMinor` */
  | { type: 'refund'; amountMinor: number }
  /** a cancel by the merchant or by the customer */
  | { type: 'cancel' }
  /** a pending payment's lifetime ran out, or an uncaptured authorisation's (README, "Time") */
  | { type: 'expire' }
  /** PUT /recurring/updates: a subscription paused or resumed, its charge's amount changed */
  | { type: 'update-subscription'; status: Subscription['status']; amount?: string }
  /** a subscription's charge fell due and was made: it is counted, and the next one falls a period later */
  | { type: 'bill' };

/** The event's type. */
export type PaymentEventType = PaymentEvent['type'];

/**
 * The table: the states an event may leave (`from`; `none` for a reference
 * not used yet) and the states it may lead to. docs/decisions.md#d12-payment-states: completion
 * needs PENDING, a refund SUCCESSFUL, a cancel PENDING; a PENDING payment expires (README, "Time").
 * A card pre-authorisation (README, "Card pre-authorisation") is created
 * AUTHORIZED (or PENDING, for 3-D Secure, and then settled to AUTHORIZED),
 * captured in parts or at once, cancelled (voided) or expired while nothing
 * is captured, and refunded up to what was captured.
 */
export const TRANSITIONS: Readonly<Record<PaymentEventType, { from: readonly (PaymentStatus | 'none')[]; to: readonly PaymentStatus[] }>> = {
  create: { from: ['none'], to: ['PENDING', 'SUCCESSFUL', 'FAILED', 'AUTHORIZED', 'CAPTURED', 'TOKENIZED'] },
  'choose-channel': { from: ['PENDING'], to: ['PENDING', 'FAILED'] },
  settle: { from: ['PENDING'], to: ['PENDING', 'SUCCESSFUL', 'FAILED', 'AUTHORIZED'] },
  capture: { from: ['AUTHORIZED', 'PARTIALLY_CAPTURED'], to: ['PARTIALLY_CAPTURED', 'CAPTURED'] },
  refund: { from: ['SUCCESSFUL', 'CAPTURED', 'PARTIALLY_CAPTURED'], to: ['SUCCESSFUL', 'CAPTURED', 'PARTIALLY_CAPTURED', 'REFUNDED'] },
  cancel: { from: ['PENDING', 'AUTHORIZED'], to: ['CANCELLED'] },
  expire: { from: ['PENDING', 'AUTHORIZED'], to: ['EXPIRED'] },
  // A subscription is its first payment's: it can be changed and charged once that payment is paid, whatever was refunded of it since.
  'update-subscription': { from: ['SUCCESSFUL', 'REFUNDED'], to: ['SUCCESSFUL', 'REFUNDED'] },
  bill: { from: ['SUCCESSFUL', 'REFUNDED'], to: ['SUCCESSFUL', 'REFUNDED'] },
};

/**
 * Why the state machine refused an event:
 * - `reference-used`: a payment with this reference exists (spec, Limits 1);
 * - `not-pending`: the payment is no longer pending (completion, cancel, a customer's step);
 * - `not-paid`: a refund of a payment never paid, a change or charge of a subscription whose first payment is not paid;
 * - `not-authorised`: a capture of a payment that is no pre-authorisation, or is no longer open to capture;
 * - `fully-refunded`: a refund of a payment refunded in full;
 * - `exceeds-amount`: a refund or capture above what is left of the amount, or of nothing.
 */
export type Refusal = 'reference-used' | 'not-pending' | 'not-paid' | 'not-authorised' | 'fully-refunded' | 'exceeds-amount';

/** What the outcome of an event says of the payment: its result code and message, and the rule that gave them. */
export interface Outcome {
  code: string;
  message: string;
  /** the deciding scenario's name, kept on the payment */
  scenario: string;
  /** ISO 8601 UTC, on the merchant's clock */
  now: string;
  /** what falls due if the payment is left PENDING (src/domain/due.ts); absent: what was due before stays due */
  due?: PaymentDue;
}

/** The result of an event: the payment's new record, to be stored, or why nothing may happen. */
export type Transition = { payment: Payment; refused?: undefined } | { refused: Refusal; payment?: Payment };

/**
 * Applies `event` to `current` (undefined: no payment with that reference).
 * Every event that gives the payment a new outcome (all but a subscription's
 * change or charge, which leave the payment's own outcome as it was) appends
 * one entry to its `history`, which keeps the last HISTORY_LIMIT
 * (docs/decisions.md#d79-payment-history).
 * @returns the new record (not stored: the caller's answer writes it), or a
 *   refusal, with `current` as it stands
 * @throws Error when the event would lead to a state the table does not allow
 *   (a programming error: the catalogue's states are checked at load)
 */
export function transition(current: Payment | undefined, event: PaymentEvent, outcome: Outcome): Transition {
  const rule = TRANSITIONS[event.type];
  const refusal = refusalOf(current, event);
  if (refusal) return { refused: refusal, payment: current };
  const next = nextRecord(current, event, outcome);
  if (!rule.to.includes(next.status)) throw new Error(`${event.type} cannot lead to ${next.status}`);
  if (event.type !== 'update-subscription' && event.type !== 'bill') next.history = historyAfter(current?.history, event.type, next.status, outcome);
  return { payment: next };
}

// The history with this outcome appended, bounded to the last HISTORY_LIMIT. It is set on the new record, which
// no one else holds yet, rather than spread into one more copy: a key added to a spread copy costs V8 a new hidden
// class for every record, which made every later reader of payments (the store's validator first) slow.
function historyAfter(before: PaymentHistoryEntry[] = [], event: PaymentHistoryEvent, status: PaymentStatus, outcome: Outcome): PaymentHistoryEntry[] {
  const entry: PaymentHistoryEntry = outcome.message
    ? { at: outcome.now, status, code: outcome.code, message: outcome.message, scenario: outcome.scenario, event }
    : { at: outcome.now, status, code: outcome.code, scenario: outcome.scenario, event };
  // A record written before the history was kept has none: its history starts here.
  const kept = before.length < HISTORY_LIMIT ? before.slice() : before.slice(before.length - HISTORY_LIMIT + 1);
  kept.push(entry);
  return kept;
}

/**
 * Why the table refuses `event` on `current` (undefined: no payment with
 * that reference), or undefined when it allows it.
 */
export function refusalOf(current: Payment | undefined, event: PaymentEvent): Refusal | undefined {
  const { from } = TRANSITIONS[event.type];
  if (!current) return from.includes('none') ? undefined : event.type === 'capture' ? 'not-authorised' : 'not-pending';
  if (from.includes(current.status)) {
    if (event.type !== 'refund' && event.type !== 'capture') return undefined;
    const left = event.type === 'refund' ? refundable(current) : toMinor(current.amount) - toMinor(current.capturedAmount ?? '0.00');
    return event.amountMinor <= 0 || event.amountMinor > left ? 'exceeds-amount' : undefined;
  }
  if (event.type === 'create') return 'reference-used';
  if (event.type === 'refund') return current.status === 'REFUNDED' ? 'fully-refunded' : 'not-paid';
  if (event.type === 'capture') return 'not-authorised';
  if (event.type === 'update-subscription' || event.type === 'bill') return 'not-paid';
  return 'not-pending';
}

/** What is left to refund of a payment, in minor units: of a pre-authorisation, what was captured; else its amount. */
export function refundable(payment: Payment): number {
  return toMinor(payment.capturedAmount ?? payment.amount) - toMinor(payment.refundedAmount);
}

/** The response header that carries `refusalReason`, for the developer (docs/decisions.md#d35-refusal-reasons). */
export const REASON_HEADER = 'X-Sandbox-Reason';

/**
 * Why a payment refused an event, for the developer: the answer keeps the
 * spec's code and message for clients (S12 Transaction Failed, RR, the
 * provider's 400), and this sentence goes to X-Sandbox-Reason and the
 * journal, e.g. "payment SB-1 is SUCCESSFUL; only a PENDING payment can be validated".
 * @param doing what the request asked, in the passive: `validated`, `cancelled`, `refunded`...
 */
export function refusalReason(refusal: Refusal, payment: Payment | undefined, event: PaymentEvent, doing: string): string {
  const named = payment ? `payment ${payment.paymentReference}` : 'the payment';
  switch (refusal) {
    case 'reference-used':
      return `paymentReference ${payment?.paymentReference ?? ''} is already used by a ${payment?.status ?? ''} payment of this merchant`;
    case 'not-pending':
      return payment ? `${named} is ${payment.status}; only a ${allowed(event)} payment can be ${doing}` : `there is no such payment to be ${doing}`;
    case 'not-paid':
      return `${named} is ${payment?.status ?? 'unknown'}; only a ${allowed(event)} payment can be ${doing}`;
    case 'not-authorised':
      return payment ? `${named} is ${payment.status}; only an ${allowed(event)} payment can be ${doing}` : `there is no such payment to be ${doing}`;
    case 'fully-refunded':
      return `${named} is already refunded in full (${payment?.amount ?? ''} ${payment?.currency ?? ''})`;
    case 'exceeds-amount': {
      const asked = event.type === 'refund' ? fromMinor(event.amountMinor) : '';
      if (event.type === 'refund' && event.amountMinor <= 0) return `a refund of ${asked} refunds nothing`;
      if (event.type === 'capture') {
        const uncaptured = payment ? fromMinor(toMinor(payment.amount) - toMinor(payment.capturedAmount ?? '0.00')) : '0.00';
        const captured = fromMinor(event.amountMinor);
        if (event.amountMinor <= 0) return `a capture of ${captured} captures nothing`;
        return `a capture of ${captured} is more than the ${uncaptured} ${payment?.currency ?? ''} authorised and not yet captured of ${named}`;
      }
      const left = payment ? fromMinor(refundable(payment)) : '0.00';
      return `a refund of ${asked} is more than the ${left} ${payment?.currency ?? ''} left of ${named}`;
    }
  }
}

// The states an event may leave, as the reason words them: "PENDING or AUTHORIZED", "SUCCESSFUL, CAPTURED or PARTIALLY_CAPTURED".
function allowed(event: PaymentEvent): string {
  const states = TRANSITIONS[event.type].from.filter((state) => state !== 'none');
  return states.length < 2 ? states.join('') : `${states.slice(0, -1).join(', ')} or ${states.at(-1)}`;
}

// Something falls due for a PENDING payment (its settlement or lifetime) and for a pre-authorisation just
// AUTHORIZED (its expiry); any other change leaves nothing to wait for, a capture included.
// The record is built in one literal, `due` set or cleared in it: a property deleted afterwards would make the record a slow dictionary object.
function nextRecord(current: Payment | undefined, event: PaymentEvent, outcome: Outcome): Payment {
  // A pre-authorisation that its customer authenticates is authorised, not paid: it waits for its capture.
  const settled = event.type === 'settle' && event.status === 'SUCCESSFUL' && current?.capturedAmount !== undefined ? { ...event, status: 'AUTHORIZED' as const } : event;
  const status = settled.type === 'create' || settled.type === 'choose-channel' || settled.type === 'settle' ? settled.status : undefined;
  const due = status === 'PENDING' ? (outcome.due ?? current?.due) : status === 'AUTHORIZED' ? authorisationDue(outcome.now) : undefined;
  return changed(current, settled, outcome, due);
}

function changed(current: Payment | undefined, event: PaymentEvent, outcome: Outcome, due: PaymentDue | undefined): Payment {
  const { code, message, scenario, now } = outcome;
  switch (event.type) {
    case 'create': {
      const created = { ...event.record, status: event.status, code, message, scenario, due, createdAt: now, updatedAt: now };
      // Only a subscription's record has the key: set on it alone, so that no other record changes shape.
      if (created.subscription && event.status === 'SUCCESSFUL') created.subscription = activated(created.subscription, now);
      return created;
    }
    case 'choose-channel':
      return {
        ...current!,
        channel: event.channel,
        ...(event.card ? { card: event.card } : {}),
        ...(event.transfer ? { transfer: event.transfer } : {}),
        status: event.status,
        code, message, scenario, due, updatedAt: now,
      };
    case 'settle': {
      const settled = { ...current!, status: event.status, code, message, scenario, due, updatedAt: now };
      // A subscription starts once its first payment is paid.
      if (settled.subscription && event.status === 'SUCCESSFUL') settled.subscription = activated(settled.subscription, now);
      return settled;
    }
    case 'capture': {
      const captured = toMinor(current!.capturedAmount ?? '0.00') + event.amountMinor;
      const status = captured === toMinor(current!.amount) ? 'CAPTURED' : 'PARTIALLY_CAPTURED';
      return { ...current!, capturedAmount: fromMinor(captured), status, code, message, scenario, due, updatedAt: now };
    }
    case 'refund': {
      const refunded = toMinor(current!.refundedAmount) + event.amountMinor;
      const status = refunded === toMinor(current!.capturedAmount ?? current!.amount) ? 'REFUNDED' : current!.status;
      return { ...current!, refundedAmount: fromMinor(refunded), status, code, message, scenario, due, updatedAt: now };
    }
    case 'cancel':
      return { ...current!, status: 'CANCELLED', code, message, scenario, due, updatedAt: now };
    case 'expire':
      return { ...current!, status: 'EXPIRED', code, message, scenario, due, updatedAt: now };
    case 'update-subscription': {
      const before = current!.subscription!;
      const amount = event.amount ?? before.amount;
      // Resumed, it is next charged at the first charge time still to come: what fell due while it was paused is not made up.
      const subscription: Subscription = event.status === 'ACTIVE'
        ? { ...before, amount, status: 'ACTIVE', nextChargeAt: before.status === 'ACTIVE' ? before.nextChargeAt : nextChargeAfter(before, now) }
        : { ...before, amount, status: 'INACTIVE', nextChargeAt: undefined };
      return { ...current!, subscription, updatedAt: now };
    }
    case 'bill': {
      const before = current!.subscription!;
      const subscription: Subscription = { ...before, charges: before.charges + 1, nextChargeAt: nextChargeAfter(before, before.nextChargeAt ?? now) };
      return { ...current!, subscription, updatedAt: now };
    }
  }
}

// A subscription whose first payment is paid at `now`: charged from then on, at the first charge time after it.
const activated = (subscription: Subscription, now: string): Subscription => ({ ...subscription, status: 'ACTIVE', nextChargeAt: nextChargeAfter(subscription, now) });
