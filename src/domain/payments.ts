import { createHash, randomBytes } from 'node:crypto';
import { inputError, noAuthorisedTransaction, notFound } from '../errors.js';
import type { OperationId, Variant } from '../scenarios/catalogue.js';
import { answerWith, envelope, refused, type Answer, type OperationContext } from './answer.js';
import { linkingReferenceOf } from './merchants.js';
import { fromMinor, normaliseAmount, toMinor, toNumber } from './money.js';
import type { Payment, PaymentMethod, StoredCard, TransferAccount } from './records.js';
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

/** POST /payments/initiates. Answers 20, S20, NIP, 00 or a business failure as the scenario says. */
export function initiatePayment(ctx: OperationContext, body: Body): Answer {
  const { merchant, store } = ctx;
  const paymentReference = String(body.paymentReference);
  const variant = variantOf(body);
  const existing = store.payment(merchant.publicKey, paymentReference);
  const scenario = ctx.decide({ operation: 'initiatePayment', variant, body, payment: existing });
  return answerWith(scenario, (outcome) => {
    const linkingReference = linkingReferenceOf(merchant.publicKey, paymentReference);
    const payment = newPayment(ctx, body, variant, linkingReference);
    if (outcome.state) {
      Object.assign(payment, { status: outcome.state, code: outcome.code, message: outcome.message, scenario: scenario.name });
      store.putPayment(payment);
    }
    switch (variant) {
      case 'CARD':
        return { paymentReference, linkingReference, redirectUrl: ctx.links.authenticate(linkingReference) };
      case 'TRANSFER':
        return { paymentReference, amount: toNumber(payment.amount), ...payment.transfer };
      default:
        return { paymentReference, linkingReference };
    }
  });
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
  if (payment.status !== 'PENDING') {
    return { status: 200, scenario: 'payment-already-processed', body: envelope('RR', 'Sorry payment already processed', { payments: details }) };
  }
  const scenario = ctx.decide({ operation, body, payment });
  return answerWith(scenario, (outcome) => {
    if (outcome.state) settle(ctx, payment, outcome.state, outcome.code, outcome.message, scenario.name);
    return details;
  });
}

/**
 * POST /payments/refund: a successful payment, up to what is left of its
 * amount; partial refunds add up and the payment is REFUNDED once all of it is.
 * A fully refunded payment is refused (S12 Transaction Failed).
 * @throws ApiError 400 No authorised transaction found for this reference (the
 *   provider's body) for an unknown reference or a payment never paid; 400
 *   INPUT for a currency other than the payment's.
 */
export function refundPayment(ctx: OperationContext, body: Body): Answer {
  const payment = paymentNamed(ctx, body);
  if (payment.status !== 'SUCCESSFUL' && payment.status !== 'REFUNDED') throw noAuthorisedTransaction();
  if (body.currency !== undefined && body.currency !== payment.currency) {
    throw inputError(`currency ${String(body.currency)} is not the currency of payment ${payment.paymentReference} (${payment.currency})`);
  }
  if (payment.status !== 'SUCCESSFUL') return refused('refund-not-allowed');
  const refund = toMinor(String(body.amount));
  const refunded = toMinor(payment.refundedAmount) + refund;
  if (refund === 0 || refunded > toMinor(payment.amount)) return refused('refund-exceeds-amount');
  const scenario = ctx.decide({ operation: 'refundPayment', body, payment });
  return answerWith(scenario, (outcome) => {
    if (outcome.state === 'REFUNDED') {
      payment.refundedAmount = fromMinor(refunded);
      const whole = refunded === toMinor(payment.amount);
      settle(ctx, payment, whole ? 'REFUNDED' : 'SUCCESSFUL', outcome.code, outcome.message, scenario.name);
    } else if (outcome.state) {
      settle(ctx, payment, outcome.state, outcome.code, outcome.message, scenario.name);
    }
    const card = payment.card ?? { bin: '', last4: '', token: '' };
    return { paymentReference: payment.paymentReference, status: 'REFUNDED', card };
  });
}

/**
 * POST /payments/cancel: only a payment that is still pending; one already
 * settled is refused (S12 Transaction Failed).
 * @throws ApiError 400 No authorised transaction found for this reference (the
 *   provider's body) for an unknown reference.
 */
export function cancelPayment(ctx: OperationContext, body: Body): Answer {
  const payment = paymentNamed(ctx, body);
  if (payment.status !== 'PENDING') return refused('cancel-not-allowed');
  const scenario = ctx.decide({ operation: 'cancelPayment', body, payment });
  return answerWith(scenario, (outcome) => {
    if (outcome.state) settle(ctx, payment, outcome.state, outcome.code, outcome.message, scenario.name);
    const { bin = '', last4 = '' } = payment.card ?? {};
    return { paymentReference: payment.paymentReference, status: 'CANCELLED', card: { bin, last4 } };
  });
}

/** Moves a payment to its next state and stores it. */
export function settle(ctx: OperationContext, payment: Payment, status: Payment['status'], code: string, message: string, scenario: string): void {
  Object.assign(payment, { status, code, message, scenario, updatedAt: ctx.now() });
  ctx.store.putPayment(payment);
}

function paymentNamed(ctx: OperationContext, body: Body): Payment {
  const payment = ctx.store.payment(ctx.merchant.publicKey, String(body.paymentReference));
  if (!payment) throw noAuthorisedTransaction();
  return payment;
}

/**
 * Settles a pending payment as the outside world would (3-D Secure answered,
 * transfer received): SUCCESSFUL with 00 Successful, or FAILED with S12
 * Transaction Failed. Used by the control API and the customer pages.
 * @returns false, changing nothing, when the payment is not PENDING.
 */
export function settleExternally(store: Store, payment: Payment, outcome: 'success' | 'failure', now: string, scenario: string): boolean {
  if (payment.status !== 'PENDING') return false;
  const [status, code, message] = outcome === 'success' ? (['SUCCESSFUL', '00', 'Successful'] as const) : (['FAILED', 'S12', 'Transaction Failed'] as const);
  Object.assign(payment, { status, code, message, scenario, updatedAt: now });
  store.putPayment(payment);
  return true;
}
