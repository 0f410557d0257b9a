import { inputError, providerError, subscriptionNotFound } from '../errors.js';
import { AMOUNT_PATTERN, normaliseAmount } from '../model/money.js';
import type { BillingCycle, Merchant, Payment, RecurringCharge, Subscription } from '../model/records.js';
import type { ScenarioEngine } from '../scenarios/engine.js';
import type { Selection } from '../scenarios/selector.js';
import { answerWith, paymentWrite, refused, type Answer, type OperationEnv, type Write } from './answer.js';
import { authorizationCodeOf, cardFacts, type CardFacts } from './card-operations.js';
import { maskedPanOf, spaceForm } from './notification-events.js';
import { answerCreating, newPayment, outcomeOf } from './payments.js';
import { startDateOf } from './billing.js';
import type { FactsOf } from './operation.js';
import { stringOf, textOf, type Body, type RequestFacts } from './request.js';
import { REASON_HEADER, refusalReason, transition, type Outcome } from './state-machine.js';

/**
 * Subscriptions (the provider's subscription page and external-api.yml,
 * InitiateSubscription and GetaSubscription; README, "Subscriptions"): a
 * card payment that waits for its customer's authentication starts a
 * subscription, whose billingId is the payment's paymentReference; once the
 * payment is paid the subscription is ACTIVE and is charged on its billing
 * cycle, on its merchant's clock (src/agenda/agenda.ts calls chargeDue);
 * PUT /recurring/updates pauses or resumes it; POST /recurring/charge takes
 * an authorised debit from its card at any time.
 */

/** What POST /recurring/subscribes says of its subscription, beside its first payment's fields. */
export interface SubscriptionFields {
  billingCycle: BillingCycle;
  /** whole cycles between charges, at least 1 */
  billingPeriod: number;
  /** ISO 8601 UTC; absent: the payment's creation */
  startDate?: string;
  planId?: string;
  customerId?: string;
  cardName?: string;
}

/**
 * The provider's words for a subscription's required field left out or
 * sent as `null`, in the order its description lists them (external-api.yml,
 * InitiateSubscription, 400Response12-16; docs/decisions.md#d64-subscription-null-messages):
 * POST /recurring/subscribes' BodyRefusals.nullMessages in the registry.
 */
export const SUBSCRIPTION_NULL_MESSAGES: ReadonlyArray<readonly [field: string, message: string]> = [
  ['paymentReference', 'Payment Reference cannot be null'],
  ['amount', 'Amount cannot be null'],
  ['publicKey', 'Public Key cannot be null'],
  ['country', 'Country cannot be null'],
  ['currency', 'Currency cannot be null'],
];

/** The facts of POST /recurring/subscribes: its first payment's card, and its subscription. */
export interface CreateSubscriptionFacts extends CardFacts {
  subscription: SubscriptionFields;
  /** the startDate as sent, when one was sent: named by the refusal of one that is no date */
  startDateSent?: string;
}

/** The facts of POST /recurring/subscribes. */
export const createSubscriptionFacts: FactsOf<CreateSubscriptionFacts> = (parts, shared, store) => {
  const facts: CreateSubscriptionFacts = { ...cardFacts(parts, shared, store), subscription: subscriptionFields(parts.body) };
  const startDate = stringOf(parts.body, 'startDate');
  if (startDate !== undefined) facts.startDateSent = startDate;
  return facts;
};

/**
 * The subscription fields of POST /recurring/subscribes, as the document
 * validated them: `billingPeriod` a whole number of cycles ("1" in the
 * provider's example; 1 when absent), `startDate` in the provider's
 * `2020-02-25 00:00:00` form or ISO 8601.
 */
function subscriptionFields(body: Body): SubscriptionFields {
  const period = Number(body.billingPeriod ?? 1);
  const fields: SubscriptionFields = {
    billingCycle: textOf(body, 'billingCycle').toUpperCase() as BillingCycle,
    billingPeriod: Number.isInteger(period) && period >= 1 ? period : 1,
  };
  const sent = stringOf(body, 'startDate');
  const startDate = sent === undefined ? undefined : startDateOf(sent);
  if (startDate !== undefined) fields.startDate = startDate;
  for (const field of ['planId', 'customerId', 'cardName'] as const) {
    const value = stringOf(body, field);
    if (value !== undefined && value !== '') fields[field] = value;
  }
  return fields;
}

