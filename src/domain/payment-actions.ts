import { ApiError } from '../errors.js';
import { fromMinor, toMinor } from '../model/money.js';
import type { OperationId } from '../model/operations.js';
import type { Payment } from '../model/records.js';
import type { ScenarioEngine } from '../scenarios/engine.js';
import type { Selection } from '../scenarios/selector.js';
import type { Store } from '../store/store.js';
import type { Links, OperationEnv, Write } from './answer.js';
import { OPERATIONS } from './registry.js';
import type { Body } from './request.js';
import { REASON_HEADER, refundable } from './state-machine.js';

/**
 * The actions on one payment that the control API takes as its merchant
 * would (openapi/control-api.yaml, refundPaymentAsMerchant,
 * cancelPaymentAsMerchant, capturePaymentAsMerchant;
 * docs/decisions.md#d81-control-actions-as-the-merchant): each runs the
 * Payments API's own operation (POST /payments/refund, /payments/cancel,
 * /payments/capture) from the registry, on a body the merchant could have
 * sent, so the catalogue, the state machine and its refusals are the ones a
 * merchant's request meets. The caller stores the writes through
 * commitWrites (src/domain/commit.ts), which makes the notifications.
 */

/** An action on one payment, and the Payments API operation that carries it out. */
export const PAYMENT_ACTIONS = { refund: 'refundPayment', cancel: 'cancelPayment', capture: 'capturePayment' } as const satisfies Record<string, OperationId>;

/** One of PAYMENT_ACTIONS. */
export type PaymentAction = keyof typeof PAYMENT_ACTIONS;

/** What an action needs beside the payment: the catalogue, the store (read only), the sandbox's links and the merchant's clock. */
export interface ActionEnv {
  engine: ScenarioEngine;
  store: Store;
  links: Links;
  /** the current time on the payment's merchant's clock, ISO 8601 UTC */
  now(): string;
}

/**
 * What an action did: the payment's new record with the result code and
 * message of the operation's answer, and the writes to store; or, when the
 * operation refused or its rule changes nothing, why, with nothing to store.
 */
export type ActionResult =
  | { payment: Payment; code: string; message: string; scenario: string; writes: readonly Write[]; refusal?: undefined }
  | { refusal: string; scenario: string };

/**
 * Carries out `action` on `payment` through the merchant's own operation.
 * The rule is the catalogue's for the request's values (no header, no
 * override: those wait for the merchant's requests; a delay or a fault is
 * the wire's, and a control request has none of the merchant's wire).
 * @param amount a refund's or a capture's amount, a decimal string in major
 *   units (at most two decimals); absent: all that is left (to refund: what
 *   was paid or captured less what was refunded; to capture: what was
 *   authorised less what was captured). Ignored by cancel.
 * @returns the result; never throws for a refusal of the operation (an
 *   ApiError it throws becomes `refusal`, a sentence naming the payment and why)
 * @throws Error for a programming error of the operation
 */
export function runPaymentAction(env: ActionEnv, payment: Payment, action: PaymentAction, amount?: string): ActionResult {
  const { engine, store } = env;
  const operation = PAYMENT_ACTIONS[action];
  const merchant = store.merchant(payment.publicKey);
  if (!merchant) return { refusal: `the merchant ${payment.publicKey} of payment ${payment.paymentReference} is not stored: its key pair was never exchanged`, scenario: 'merchant-unknown' };
  const body: Body = { publicKey: payment.publicKey, paymentReference: payment.paymentReference };
  if (action !== 'cancel') body.amount = amount === undefined ? fromMinor(Math.max(0, left(payment, action))) : fromMinor(toMinor(amount));
  const prepared = OPERATIONS[operation].prepare({ operation, body, sent: body, params: {}, headers: {}, query: {} }, merchant, false, store);
  const rule = engine.decide(prepared.facts);
  const selection: Selection = { rule, forced: false, byValues: rule, reusedReference: () => rule };
  const operationEnv: OperationEnv = { links: env.links, now: env.now, accountMinimum: engine.accountMinimum() ?? '0.01', decide: (facts) => engine.decide(facts) };
  let answer;
  try {
    answer = prepared.run(selection, operationEnv);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    // The state machine's refusals carry their reason beside the provider's words; an HTTP rule has only its own.
    const reason = error.headers[REASON_HEADER] ?? `the catalogue's rule ${error.scenario ?? rule.name} answers HTTP ${error.status} (${error.message}) and leaves payment ${payment.paymentReference} as it was`;
    return { refusal: reason, scenario: error.scenario ?? rule.name };
  }
  const { code, message } = 'data' in answer.body ? answer.body.data : answer.body;
  if (answer.reason !== undefined) return { refusal: answer.reason, scenario: answer.scenario };
  const written = answer.writes.filter((write): write is Extract<Write, { kind: 'payment' }> => write.kind === 'payment').at(-1);
  if (!written) return { refusal: `the catalogue's rule ${answer.scenario} answers ${code} ${message} and leaves payment ${payment.paymentReference} as it was`, scenario: answer.scenario };
  return { payment: written.payment, code, message, scenario: answer.scenario, writes: answer.writes };
}

// What is left to refund or to capture of a payment, in minor units.
function left(payment: Payment, action: 'refund' | 'capture'): number {
  return action === 'refund' ? refundable(payment) : toMinor(payment.amount) - toMinor(payment.capturedAmount ?? '0.00');
}
