import { createHash } from 'node:crypto';
import { inputError, noAuthorisedTransaction } from '../errors.js';
import type { ScenarioEngine } from '../scenarios/engine.js';
import type { Selection } from '../scenarios/selector.js';
import type { Scenario } from '../scenarios/scenario.js';
import { answerWith, httpOutcome, paymentWrite, refused, type Answer, type OperationEnv, type Write } from './answer.js';
import { REASON_HEADER, refusalReason, transition, type Outcome, type PaymentEvent, type Transition } from './state-machine.js';
import { dueOf } from './due.js';
import { linkingReferenceOf } from './merchants.js';
import { AMOUNT_PATTERN, toMinor, toNumber } from '../model/money.js';
import type { Variant } from '../model/operations.js';
import type { Payment, PaymentMethod, StoredCard, TransferAccount } from '../model/records.js';
import type { FactsOf } from './operation.js';
import { newPaymentFields, type NewPaymentFacts, type NewPaymentFields } from './payment-fields.js';
import { stringOf, textOf, type Body, type RequestFacts } from './request.js';

/**
 * Payments: initiate, refund and cancel (spec, endpoints 3, 10 and 11; the
 * completions are src/domain/completions.ts), with the state machine of
 * docs/decisions.md#d12-payment-states (payment states):
 * PENDING -> SUCCESSFUL | FAILED | CANCELLED; SUCCESSFUL -> REFUNDED.
 * Each operation takes the request's facts (src/domain/request.ts) and the
 * selection, and answers with the records to store.
 */

/** What an initiate says beyond its new payment: its variant, and the bank a USSD payment dials. */
export interface InitiateFacts extends NewPaymentFacts {
  variant: Variant;
  /** a USSD payment's bank, whose short code the customer dials */
  bankCode?: string;
}

/** The facts of POST /payments/initiates: a card's number is kept only for the CARD variant. */
export const initiateFacts: FactsOf<InitiateFacts> = ({ body }) => {
  const variant = variantOf(body);
  const facts: InitiateFacts = { variant, newPayment: newPaymentFields(body, variant === 'CARD') };
  const bankCode = stringOf(body, 'bankCode');
  if (bankCode !== undefined) facts.bankCode = bankCode;
  return facts;
};

/**
 * The initiate variant of a body: a CARD body carrying transfer fields is the
 * transfer variant (spec, Transfer variant), and so is `paymentType:
 * "TRANSFER"`, which the provider's Python SDK sends (README, "Accepted beyond the spec").
 */
export function variantOf(body: Body): Variant {
  if (body.paymentType === 'CARD') {
    const transfer = body.pocketReference !== undefined || body.amountControl !== undefined || body.walletDaysActive !== undefined;
    return transfer ? 'TRANSFER' : 'CARD';
  }
  return body.paymentType as Variant;
}

/**
 * POST /payments/initiates: answers 20, S20, NIP, 00 or a business failure as
 * the selected rule says; a rule with a `state` creates the payment through
 * the state machine.
 * @throws ApiError 400 INPUT for a USSD payment without its bank (docs/decisions.md#d61-ussd)
 */
export function initiatePayment(facts: RequestFacts & InitiateFacts, selection: Selection, env: OperationEnv): Answer {
  const { newPayment: fields, variant, bankCode } = facts;
  if (variant === 'USSD' && bankCode === undefined) throw inputError('bankCode cannot be null: a USSD payment dials its bank');
  const { paymentReference } = fields;
  const record = newPayment(facts, fields, variant, env.now());
  return answerCreating(facts, selection, record, (payment) => {
    switch (variant) {
      case 'CARD':
        return { paymentReference, linkingReference: payment.linkingReference, redirectUrl: env.links.authenticate(payment.linkingReference) };
      case 'TRANSFER':
        return { paymentReference, amount: toNumber(payment.amount), ...payment.transfer };
      case 'USSD':
        return { paymentReference, linkingReference: payment.linkingReference, ...ussdCodeOf(payment.linkingReference, bankCode ?? '') };
      default:
        return { paymentReference, linkingReference: payment.linkingReference };
    }
  });
}