/** What PUT /recurring/updates asks: a status, an amount (normalised to two decimals), or both. */
export interface SubscriptionUpdate {
  status?: Subscription['status'];
  amount?: string;
}

/** The facts of PUT /recurring/updates: what it asks. */
export const updateSubscriptionFacts: FactsOf<{ subscriptionUpdate: SubscriptionUpdate }> = ({ body }) => ({
  subscriptionUpdate: {
    ...(body.status === 'ACTIVE' || body.status === 'INACTIVE' ? { status: body.status } : {}),
    ...(typeof body.amount === 'string' && AMOUNT_PATTERN.test(body.amount) ? { amount: normaliseAmount(body.amount) } : {}),
  },
});

/** The facts of the subscription lists: the merchant's subscriptions (the payments that started one), oldest first, and the path's customerId. */
export interface SubscriptionListFacts {
  subscriptions: Payment[];
  customerId?: string;
}

/** The facts of GET /recurring/publicKey/{publicKey} and of the customer lists. */
export const subscriptionListFacts: FactsOf<SubscriptionListFacts> = ({ params }, { publicKey }, store) => {
  const facts: SubscriptionListFacts = { subscriptions: store.payments(publicKey).filter((stored) => stored.subscription !== undefined) };
  if (params.customerId !== undefined) facts.customerId = params.customerId;
  return facts;
};

/** The facts of POST /recurring/charge: the card of its authorization code, and whether it named a country. */
export interface ChargeSubscriptionFacts extends CardFacts {
  /** false: the charge takes the country of the payment whose card it charges */
  countrySent: boolean;
}

/** The facts of POST /recurring/charge. */
export const chargeSubscriptionFacts: FactsOf<ChargeSubscriptionFacts> = (parts, shared, store) => ({
  ...cardFacts(parts, shared, store),
  countrySent: parts.body.country !== undefined,
});

/**
 * POST /recurring/subscribes: the subscription's first payment, a card
 * payment pending its customer's authentication (`S20`, `redirectUrl`),
 * as the provider answers it; the card's test values decide it as for a
 * card initiate. Its authorizationCode (POST /recurring/charge, and
 * POST /payments/charge-token) is valid once it is paid.
 * @throws ApiError 409 Transaction with reference exists for a reused
 *   paymentReference (the catalogue's rule); 400 INPUT for a startDate that is no calendar date
 */
export function createSubscription(facts: RequestFacts & CreateSubscriptionFacts, selection: Selection, env: OperationEnv): Answer {
  const fields = facts.subscription;
  const now = env.now();
  if (facts.startDateSent !== undefined && fields.startDate === undefined) throw inputError(`startDate ${facts.startDateSent.slice(0, 40)} is no date: send yyyy-MM-dd HH:mm:ss`);
  const record = newPayment(facts, facts.newPayment, 'CARD', now);
  record.authorizationCode = authorizationCodeOf(record.linkingReference);
  record.subscription = {
    billingCycle: fields.billingCycle,
    billingPeriod: fields.billingPeriod,
    amount: record.amount,
    status: 'INACTIVE',
    startDate: fields.startDate ?? now,
    charges: 0,
    ...(fields.planId ? { planId: fields.planId } : {}),
    ...(fields.customerId ? { customerId: fields.customerId } : {}),
    ...(fields.cardName ? { cardName: fields.cardName } : {}),
  };
  return answerCreating(facts, selection, record, (payment) => ({
    paymentReference: payment.paymentReference,
    linkingReference: payment.linkingReference,
    redirectUrl: env.links.authenticate(payment.linkingReference),
  }));
}

/**
 * GET /recurring/billingId/{billingId}: the subscription, in the provider's
 * shape (external-api.yml, GetSubscriptionResponse).
 * @throws ApiError 404 Subscription Not Found for a billingId that is none of the merchant's subscriptions
 */
export function getSubscription(facts: RequestFacts, selection: Selection): Answer {
  const payment = facts.payment;
  if (!payment?.subscription) throw subscriptionNotFound(facts.paymentReference ?? '');
  return answerWith(selection.rule, () => subscriptionView(payment), 'subscriptions');
}

