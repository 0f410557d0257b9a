import { putWrites } from '../domain/commit.js';
import { runPaymentAction, type PaymentAction } from '../domain/payment-actions.js';
import { ApiError } from '../errors.js';
import { json, type ControlRun } from './operation.js';
import { paymentView } from './views.js';

/** The body of POST /payments/{paymentReference}/refund, /cancel and /capture (control-api.yaml, PaymentActionRequest). */
interface ActionBody {
  publicKey?: string;
  /** decimal string in major units */
  amount?: string;
}

/** The answer of an action done (control-api.yaml, PaymentActionResult). */
export interface PaymentActionAnswer {
  /** the payment as GET /payments/{paymentReference} shows it, after the action */
  payment: Record<string, unknown>;
  /** the result code of the operation's answer */
  code: string;
  /** the result message of the operation's answer */
  message: string;
}

/**
 * Refund, cancel and capture of one payment (openapi/control-api.yaml,
 * refundPaymentAsMerchant, cancelPaymentAsMerchant,
 * capturePaymentAsMerchant; docs/decisions.md#d81-control-actions-as-the-merchant):
 * each runs the merchant's own operation (src/domain/payment-actions.ts)
 * and stores what it wrote as a merchant's request is stored, its
 * notifications with it. 200 `{payment, code, message}`; 409 CONFLICT
 * `{message, error}` naming why when the operation refuses, nothing changed.
 */
export function paymentAction(action: PaymentAction): ControlRun {
  return async (input, context) => {
    const { store, selector, links, notifications } = context;
    const { publicKey, amount } = (input.body ?? {}) as ActionBody;
    // Read and changed in one unit, so that on a shared store two replicas' refunds never add up past the amount.
    const done = await store.transaction(() => {
      const payment = context.onePayment(input, publicKey ?? context.merchantOf(input));
      const env = { engine: selector.engine, store, links, now: () => notifications.clocks.now(payment.publicKey) };
      const ran = runPaymentAction(env, payment, action, action === 'cancel' ? undefined : amount);
      if (ran.refusal !== undefined) throw new ApiError(409, { message: ran.refusal, error: 'CONFLICT' });
      putWrites(store, ran.writes, notifications.outbox);
      return ran;
    });
    const answer: PaymentActionAnswer = { payment: paymentView(done.payment), code: done.code, message: done.message };
    return json(answer);
  };
}
