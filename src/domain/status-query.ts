import { createHash } from 'node:crypto';
import { processingError } from '../errors.js';
import type { Scenario } from '../scenarios/scenario.js';
import type { Selection } from '../scenarios/selector.js';
import { answerWith, type Answer, type Links, type OperationEnv, type Write } from './answer.js';
import type { FactsOf } from './operation.js';
import type { Delivery } from '../model/notifications.js';
import { SANDBOX_BUSINESS_NAME } from './notification-events.js';
import type { RequestFacts } from './request.js';
import { toNumber } from '../model/money.js';
import type { Payment } from '../model/records.js';

/**
 * The transaction status query, GET /payments/query/{paymentReference}: not
 * one of the spec's eleven endpoints, but every integration calls it when the
 * customer returns, so it answers in the shape of the provider's status check
 * (external-api.yml, CheckStatus; docs/decisions.md#d33-status-query).
 */

/** The code and message a rule gives as `$payment`: the stored payment's own (scenarios/payments.yaml, payment-status). */
export const STORED = '$payment';

/**
 * Answers where a payment stands: the stored code and message (unless the
 * deciding rule gives its own), `data.payments` with the payment's fields and
 * the card masked (`maskedPan`, `cardBin`, `lastFourDigits`; never the full
 * number), and `data.customers`.
 * @throws ApiError 500 No transaction found / PROCESSING for a reference the
 *   merchant never used (external-api.yml, 500Response4).
 */
export function queryPayment(facts: RequestFacts & VerifyFacts, selection: Selection, env: OperationEnv): Answer {
  const payment = storedPayment(facts);
  return answerWith(withStoredOutcome(selection.rule, payment), () => ({ payments: statusView(env.links, payment), customers: customerView(payment) }), null, verified(facts, env));
}

/** What a status query records: the notifications of success of its payment that no status query has followed yet. */
export interface VerifyFacts {
  awaiting: readonly Delivery[];
}

/**
 * The facts of a status query: the payment's notifications of success
 * awaiting the merchant's status query (Store.awaitingVerification), for the
 * go-live report's `notification-verified` (docs/decisions.md#d87-go-live-report).
 */
export const verifyFacts: FactsOf<VerifyFacts> = (_parts, shared, store) => ({
  awaiting: shared.payment ? store.awaitingVerification(shared.publicKey, shared.payment.paymentReference) : [],
});

// Each notification of success sent, or being sent now, records that the merchant asked after it: one write
// only then, so a status query otherwise writes nothing.
function verified(facts: VerifyFacts, env: OperationEnv): Write[] {
  if (facts.awaiting.length === 0) return [];
  const now = env.now();
  const sent = (delivery: Delivery) => delivery.attempts.length > 0 || (delivery.state === 'scheduled' && delivery.dueAt !== undefined && delivery.dueAt <= now);
  return facts.awaiting.filter(sent).map((delivery) => ({ kind: 'delivery', delivery: { ...delivery, verifiedAt: now } }));
}

/**
 * GET /api/v3/payments/query/{paymentReference}, the path of the provider's
 * current documentation (its "Verify a payment" page; docs/decisions.md#d56-status-query-v3):
 * the v2 answer and the fields v3 adds, `fee` (a string), `businessName`,
 * `callbackurl`, `paymentBreakdown` {amount, fee, total} (numbers) and
 * `transactionProcessedTime` (`yyyy-MM-dd HH:mm:ss.nnnnnnnnn`, the payment's
 * last change), and the customer's `fee`. The sandbox charges no fee: 0.
 * @throws ApiError as queryPayment
 */