/**
 * GET /recurring/publicKey/{publicKey} and the customer's subscriptions
 * under the three path shapes the SDKs use (`/recurring/{publicKey}/customerId/{customerId}`,
 * `/recurring/publicKey/{publicKey}/customerId/{customerId}`,
 * `/recurring/customerId/{customerId}`): the merchant's subscriptions,
 * oldest first, those of one customer when the path names one; an empty
 * list when there are none.
 */
export function listSubscriptions(facts: RequestFacts & SubscriptionListFacts, selection: Selection): Answer {
  const customerId = facts.customerId;
  const subscriptions = facts.subscriptions.filter((payment) => customerId === undefined || payment.subscription!.customerId === customerId);
  return answerWith(selection.rule, () => subscriptions.map(subscriptionView), 'subscriptions');
}

/**
 * PUT /recurring/updates: pauses (`INACTIVE`) or resumes (`ACTIVE`) a
 * subscription and sets what its charges take (`amount`), through the state
 * machine; a resumed subscription is next charged at its first charge time
 * still to come. A subscription whose first payment is not paid is refused
 * (S12 Transaction Failed) and changes nothing.
 * @throws ApiError 404 Subscription Not Found for an unknown billingId
 */
export function updateSubscription(facts: RequestFacts & { subscriptionUpdate: SubscriptionUpdate }, selection: Selection, env: OperationEnv): Answer {
  const payment = facts.payment;
  const update = facts.subscriptionUpdate;
  if (!payment?.subscription) throw subscriptionNotFound(facts.paymentReference ?? '');
  const rule = selection.rule;
  const event = { type: 'update-subscription', status: update.status ?? payment.subscription.status, ...(update.amount ? { amount: update.amount } : {}) } as const;
  const updated = transition(payment, event, outcomeOf(rule, env.now()));
  if (updated.refused) return refused('subscription-not-started', refusalReason(updated.refused, payment, event, 'updated as a subscription'));
  const stored = rule.then.code === '00' ? updated.payment : payment;
  return answerWith(rule, () => subscriptionView(stored), 'subscriptions', stored === payment ? [] : [paymentWrite(updated.payment, payment)]);
}

/**
 * POST /recurring/charge: an authorised debit of the card behind an
 * authorizationCode of the merchant (a subscription's, or a paid
 * tokenisation's), at once: a payment SUCCESSFUL (`00`) or FAILED as the
 * card's test values say, notified as `transaction.recurring.debit`.
 * @throws ApiError 400 `Invalid/Missing parameters = authorizationCode` (the
 *   provider's body) for a code that is none of the merchant's paid ones;
 *   409 for a reused paymentReference
 */
export function chargeSubscription(facts: RequestFacts & ChargeSubscriptionFacts, selection: Selection, env: OperationEnv): Answer {
  const source = facts.tokenPayment;
  if (!source?.card) {
    const error = providerError(400, 'Invalid/Missing parameters = authorizationCode', 'invalid-parameters');
    error.headers[REASON_HEADER] = `authorizationCode ${(facts.authorizationCode ?? '').slice(0, 40)} is no paid subscription or card tokenisation of merchant ${facts.publicKey}`;
    throw error;
  }
  const fields = facts.newPayment;
  const record = chargeRecord(facts.merchant, source, { ...fields, country: facts.countrySent ? fields.country : source.country }, { billingId: source.paymentReference, kind: 'debit' }, env.now());
  return answerCreating(facts, selection, record, (payment) => ({
    code: payment.code,
    message: payment.message,
    paymentReference: payment.paymentReference,
    publicKey: payment.publicKey,
    amount: payment.amount,
    currency: payment.currency,
    country: payment.country,
    email: payment.email ?? '',
    productDescription: payment.productDescription,
  }));
}

/**
 * What an ACTIVE subscription's charge that fell due makes (README,
 * "Subscriptions"): its charge, a card payment of the subscription's amount
 * decided by the catalogue's subscriptionChargeDue rules (a declining test
 * card fails it), referenced `{billingId}-{cycle}`, and the subscription
 * counted and moved on a period. A charge already made (a crash between the
 * two writes) is not made again: the subscription only moves on.
 * @param subscription the subscription's first payment, as stored
 * @param made         the stored payment of this cycle's reference, if any
 * @param now          ISO 8601 UTC on the merchant's clock: the charge's time
 * @returns the writes, charge first; none when the subscription is not ACTIVE
 */