/** The USSD short code of each bank the sandbox lists (src/model/banks.ts), as the banks publish them. */
const USSD_PREFIXES: Readonly<Record<string, string>> = { '058': '737', '033': '919', '011': '894', '232': '822', '035': '945', '057': '966', '044': '901' };

/**
 * What a USSD payment asks its customer to dial (docs/decisions.md#d61-ussd): the
 * bank's short code and a 4-digit `providerreference` derived from the
 * payment's linkingReference, in the provider's shape (`*901*000*8206#`); a
 * bank without a short code of its own gets `*7799*`.
 */
export function ussdCodeOf(linkingReference: string, bankCode: string): { providerreference: string; ussdDailCode: string } {
  const providerreference = String(Number.parseInt(createHash('sha256').update(`ussd:${linkingReference}`).digest('hex').slice(0, 8), 16) % 10_000).padStart(4, '0');
  return { providerreference, ussdDailCode: `*${USSD_PREFIXES[bankCode] ?? '7799'}*000*${providerreference}#` };
}

/**
 * Answers an operation that creates a payment (initiate, hosted checkout
 * link, order). A rule with a `state` creates `record` through the state
 * machine; when the reference is already used, whatever rule a header or an
 * override forced, nothing is created and the answer is the catalogue's answer
 * to a reused reference (Selection.reusedReference: S18, or 500 for links and orders).
 * @param details the payload of the answer, from the payment as stored (`created`) or as it would have been
 * @param field   the data field that holds it (null: the payload is the data fields themselves; src/domain/answer.ts, answerWith)
 * @returns the answer; its writes hold the new payment exactly when it was created
 * @throws ApiError for a rule with an HTTP outcome.
 */
export function answerCreating(
  facts: RequestFacts & NewPaymentFacts,
  selection: Selection,
  record: Payment,
  details: (payment: Payment, created: boolean) => unknown,
  field: string | null = 'payments',
): Answer {
  const rule = selection.rule;
  const { state, code, message } = rule.then;
  if (rule.then.http || !state || code === undefined || message === undefined) return answerWith(rule, () => details(record, false), field);
  const event: PaymentEvent = { type: 'create', record, status: state };
  const now = record.createdAt;
  const due = state === 'PENDING' ? dueOf(rule, record.method, now, facts.newPayment.walletDaysActive) : undefined;
  const made = transition(facts.payment, event, { code, message, scenario: rule.name, now, due });
  if (made.refused) {
    const reason = refusalReason(made.refused, facts.payment, event, 'created');
    const reused = selection.reusedReference();
    if (reused.then.http) {
      // The catalogue's answer for links and orders is an HTTP error: it says why all the same.
      const refusal = httpOutcome(reused);
      refusal.headers[REASON_HEADER] = reason;
      throw refusal;
    }
    return { ...answerWith(reused, () => ({})), reason };
  }
  return answerWith(rule, () => details(made.payment, true), field, [paymentWrite(made.payment, facts.payment)]);
}

/**
 * A payment record built from a request's fields, not stored. Of a card
 * only BIN, last four and a token are kept (docs/decisions.md#d24-card-data: full number, CVV and PIN
 * are never stored). Its linkingReference is the merchant's HMAC of the reference
 * (docs/decisions.md#d09-linking-reference).
 * @param now ISO 8601 UTC, its createdAt and updatedAt
 */
export function newPayment(facts: Pick<RequestFacts, 'merchant'>, fields: NewPaymentFields, method: PaymentMethod, now: string): Payment {
  const payment: Payment = {
    publicKey: facts.merchant.publicKey,
    paymentReference: fields.paymentReference,
    linkingReference: linkingReferenceOf(facts.merchant, fields.paymentReference),
    method,
    status: 'PENDING',
    code: '',
    message: '',
    amount: fields.amount,
    refundedAmount: '0.00',
    currency: fields.currency,
    country: fields.country,
    scenario: '',
    // Every record has the key, set or not: adding a key to a spread copy costs V8 a new map each time, a key already there does not.
    due: undefined,
    // The same for the history transition() sets: the record's hidden class stays the one of every payment.
    history: undefined,
    createdAt: now,
    updatedAt: now,
    ...fields.kept,
  };
  if (method === 'CARD' && fields.cardNumber !== undefined) payment.card = cardOf(fields.cardNumber, payment.linkingReference);
  if (method === 'TRANSFER') payment.transfer = transferAccountOf(payment);
  return payment;
}

