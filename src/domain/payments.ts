import { createHash, randomBytes } from 'node:crypto';
import { inputError, noAuthorisedTransaction, notFound } from '../errors.js';
import type { OperationId, Variant } from '../model/operations.js';
import type { Scenario } from '../scenarios/scenario.js';
import { answered, answerWith, refused, type Answer, type OperationContext } from './answer.js';
import { refusalOf, refusalReason, transition, type PaymentEvent } from './state-machine.js';
import { linkingReferenceOf } from './merchants.js';
import { normaliseAmount, toMinor, toNumber } from '../model/money.js';
import type { Payment, PaymentMethod, StoredCard, TransferAccount } from '../model/records.js';
import type { Store } from '../store/store.js';

/**
 * Payments: initiate, OTP completion, refund and cancel (spec, endpoints 3,
 * 8-11), with the state machine of README "Payment states":
 * PENDING -> SUCCESSFUL | FAILED | CANCELLED; SUCCESSFUL -> REFUNDED.
 * Request bodies reach here already validated against the OpenAPI document.
 */

type Body = Record<string, unknown>;

/**
 * The initiate variant of a body: a CARD body carrying transfer fields is the
 * transfer variant (spec, Transfer variant), and so is `paymentType:
 * "TRANSFER"`, which the provider's Python SDK sends (README, "Accepted beyond the spec").
 */
export function variantOf(body: Body): Variant {
  if (body.paymentType === 'CARD') {
    const transfer = ['pocketReference', 'amountControl', 'walletDaysActive'].some((field) => body[field] !== undefined);
    return transfer ? 'TRANSFER' : 'CARD';
  }
  return body.paymentType as Variant;
}

/**
 * POST /payments/initiates: answers 20, S20, NIP, 00 or a business failure as
 * the selected rule says; a rule with a `state` creates the payment through
 * the state machine.
 */
export function initiatePayment(ctx: OperationContext, body: Body): Answer {
  const paymentReference = String(body.paymentReference);
  const variant = variantOf(body);
  const record = newPayment(ctx, body, variant, linkingReferenceOf(ctx.merchant, paymentReference));
  return answerCreating(ctx, record, (payment) => {
    switch (variant) {
      case 'CARD':
        return { paymentReference, linkingReference: payment.linkingReference, redirectUrl: ctx.links.authenticate(payment.linkingReference) };
      case 'TRANSFER':
        return { paymentReference, amount: toNumber(payment.amount), ...payment.transfer };
      default:
        return { paymentReference, linkingReference: payment.linkingReference };
    }
  });
}

/** The spec's answer to a reused reference, when the catalogue has none that creates nothing (spec, Limits 1). */
const REUSED_REFERENCE: Scenario = {
  name: 'duplicate-reference',
  description: 'A paymentReference the merchant has already used is refused (spec, Limits 1).',
  match: { operation: 'initiatePayment' },
  then: { code: 'S18', message: 'Transaction reference must be unique', payments: 'empty' },
  example: { request: { operation: 'initiatePayment' }, expect: { status: 200, code: 'S18' } },
  source: 'built in',
};

/**
 * Answers an operation that creates a payment (initiate, hosted checkout
 * link, order). A rule with a `state` creates `record` through the state
 * machine; when the reference is already used, whatever rule a header or an
 * override forced, nothing is created and the answer is the catalogue's answer
 * to a reused reference (the rule the request's values choose: S18, or 500
 * for links and orders).
 * @param details the payload of the answer, from the payment as stored (`created`) or as it would have been
 * @throws ApiError for a rule with an HTTP outcome.
 */
export function answerCreating(ctx: OperationContext, record: Payment, details: (payment: Payment, created: boolean) => unknown): Answer {
  const rule = ctx.selection.rule;
  const { state, code, message } = rule.then;
  if (rule.then.http || !state || code === undefined || message === undefined) return answerWith(rule, () => details(record, false));
  const current = ctx.store.payment(record.publicKey, record.paymentReference);
  const made = transition(ctx.store, current, { type: 'create', record, status: state }, { code, message, scenario: rule.name, now: ctx.now() });
  if (made.refused) {
    const byValues = ctx.selection.byValues;
    const answer = answerWith(byValues.then.state ? REUSED_REFERENCE : byValues, () => ({}));
    return { ...answer, reason: refusalReason(made.refused, current, { type: 'create', record, status: state }, 'created') };
  }
  return answerWith(rule, () => details(made.payment, true));
}