export function chargeDue(engine: ScenarioEngine, merchant: Merchant, subscription: Payment, made: Payment | undefined, now: string): Write[] {
  const current = subscription.subscription;
  if (current?.status !== 'ACTIVE') return [];
  const writes: Write[] = [];
  if (!made) {
    const cycle = current.charges + 1;
    const fields = { paymentReference: chargeReferenceOf(subscription.paymentReference, cycle), amount: current.amount, currency: subscription.currency, country: subscription.country, kept: {} };
    const record = chargeRecord(merchant, subscription, fields, { billingId: subscription.paymentReference, kind: 'scheduled', cycle }, now);
    const card = subscription.card && { bin: subscription.card.bin, last4: subscription.card.last4 };
    const rule = engine.decide({ operation: 'subscriptionChargeDue', body: {}, payment: subscription, headers: {}, ...(card ? { card } : {}) });
    const created = transition(undefined, { type: 'create', record, status: rule.then.state ?? 'SUCCESSFUL' }, outcomeOf(rule, now));
    if (created.payment) writes.push(paymentWrite(created.payment));
  }
  const billed = transition(subscription, { type: 'bill' }, sameOutcome(subscription, now));
  if (billed.payment) writes.push(paymentWrite(billed.payment, subscription));
  return writes;
}

/** The paymentReference of a subscription's scheduled charge: its billingId and the charge's number, from 1. */
export const chargeReferenceOf = (billingId: string, cycle: number): string => `${billingId}-${cycle}`;

/**
 * A subscription in the provider's shape (its subscription page and
 * external-api.yml, GetSubscriptionResponse): `amount` a decimal string,
 * `cardNumber` masked as `5123-45xx-xxxx-0008`, `startDate` in the space
 * form, `createdAt` epoch ms; the authorizationCode once its first payment is paid.
 */
export function subscriptionView(payment: Payment): Record<string, unknown> {
  const subscription = payment.subscription!;
  const card = payment.card;
  const paid = payment.status === 'SUCCESSFUL' || payment.status === 'REFUNDED';
  return {
    publicKey: payment.publicKey,
    amount: subscription.amount,
    country: payment.country,
    customerId: subscription.customerId ?? '',
    cardName: subscription.cardName ?? payment.fullName ?? '',
    cardNumber: card ? maskedPanOf(card) : '',
    plan: subscription.planId ?? '',
    status: subscription.status,
    billingId: payment.paymentReference,
    authorizationCode: paid ? (payment.authorizationCode ?? '') : '',
    startDate: spaceForm(subscription.startDate),
    createdAt: Date.parse(payment.createdAt),
  };
}

// A payment that charges the card of `source` again, without its customer: what the charge keeps of the source's customer.
function chargeRecord(merchant: Merchant, source: Payment, fields: Parameters<typeof newPayment>[1], recurring: RecurringCharge, now: string): Payment {
  const kept = { ...pick(source), ...fields.kept };
  if (recurring.kind === 'debit') kept.productDescription = 'Authorised charge';
  const record = newPayment({ merchant }, { ...fields, kept }, 'CARD', now);
  record.card = source.card;
  record.withoutAuthentication = true;
  record.recurring = recurring;
  return record;
}

// The customer's fields a charge carries over from the payment whose card it charges.
function pick(source: Payment): Parameters<typeof newPayment>[1]['kept'] {
  const kept: Parameters<typeof newPayment>[1]['kept'] = {};
  for (const field of ['fullName', 'email', 'mobileNumber', 'productId', 'productDescription'] as const) {
    const value = source[field];
    if (value !== undefined) kept[field] = value;
  }
  return kept;
}

// The outcome of a change that is no new outcome of the payment (a subscription counted, paused or resumed): its code and message stay.
const sameOutcome = (payment: Payment, now: string): Outcome => ({ code: payment.code, message: payment.message, scenario: payment.scenario, now });