/** The account a transfer payment is paid into: derived from its linkingReference, so the same payment always shows the same account. */
export function transferAccountOf(payment: Pick<Payment, 'linkingReference' | 'fullName'>): TransferAccount {
  const digits = BigInt(`0x${createHash('sha256').update(payment.linkingReference).digest('hex').slice(0, 15)}`);
  return {
    walletName: `${payment.fullName ?? 'Customer'} / Sandbox Pay`,
    wallet: `SBWALLET_${payment.linkingReference.slice(6, 18)}`,
    bankName: 'Sandbox Bank',
    accountNumber: String(digits % 10_000_000_000n).padStart(10, '0'),
  };
}

/**
 * What is kept of a card: BIN, last four and a token. The token is derived
 * from the payment's linkingReference (itself an HMAC with the merchant's
 * secret key), so that no one else can guess it and the same payment answers
 * the same token on every run, as its linkingReference (docs/decisions.md#d09-linking-reference).
 */
export const cardOf = (cardNumber: string, linkingReference: string): StoredCard => ({
  bin: cardNumber.slice(0, 6),
  last4: cardNumber.slice(-4),
  token: cardTokenOf(linkingReference),
});

/** The card token of the payment whose card number was sent, by its linkingReference: `SBCTK_` and 24 hex digits (a snapshot loaded makes it again: docs/decisions.md#d86-one-redaction-rule). */
export const cardTokenOf = (linkingReference: string): string => `SBCTK_${createHash('sha256').update(`card-token:${linkingReference}`).digest('hex').slice(0, 24)}`;

/** What a refund or a capture says of its amount. */
export interface AmountFacts {
  /** the amount in minor units, when it is a decimal amount */
  amountMinor?: number;
  /** the currency named, if any */
  currency?: string;
}

/** The facts of a refund (POST /payments/refund, POST /refunds) or a capture: the amount asked, and its currency. */
export const amountFacts: FactsOf<AmountFacts> = ({ body }) => {
  const facts: AmountFacts = {};
  if (typeof body.amount === 'string' && AMOUNT_PATTERN.test(body.amount)) facts.amountMinor = toMinor(body.amount);
  if (body.currency !== undefined) facts.currency = textOf(body, 'currency');
  return facts;
};

/**
 * POST /payments/refund: a successful payment, up to what is left of its
 * amount; partial refunds add up and the payment is REFUNDED once all of it is.
 * A payment refunded in full, or a refund above what is left, is refused
 * (S12 Transaction Failed) and changes nothing, whatever rule was chosen.
 * @throws ApiError 400 No authorised transaction found for this reference (the
 *   provider's body) for an unknown reference or a payment never paid; 400
 *   INPUT for a currency other than the payment's.
 */
export function refundPayment(facts: RequestFacts & AmountFacts, selection: Selection, env: OperationEnv): Answer {
  const payment = facts.payment;
  if (!payment) throw noAuthorisedTransaction();
  const event: PaymentEvent = { type: 'refund', amountMinor: facts.amountMinor ?? 0 };
  const rule = selection.rule;
  const refund = transition(payment, event, outcomeOf(rule, env.now()));
  if (refund.refused === 'not-paid') throw noAuthorisedTransaction(refusalReason('not-paid', payment, event, 'refunded'));
  if (facts.currency !== undefined && facts.currency !== payment.currency) {
    throw inputError(`currency ${facts.currency} is not the currency of payment ${payment.paymentReference} (${payment.currency})`);
  }
  // No rule can approve a refund the payment does not allow.
  if (refund.refused) {
    return refused(refund.refused === 'fully-refunded' ? 'refund-not-allowed' : 'refund-exceeds-amount', refusalReason(refund.refused, payment, event, 'refunded'));
  }
  const state = rule.then.state;
  const done = state === 'REFUNDED' ? refund : state ? transition(payment, { type: 'settle', status: state }, outcomeOf(rule, env.now())) : undefined;
  const stored = done?.payment ?? payment;
  return answerWith(
    rule,
    () => ({ paymentReference: stored.paymentReference, status: 'REFUNDED', card: stored.card ?? { bin: '', last4: '', token: '' } }),
    'payments',
    writesOf(done, payment),
  );
}

