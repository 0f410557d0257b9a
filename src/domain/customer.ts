import type { OutsideEvent } from '../model/operations.js';
import type { ScenarioEngine } from '../scenarios/engine.js';
import type { Scenario } from '../scenarios/scenario.js';
import type { Store } from '../store/store.js';
import { paymentWrite, type Write } from './answer.js';
import type { Outbox } from './commit.js';
import { cardOf, transferAccountOf } from './payments.js';
import type { Payment } from '../model/records.js';
import { transition, type PaymentEvent } from './state-machine.js';

/**
 * What a customer does on the sandbox's pages (README, "Pages"): pay a hosted
 * checkout by card, bank account or transfer, or cancel it; approve or
 * decline a card authentication. The catalogue decides every outcome: by the
 * same values as the API (test card numbers on the card, OTP 123456 at
 * authentication), and by its rules for the customer's own steps
 * (scenarios/payments.yaml, the OutsideEvent rules).
 * Every action goes through the payment state machine, which refuses it for a
 * payment no longer pending; the caller stores the step's writes
 * (src/domain/commit.ts).
 */

/** The outcome a customer action leaves: the payment as it now stands, and what is to be stored. */
export interface CustomerStep {
  payment: Payment;
  /** the new record of the payment; empty when the state machine refused the action */
  writes: readonly Write[];
  /** where the customer goes next: the card authentication page, the OTP or transfer step, back to the merchant, or (refused: no longer pending) the page as it stands */
  next: 'authenticate' | 'otp' | 'transfer' | 'return' | 'settled';
}

/** The tools a customer action needs: the store is read by the pages, and written through commitWrites with the outbox. */
export interface CustomerContext {
  store: Store;
  engine: ScenarioEngine;
  /** the merchant's clock, ISO 8601 UTC (README, "Time") */
  now: (publicKey: string) => string;
  /** what makes the notifications of a change (src/domain/commit.ts) */
  outbox?: Outbox;
}

/** The URL the customer is sent back to when the payment is settled, as the merchant sent it: the checkout's callbackUrl, or the card initiate's redirectUrl. */
export function returnUrlOf(payment: Payment): string | undefined {
  return payment.method === 'CHECKOUT' || payment.method === 'ORDER' ? payment.callbackUrl : payment.redirectUrl;
}

/**
 * The merchant's return URL with the outcome in its query string:
 * paymentReference, code, message and status (README, "Pages").
 * @param url a redirect target (isRedirectTarget, src/model/redirect-targets.ts)
 * @throws TypeError when `url` is no URL a browser parses
 */
export function returnWithOutcome(url: string, payment: Payment): string {
  const target = new URL(url);
  target.searchParams.set('paymentReference', payment.paymentReference);
  target.searchParams.set('code', payment.code);
  target.searchParams.set('message', payment.message);
  target.searchParams.set('status', payment.status);
  return target.toString();
}

/**
 * Pays a hosted checkout by card: the catalogue decides by the card number,
 * as the API does; a declining card fails it at once, any other asks for
 * authentication.
 */
export function payByCard(ctx: CustomerContext, payment: Payment, cardNumber: string): CustomerStep {
  const rule = ctx.engine.decide({
    operation: 'initiatePayment',
    variant: 'CARD',
    body: { paymentType: 'CARD', cardNumber, amount: payment.amount, currency: payment.currency, country: payment.country },
    headers: {},
  });
  const event: PaymentEvent = { type: 'choose-channel', channel: 'CARD', card: cardOf(cardNumber, payment.linkingReference), status: rule.then.state ?? 'PENDING' };
  return step(ctx, payment, event, outcomeOf(rule), (stored) => (stored.status === 'PENDING' ? 'authenticate' : 'return'));
}

/** Pays a hosted checkout from a bank account: the customer is asked for the OTP next (catalogue: customerPaysByAccount). */
export function payByAccount(ctx: CustomerContext, payment: Payment): CustomerStep {
  const rule = decided(ctx, 'customerPaysByAccount', payment);
  const event: PaymentEvent = { type: 'choose-channel', channel: 'ACCOUNT', status: rule.then.state ?? 'PENDING' };
  return step(ctx, payment, event, outcomeOf(rule), () => 'otp');
}

/** Pays a hosted checkout by bank transfer: the page shows the account to pay into (catalogue: customerPaysByTransfer). */
export function payByTransfer(ctx: CustomerContext, payment: Payment): CustomerStep {
  const rule = decided(ctx, 'customerPaysByTransfer', payment);
  const event: PaymentEvent = { type: 'choose-channel', channel: 'TRANSFER', transfer: transferAccountOf(payment), status: rule.then.state ?? 'PENDING' };
  return step(ctx, payment, event, outcomeOf(rule), () => 'transfer');
}

/** The customer says the transfer is sent: the sandbox receives it at once (catalogue: customerSendsTransfer). */
export function transferSent(ctx: CustomerContext, payment: Payment): CustomerStep {
  const rule = decided(ctx, 'customerSendsTransfer', payment);
  return step(ctx, payment, { type: 'settle', status: rule.then.state ?? 'SUCCESSFUL' }, outcomeOf(rule), () => 'return');
}

/**
 * Card authentication (or a bank account's OTP) by the customer: approving
 * with an OTP is decided by the catalogue as POST /payments/validate would
 * decide it (123456 succeeds, a card that stays pending stays pending);
 * declining, by the catalogue's customerDeclinesAuthentication rule.
 */
export function completeCardAuthentication(ctx: CustomerContext, payment: Payment, answer: { approve: true; otp: string } | { approve: false }): CustomerStep {
  const rule = answer.approve
    ? ctx.engine.decide({ operation: 'validatePayment', body: { otp: answer.otp }, payment, headers: {} })
    : decided(ctx, 'customerDeclinesAuthentication', payment);
  return step(ctx, payment, { type: 'settle', status: rule.then.state ?? payment.status }, outcomeOf(rule), () => 'return');
}

/** The customer cancels on the checkout page (catalogue: customerCancelsCheckout). */
export function cancelByCustomer(ctx: CustomerContext, payment: Payment): CustomerStep {
  return step(ctx, payment, { type: 'cancel' }, outcomeOf(decided(ctx, 'customerCancelsCheckout', payment)), () => 'return');
}

// The catalogue's rule for a customer's step on this payment.
const decided = (ctx: CustomerContext, event: OutsideEvent, payment: Payment): Scenario => ctx.engine.decide({ operation: event, body: {}, payment, headers: {} });

// The code, message and name a rule gives the payment it changes.
const outcomeOf = (rule: Scenario): { code: string; message: string; scenario: string } => ({ code: rule.then.code ?? '', message: rule.then.message ?? '', scenario: rule.name });

// One customer action through the state machine. A payment that is no longer
// pending (settled meanwhile, or on another tab) refuses it: the customer is
// shown where it stands.
function step(
  ctx: CustomerContext,
  payment: Payment,
  event: PaymentEvent,
  outcome: { code: string; message: string; scenario: string },
  next: (stored: Payment) => CustomerStep['next'],
): CustomerStep {
  const done = transition(payment, event, { ...outcome, now: ctx.now(payment.publicKey) });
  if (done.refused) return { payment, next: 'settled', writes: [] };
  return { payment: done.payment, next: next(done.payment), writes: [paymentWrite(done.payment, payment)] };
}