/**
 * A payment record built from an initiate body. Of a card only BIN, last four
 * and a token are kept (README: full number, CVV and PIN are never stored).
 */
export function newPayment(ctx: OperationContext, body: Body, method: PaymentMethod, linkingReference: string): Payment {
  const now = ctx.now();
  const payment: Payment = {
    publicKey: ctx.merchant.publicKey,
    paymentReference: String(body.paymentReference),
    linkingReference,
    method,
    status: 'PENDING',
    code: '',
    message: '',
    amount: normaliseAmount(String(body.amount)),
    refundedAmount: '0.00',
    currency: String(body.currency),
    country: String(body.country),
    scenario: '',
    createdAt: now,
    updatedAt: now,
  };
  for (const field of KEPT_FIELDS) {
    if (body[field] !== undefined && body[field] !== null) payment[field] = String(body[field]);
  }
  if (method === 'CARD' && typeof body.cardNumber === 'string') payment.card = cardOf(body.cardNumber);
  if (method === 'TRANSFER') payment.transfer = transferAccountOf(payment);
  return payment;
}

/** The initiate fields a payment keeps as they were sent: what the status query answers (never card data). */
const KEPT_FIELDS = [
  'fullName', 'email', 'mobileNumber', 'productId', 'productDescription', 'redirectUrl', 'callbackUrl', 'channelType', 'deviceType', 'sourceIP', 'type',
] as const;

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

/** What is kept of a card: BIN, last four and a random token. */
export const cardOf = (cardNumber: string): StoredCard => ({
  bin: cardNumber.slice(0, 6),
  last4: cardNumber.slice(-4),
  token: `SBCTK_${randomBytes(12).toString('hex')}`,
});

/** Which methods each completion endpoint completes (README decision: validate also takes card OTPs). */
const COMPLETES: Partial<Record<OperationId, PaymentMethod[]>> = {
  validatePayment: ['ACCOUNT', 'CARD'],
  completeMomoPayment: ['MOMO'],
};

/**
 * POST /payments/validate and POST /payments/momo/otp: complete a pending
 * payment with an OTP. A payment that is no longer pending answers `RR`
 * "Sorry payment already processed" with its fields and changes nothing
 * (external-api.yml, ValidateTransactionResponse1).
 * @throws ApiError 404 for an unknown linkingReference, 400 when the payment
 *   belongs to the other completion endpoint.
 */
export function completePayment(ctx: OperationContext, operation: 'validatePayment' | 'completeMomoPayment', body: Body): Answer {
  const linkingReference = String(body.linkingReference);
  const payment = ctx.store.paymentByLinkingReference(ctx.merchant.publicKey, linkingReference);
  if (!payment) throw notFound(`No payment with linkingReference ${linkingReference}`);
  if (!COMPLETES[operation]!.includes(payment.method)) {
    const where = payment.method === 'MOMO' ? 'POST /payments/momo/otp' : 'POST /payments/validate';
    throw inputError(`linkingReference ${linkingReference} is a ${payment.method} payment: complete it with ${where}`);
  }
  const details = { paymentReference: payment.paymentReference, linkingReference, authoption: [] };
  const rule = ctx.selection.rule;
  if (payment.status !== 'PENDING') {
    const doing = operation === 'validatePayment' ? 'validated' : 'completed with an OTP';
    return { ...alreadyProcessed(details), reason: refusalReason('not-pending', payment, { type: 'settle', status: 'SUCCESSFUL' }, doing) };
  }
  return answerWith(rule, (outcome) => {
    if (outcome.state && settled(ctx, payment, { type: 'settle', status: outcome.state }, rule.name, outcome).refused) {
      throw new Error('a pending payment refused a completion');
    }
    return details;
  });
}

// The provider's answer to a second completion (external-api.yml, ValidateTransactionResponse1).
const alreadyProcessed = (details: Record<string, unknown>): Answer =>
  answered('payment-already-processed', 'RR', 'Sorry payment already processed', { payments: details });

