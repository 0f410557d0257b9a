import { inputError, notFound } from '../errors.js';
import type { PaymentMethod } from '../model/records.js';
import type { Selection } from '../scenarios/selector.js';
import { answered, answerWith, paymentWrite, type Answer, type OperationEnv } from './answer.js';
import { dueOf } from './due.js';
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
  const rule = selection.rule;
  const detailsFor = (pending: boolean) => detailsOf(operation, payment.paymentReference, payment.linkingReference, pending);
  const event: PaymentEvent = { type: 'settle', status: rule.then.state ?? 'SUCCESSFUL' };
  const now = env.now();
  // A rule that leaves the payment waiting for the network promises when it settles (docs/decisions.md#d62-momo-otp-pending);
  // without a `settle`, what was due before stays due.
  const due = rule.then.state === 'PENDING' && rule.then.settle ? dueOf(rule, payment.method, now) : undefined;
  const settled = transition(payment, event, { ...outcomeOf(rule, now), ...(due ? { due } : {}) });
  if (settled.refused) {
    const doing = operation === 'validatePayment' ? 'validated' : 'completed with an OTP';
    return { ...alreadyProcessed(detailsFor(false)), reason: refusalReason(settled.refused, payment, event, doing) };
  }
  return answerWith(rule, () => detailsFor(rule.then.state === 'PENDING'), 'payments', rule.then.state ? [paymentWrite(settled.payment, payment)] : []);
}

/**
 * What a completion answers under `data.payments`: the card OTP endpoint the
 * provider's own keys, `reference` and `linkingreference` (docs/decisions.md#d51-card-otp);
 * momo/otp leaving the payment pending the provider's OTPMomoResponse,
 * paymentReference and linkingReference (docs/decisions.md#d62-momo-otp-pending);
 * otherwise the spec's OTP validation response, with `authoption` `[]`
 * (spec, OTP validation response; docs/decisions.md#d15-which-endpoint-completes).
 */
function detailsOf(operation: Completion, paymentReference: string, linkingReference: string, pending: boolean): Record<string, unknown> {
  if (operation === 'completeCardOtp') return { reference: paymentReference, linkingreference: linkingReference };
  if (operation === 'completeMomoPayment' && pending) return { paymentReference, linkingReference };
  return { paymentReference, linkingReference, authoption: [] };
}

// The provider's answer to a second completion (external-api.yml, ValidateTransactionResponse1).
const alreadyProcessed = (details: Record<string, unknown>): Answer =>
  answered('payment-already-processed', 'RR', 'Sorry payment already processed', { payments: details });