/**
 * POST /payments/cancel: only a payment that is still pending; one already
 * settled is refused (S12 Transaction Failed) and changes nothing.
 * @throws ApiError 400 No authorised transaction found for this reference (the
 *   provider's body) for an unknown reference.
 */
export function cancelPayment(facts: RequestFacts, selection: Selection, env: OperationEnv): Answer {
  const payment = facts.payment;
  if (!payment) throw noAuthorisedTransaction();
  const rule = selection.rule;
  const cancel = transition(payment, { type: 'cancel' }, outcomeOf(rule, env.now()));
  if (cancel.refused) return refused('cancel-not-allowed', refusalReason(cancel.refused, payment, { type: 'cancel' }, 'cancelled'));
  const state = rule.then.state;
  const done = state === 'CANCELLED' ? cancel : state ? transition(payment, { type: 'settle', status: state }, outcomeOf(rule, env.now())) : undefined;
  const stored = done?.payment ?? payment;
  const { bin = '', last4 = '' } = stored.card ?? {};
  return answerWith(rule, () => ({ paymentReference: stored.paymentReference, status: 'CANCELLED', card: { bin, last4 } }), 'payments', writesOf(done, payment));
}

/**
 * The outcome a rule gives a payment: its code and message, kept on the record, at `now` (ISO 8601 UTC on the
 * merchant's clock). An HTTP rule stores nothing.
 */
export const outcomeOf = (rule: Scenario, now: string): Outcome => ({ code: rule.then.code ?? '', message: rule.then.message ?? '', scenario: rule.name, now });

// A transition the answer stores: none when there was none, or when the table refused it.
const writesOf = (done: Transition | undefined, before: Payment): Write[] => (done && !done.refused ? [paymentWrite(done.payment, before)] : []);

/**
 * Settles a pending payment over the control API, as the outside world would
 * (3-D Secure answered, transfer received), through the state machine; the
 * catalogue's controlSettlesPayment rules give the outcome (SUCCESSFUL 00
 * Successful, or FAILED S12 Transaction Failed).
 * @param now ISO 8601 UTC
 * @returns the new record to store, or the refusal when the payment is not PENDING
 */
export function settleExternally(engine: ScenarioEngine, payment: Payment, outcome: 'success' | 'failure', now: string): Transition {
  const rule = engine.decide({ operation: 'controlSettlesPayment', body: { outcome }, payment, headers: {} });
  const status = rule.then.state ?? (outcome === 'success' ? 'SUCCESSFUL' : 'FAILED');
  return transition(payment, { type: 'settle', status }, outcomeOf(rule, now));
}

/**
 * Carries out what fell due for a pending payment (README, "Time"): the
 * settlement its rule promised, through the catalogue's paymentSettlesLater
 * rules (00 Successful, or S12 Transaction Failed), or its expiry, through
 * the pendingPaymentExpires rules (those of an uncaptured authorisation too:
 * docs/decisions.md#d48-card-operations).
 * @param now ISO 8601 UTC on the merchant's clock
 * @returns the new record to store, or the refusal when the payment is no
 *   longer PENDING (or AUTHORIZED, for an expiry); undefined when nothing is due for it
 */
export function settleDue(engine: ScenarioEngine, payment: Payment, now: string): Transition | undefined {
  const due = payment.due;
  if (!due) return undefined;
  if (due.event === 'expire') {
    const rule = engine.decide({ operation: 'pendingPaymentExpires', body: {}, payment, headers: {} });
    return transition(payment, { type: 'expire' }, outcomeOf(rule, now));
  }
  const outcome = due.outcome ?? 'success';
  const rule = engine.decide({ operation: 'paymentSettlesLater', body: { outcome }, payment, headers: {} });
  const status = rule.then.state ?? (outcome === 'success' ? 'SUCCESSFUL' : 'FAILED');
  return transition(payment, { type: 'settle', status }, outcomeOf(rule, now));
}