export function queryPaymentV3(facts: RequestFacts & VerifyFacts, selection: Selection, env: OperationEnv): Answer {
  const payment = storedPayment(facts);
  const amount = toNumber(payment.amount);
  const payments: Record<string, unknown> = {
    ...statusView(env.links, payment),
    fee: '0.00',
    businessName: SANDBOX_BUSINESS_NAME,
    callbackurl: payment.callbackUrl,
    paymentBreakdown: { amount, fee: 0, total: amount },
    transactionProcessedTime: `${payment.updatedAt.slice(0, 10)} ${payment.updatedAt.slice(11, 23)}000000`,
  };
  // The documentation's example writes the masked digits in capitals.
  if (typeof payments.maskedPan === 'string') payments.maskedPan = payments.maskedPan.replaceAll('x', 'X');
  if (payments.callbackurl === undefined) delete payments.callbackurl;
  return answerWith(withStoredOutcome(selection.rule, payment), () => ({ payments, customers: { ...customerView(payment), fee: '0.00' } }), null, verified(facts, env));
}

// The payment the query names; a reference the merchant never used is the provider's 500.
function storedPayment(facts: RequestFacts): Payment {
  if (!facts.payment) throw processingError('No transaction found', 'no-transaction-found');
  return facts.payment;
}

// The rule's outcome, where `$payment` stands for the stored payment's own code and message.
function withStoredOutcome(rule: Scenario, payment: Payment): Scenario {
  const then = { ...rule.then };
  if (then.code === STORED) then.code = payment.code;
  if (then.message === STORED) then.message = payment.message;
  return { ...rule, then };
}

/** The payment as the status query shows it: the provider's field names, and only what the sandbox knows. */
function statusView(links: Links, payment: Payment): Record<string, unknown> {
  const amount = toNumber(payment.amount);
  const view: Record<string, unknown> = {
    paymentReference: payment.paymentReference,
    publicKey: payment.publicKey,
    paymentType: payment.channel ?? payment.method,
    amount,
    // No currency conversion in the sandbox: the amount charged is the amount.
    internationalChargedAmount: amount,
    currency: payment.currency,
    country: payment.country,
    mode: 'test',
    gatewayref: payment.linkingReference,
    gatewayCode: payment.code,
    gatewayMessage: payment.message,
    processorCode: payment.code,
    processorMessage: payment.message,
    reason: payment.message,
    mobilenumber: payment.mobileNumber,
    productId: payment.productId,
    productDescription: payment.productDescription,
    channelType: payment.channelType,
    sourceIP: payment.sourceIP,
    deviceType: payment.deviceType,
    type: payment.type ?? (payment.card && !payment.withoutAuthentication ? '3DSECURE' : undefined),
    redirectLink: payment.withoutAuthentication ? undefined : pageOf(links, payment),
    redirecturl: payment.redirectUrl ?? payment.callbackUrl,
    // What charges the card again, once the tokenisation is paid (docs/decisions.md#d58-token-flow).
    authorizationCode: payment.status === 'SUCCESSFUL' ? payment.authorizationCode : undefined,
  };
  if (payment.card) {
    const { bin, last4 } = payment.card;
    Object.assign(view, { maskedPan: `${bin.slice(0, 4)}-${bin.slice(4, 6)}xx-xxxx-${last4}`, cardBin: bin, lastFourDigits: last4 });
  }
  return Object.fromEntries(Object.entries(view).filter(([, value]) => value !== undefined));
}

/** The customer of a payment, as the status query shows it. */
function customerView(payment: Payment): Record<string, unknown> {
  const who = payment.email ?? payment.mobileNumber ?? payment.fullName;
  const customer: Record<string, unknown> = {
    // Stable for the same merchant and customer, as a provider's customer id is.
    customerId: who === undefined ? undefined : `SBCUS_${createHash('sha256').update(`${payment.publicKey}:${who}`).digest('hex').slice(0, 20)}`,
    customerName: payment.fullName,
    customerMobile: payment.mobileNumber,
    customerEmail: payment.email,
  };
  return Object.fromEntries(Object.entries(customer).filter(([, value]) => value !== undefined));
}

// The sandbox page the customer is sent to for this payment: card authentication, or the hosted checkout.
function pageOf(links: Links, payment: Payment): string | undefined {
  if (payment.method === 'CHECKOUT' || payment.method === 'ORDER') return links.checkout(payment.linkingReference);
  if (payment.method === 'CARD') return links.authenticate(payment.linkingReference);
  return undefined;
}