/**
 * POST /payments/refund: a successful payment, up to what is left of its
 * amount; partial refunds add up and the payment is REFUNDED once all of it is.
 * A payment refunded in full, or a refund above what is left, is refused
 * (S12 Transaction Failed) and changes nothing.
 * @throws ApiError 400 No authorised transaction found for this reference (the
 *   provider's body) for an unknown reference or a payment never paid; 400
 *   INPUT for a currency other than the payment's.
 */
export function refundPayment(ctx: OperationContext, body: Body): Answer {
  const payment = paymentNamed(ctx, body);
  if (payment.status !== 'SUCCESSFUL' && payment.status !== 'REFUNDED') {
    throw noAuthorisedTransaction(refusalReason('not-paid', payment, { type: 'refund', amountMinor: 0 }, 'refunded'));
  }
  if (body.currency !== undefined && body.currency !== payment.currency) {
    throw inputError(`currency ${String(body.currency)} is not the currency of payment ${payment.paymentReference} (${payment.currency})`);
  }
  const amountMinor = toMinor(String(body.amount));
  const rule = ctx.selection.rule;
  // Checked before the rule answers: no rule can approve a refund the payment does not allow.
  const refusal = refusalOf(payment, { type: 'refund', amountMinor });
  if (refusal) {
    return refused(refusal === 'fully-refunded' ? 'refund-not-allowed' : 'refund-exceeds-amount', refusalReason(refusal, payment, { type: 'refund', amountMinor }, 'refunded'));
  }
  return answerWith(rule, (outcome) => {
    let stored = payment;
    if (outcome.state === 'REFUNDED') stored = settled(ctx, payment, { type: 'refund', amountMinor }, rule.name, outcome).payment ?? payment;
    else if (outcome.state) stored = settled(ctx, payment, { type: 'settle', status: outcome.state }, rule.name, outcome).payment ?? payment;
    return { paymentReference: stored.paymentReference, status: 'REFUNDED', card: stored.card ?? { bin: '', last4: '', token: '' } };
  });
}

/**
 * POST /payments/cancel: only a payment that is still pending; one already
 * settled is refused (S12 Transaction Failed) and changes nothing.
 * @throws ApiError 400 No authorised transaction found for this reference (the
 *   provider's body) for an unknown reference.
 */
export function cancelPayment(ctx: OperationContext, body: Body): Answer {
  const payment = paymentNamed(ctx, body);
  const refusal = refusalOf(payment, { type: 'cancel' });
  if (refusal) return refused('cancel-not-allowed', refusalReason(refusal, payment, { type: 'cancel' }, 'cancelled'));
  const rule = ctx.selection.rule;
  return answerWith(rule, (outcome) => {
    const stored = outcome.state ? (settled(ctx, payment, outcome.state === 'CANCELLED' ? { type: 'cancel' } : { type: 'settle', status: outcome.state }, rule.name, outcome).payment ?? payment) : payment;
    const { bin = '', last4 = '' } = stored.card ?? {};
    return { paymentReference: stored.paymentReference, status: 'CANCELLED', card: { bin, last4 } };
  });
}

// One event of an operation through the state machine, with the rule's code and message.
function settled(ctx: OperationContext, payment: Payment, event: PaymentEvent, scenario: string, outcome: { code: string; message: string }) {
  return transition(ctx.store, payment, event, { code: outcome.code, message: outcome.message, scenario, now: ctx.now() });
}

function paymentNamed(ctx: OperationContext, body: Body): Payment {
  const payment = ctx.store.payment(ctx.merchant.publicKey, String(body.paymentReference));
  if (!payment) throw noAuthorisedTransaction();
  return payment;
}

/**
 * Settles a pending payment as the outside world would (3-D Secure answered,
 * transfer received): SUCCESSFUL with 00 Successful, or FAILED with S12
 * Transaction Failed, through the state machine. Used by the control API and
 * the customer pages.
 * @returns the payment as stored, or undefined, changing nothing, when it is not PENDING.
 */
export function settleExternally(store: Store, payment: Payment, outcome: 'success' | 'failure', now: string, scenario: string): Payment | undefined {
  const [status, code, message] = outcome === 'success' ? (['SUCCESSFUL', '00', 'Successful'] as const) : (['FAILED', 'S12', 'Transaction Failed'] as const);
  const done = transition(store, payment, { type: 'settle', status }, { code, message, scenario, now });
  return done.refused ? undefined : done.payment;
}
