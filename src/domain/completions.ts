import { inputError, notFound } from '../errors.js';
import type { PaymentMethod } from '../model/records.js';
import type { Selection } from '../scenarios/selector.js';
import { answered, answerWith, paymentWrite, type Answer, type OperationEnv } from './answer.js';
import { outcomeOf } from './payments.js';
import type { Body, RequestFacts } from './request.js';
import { refusalReason, transition, type PaymentEvent } from './state-machine.js';

/**
 * Completions: a pending payment completed with the OTP its customer was
 * sent (spec, endpoints 8 and 9; the provider's card OTP, docs/decisions.md#d51-card-otp).
 */

/** The completion endpoints: the spec's validate and momo/otp, and the provider's card OTP (docs/decisions.md#d51-card-otp). */
type Completion = 'validatePayment' | 'completeMomoPayment' | 'completeCardOtp';

/** Which methods each completion endpoint completes (docs/decisions.md#d15-which-endpoint-completes: validate also takes card OTPs). */
const COMPLETES: Record<Completion, readonly PaymentMethod[]> = {
  validatePayment: ['ACCOUNT', 'CARD'],
  completeMomoPayment: ['MOMO'],
  completeCardOtp: ['CARD'],
};

/** Where each completion endpoint sends the payments it does not complete. */
const COMPLETED_BY: Record<PaymentMethod, string> = {
  CARD: 'POST /payments/validate or POST /payments/otp',
  ACCOUNT: 'POST /payments/validate',
  MOMO: 'POST /payments/momo/otp',
  TRANSFER: 'no OTP: the customer sends the transfer',
  USSD: 'no OTP: the customer dials the code (settle it over the control API)',
  CHECKOUT: 'the hosted checkout page',
  ORDER: 'the hosted checkout page',
};

/**
 * The body of POST /payments/otp as one flat `{linkingReference, otp}`:
 * the provider's Python and Java SDKs send
 * `{"transaction": {"linkingreference", "otp"}}`, its PHP SDK the flat
 * `{linkingReference, otp, publicKey}` (docs/decisions.md#d51-card-otp).
 */
export function cardOtpBody(body: Body): Body {
  const nested = typeof body.transaction === 'object' && body.transaction !== null ? (body.transaction as Body) : body;
  const flat: Body = {};
  const linkingReference = nested.linkingreference ?? nested.linkingReference;
  if (linkingReference !== undefined) flat.linkingReference = linkingReference;
  if (nested.otp !== undefined) flat.otp = nested.otp;
  const publicKey = body.publicKey ?? body.publickey;
  if (publicKey !== undefined) flat.publicKey = publicKey;
  return flat;
}

/**
 * POST /payments/validate and POST /payments/momo/otp: complete a pending
 * payment with an OTP. A payment that is no longer pending answers `RR`
 * "Sorry payment already processed" with its fields and changes nothing
 * (external-api.yml, ValidateTransactionResponse1).
 * @throws ApiError 404 for an unknown linkingReference, 400 when the payment
 *   belongs to the other completion endpoint.
 */
export function completePayment(facts: RequestFacts, selection: Selection, env: OperationEnv): Answer {
  const operation = facts.operation as Completion;
  const { linkingReference, payment } = facts;
  if (!payment) throw notFound(`No payment with linkingReference ${linkingReference}`);
  if (!COMPLETES[operation].includes(payment.method)) {
    throw inputError(`linkingReference ${linkingReference} is a ${payment.method} payment: complete it with ${COMPLETED_BY[payment.method]}`);
  }
  // The card OTP endpoint answers the provider's own keys (surface.md, 4): `reference`, `linkingreference`.
  const details = operation === 'completeCardOtp'
    ? { reference: payment.paymentReference, linkingreference: linkingReference }
    : { paymentReference: payment.paymentReference, linkingReference, authoption: [] };
  const rule = selection.rule;
  const event: PaymentEvent = { type: 'settle', status: rule.then.state ?? 'SUCCESSFUL' };
  const settled = transition(payment, event, outcomeOf(rule, env.now()));
  if (settled.refused) {
    const doing = operation === 'validatePayment' ? 'validated' : 'completed with an OTP';
    return { ...alreadyProcessed(details), reason: refusalReason(settled.refused, payment, event, doing) };
  }
  return answerWith(rule, () => details, 'payments', rule.then.state ? [paymentWrite(settled.payment, payment)] : []);
}

// The provider's answer to a second completion (external-api.yml, ValidateTransactionResponse1).
const alreadyProcessed = (details: Record<string, unknown>): Answer =>
  answered('payment-already-processed', 'RR', 'Sorry payment already processed', { payments: details });

