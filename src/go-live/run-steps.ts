import { createHash } from 'node:crypto';
import { eventDataOf } from '../domain/notification-events.js';
import { newPayment } from '../domain/payments.js';
import { transition } from '../domain/state-machine.js';
import type { GoLiveRunStepName } from '../model/go-live.js';
import type { NotificationEventType } from '../model/notifications.js';
import type { Merchant, Payment, PaymentStatus } from '../model/records.js';

/**
 * What a go-live run sends (docs/decisions.md#d87-go-live-report): its two
 * payments of its own, and for each step the event and the payment it is
 * of. Pure: the run (run.ts) stores and sends them.
 */

/** The rule the run's payments name as having decided them: no rule of the catalogue did. */
export const RUN_SCENARIO = 'go-live-run';

/** The references of a run's two payments: `GOLIVE-<run>-PAID` and `GOLIVE-<run>-FAILED`. */
export const runReferences = (id: string): { paid: string; failed: string } => ({ paid: `GOLIVE-${id}-PAID`, failed: `GOLIVE-${id}-FAILED` });

/** What each step sends: an event of which type, of which of the run's payments. */
export const STEP_PLAN: Readonly<Record<GoLiveRunStepName, { eventType: NotificationEventType; payment: 'paid' | 'failed' }>> = {
  success: { eventType: 'transaction', payment: 'paid' },
  duplicate: { eventType: 'transaction', payment: 'paid' },
  dispute: { eventType: 'dispute', payment: 'paid' },
  'false-success': { eventType: 'transaction', payment: 'failed' },
};

// Test cards: a Mastercard the provider's examples pay with, and the catalogue's declined card. Only BIN and last four are kept.
const PAID_CARD = '5123450000000008';
const FAILED_CARD = '4000000000000002';

/**
 * The run's two card payments, made through the state machine as an
 * initiate makes one, marked with the run (`goLiveRun`), created at `now`
 * (the merchant's clock): `GOLIVE-<run>-PAID` SUCCESSFUL (00) and
 * `GOLIVE-<run>-FAILED` FAILED (S12). Not stored; they cause no
 * notification of their own: the run sends its steps instead.
 */
export function runPayments(merchant: Merchant, id: string, now: string): { paid: Payment; failed: Payment } {
  const references = runReferences(id);
  return {
    paid: created(merchant, id, references.paid, PAID_CARD, 'SUCCESSFUL', now),
    failed: created(merchant, id, references.failed, FAILED_CARD, 'FAILED', now),
  };
}

function created(merchant: Merchant, id: string, paymentReference: string, cardNumber: string, status: PaymentStatus, now: string): Payment {
  const fields = {
    paymentReference, amount: '100.00', currency: 'NGN', country: 'NG', cardNumber,
    kept: { fullName: 'Go-live Run', email: 'go-live-run@sandbox.invalid', productDescription: `Go-live run ${id}` },
  };
  const record: Payment = { ...newPayment({ merchant }, fields, 'CARD', now), goLiveRun: id };
  const [code, message] = status === 'SUCCESSFUL' ? ['00', 'Successful'] : ['S12', 'Transaction Failed'];
  const made = transition(undefined, { type: 'create', record, status }, { code, message, scenario: RUN_SCENARIO, now });
  // A new reference is never refused: the run's id is new.
  if (made.refused) throw new Error(`the go-live run's payment ${paymentReference} could not be made: ${made.refused}`);
  return made.payment;
}

/**
 * A step's eventId, the same wherever it is asked (32 hex digits, as the
 * outbox's): the view names it before the step is sent. The duplicate step
 * sends the success step's event again, and so its eventId.
 */
export function stepEventId(publicKey: string, id: string, step: GoLiveRunStepName): string {
  const own = step === 'duplicate' ? 'success' : step;
  return createHash('sha256').update(`go-live:${publicKey}:${id}:${own}`).digest('hex').slice(0, 32);
}

/**
 * The data of a step's event, in the provider's shape: the paid payment's
 * `transaction` (success), its `dispute`, and a `transaction` claiming
 * success (code and gatewayCode 00) of the failed payment (false-success).
 * The duplicate step sends the success step's stored event, not this.
 */
export function stepData(step: GoLiveRunStepName, payments: { paid: Payment; failed: Payment }): Record<string, unknown> {
  // The failed payment as if it had succeeded: what the event claims, not what the sandbox holds.
  const payment: Payment = STEP_PLAN[step].payment === 'failed' ? { ...payments.failed, status: 'SUCCESSFUL', code: '00', message: 'Successful' } : payments.paid;
  return eventDataOf(payment, STEP_PLAN[step].eventType);
}
