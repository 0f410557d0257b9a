import { fromMinor } from '../model/money.js';
import type { Selection } from '../scenarios/selector.js';
import { answered, answerWith, paymentWrite, refused, type Answer, type OperationEnv } from './answer.js';
import { outcomeOf, type AmountFacts } from './payments.js';
import type { RequestFacts } from './request.js';
import { refusalReason, transition, type PaymentEvent } from './state-machine.js';

/**
 * The refunds API of the provider's current documentation, POST
 * /payments/refunds (its "Refunds" page; docs/decisions.md#d55-refunds-api): the original
 * payment's reference and an amount, in full or in parts until all of it is
 * returned, through the same state machine as the spec's refund. Its answers
 * are always HTTP 200: `00` for a refund made, `07` for a reference the
 * merchant never used, as the page shows.
 */

/**
 * POST /payments/refunds: refunds `amount` of a paid or captured payment.
 * A reference the merchant never used answers `07` "Transaction with
 * transaction reference <ref> not found"; a payment that cannot be refunded
 * (never paid, refunded in full, or less left than asked) answers `S12`
 * Transaction Failed with the reason, and nothing changes.
 */
export function createRefund(facts: RequestFacts & AmountFacts, selection: Selection, env: OperationEnv): Answer {
  const payment = facts.payment;
  if (!payment) return answered('refund-transaction-not-found', '07', `Transaction with transaction reference ${facts.paymentReference ?? ''} not found`, {});
  const event: PaymentEvent = { type: 'refund', amountMinor: facts.amountMinor ?? 0 };
  const rule = selection.rule;
  const refund = transition(payment, event, outcomeOf(rule, env.now()));
  if (refund.refused) return refused('refund-not-allowed', refusalReason(refund.refused, payment, event, 'refunded'));
  const stored = rule.then.state ? refund.payment : payment;
  return answerWith(
    rule,
    () => ({ paymentReference: stored.paymentReference, amount: fromMinor(event.amountMinor), status: stored.status }),
    'payments',
    rule.then.state ? [paymentWrite(refund.payment, payment)] : [],
  );
}
