import type { Request, Response } from 'express';
import type { MerchantClocks } from '../clock/clocks.js';
import type { Links } from '../domain/answer.js';
import { putWrites, type Outbox } from '../domain/commit.js';
import { runPaymentAction, type PaymentAction } from '../domain/payment-actions.js';
import { ApiError } from '../errors.js';
import type { Payment } from '../model/records.js';
import type { ScenarioEngine } from '../scenarios/engine.js';
import type { Store } from '../store/store.js';
import { paymentView } from './views.js';

/** What the actions on one payment need. */
export interface PaymentActionControls {
  store: Store;
  engine: ScenarioEngine;
  /** the sandbox's page links, which the merchant's operations are given */
  links: Links;
  clocks: MerchantClocks;
  /** makes the notifications of the payment's change, stored with it */
  outbox: Outbox;
  /**
   * The one payment a request names (the control router's look-up).
   * @throws ApiError 404 for no such payment, 400 for a reference several merchants used without `publicKey`
   */
  onePayment(req: Request, publicKey: string | undefined): Payment;
}

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

type Handler = (req: Request, res: Response) => Promise<void>;

/**
 * The handlers of refund, cancel and capture of one payment
 * (openapi/control-api.yaml, refundPaymentAsMerchant,
 * cancelPaymentAsMerchant, capturePaymentAsMerchant;
 * docs/decisions.md#d81-control-actions-as-the-merchant), by operationId:
 * each runs the merchant's own operation (src/domain/payment-actions.ts)
 * and stores what it wrote as a merchant's request is stored, its
 * notifications with it. 200 `{payment, code, message}`; 409 CONFLICT
 * `{message, error}` naming why when the operation refuses, nothing changed.
 */
export function paymentActionHandlers(deps: PaymentActionControls): Record<string, Handler> {
  const act = (action: PaymentAction): Handler => async (req, res) => {
    const { publicKey, amount } = (req.body ?? {}) as ActionBody;
    // Read and changed in one unit, so that on a shared store two replicas' refunds never add up past the amount.
    const done = await deps.store.transaction(() => {
      const payment = deps.onePayment(req, publicKey);
      const env = { engine: deps.engine, store: deps.store, links: deps.links, now: () => deps.clocks.now(payment.publicKey) };
      const ran = runPaymentAction(env, payment, action, action === 'cancel' ? undefined : amount);
      if (ran.refusal !== undefined) throw new ApiError(409, { message: ran.refusal, error: 'CONFLICT' });
      putWrites(deps.store, ran.writes, deps.outbox);
      return ran;
    });
    const answer: PaymentActionAnswer = { payment: paymentView(done.payment), code: done.code, message: done.message };
    res.json(answer);
  };
  return { refundPaymentAsMerchant: act('refund'), cancelPaymentAsMerchant: act('cancel'), capturePaymentAsMerchant: act('capture') };
}
