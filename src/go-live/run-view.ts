import { GO_LIVE_RUN_STEPS, type GoLiveRun, type GoLiveRunAnswer, type GoLiveRunStep, type GoLiveRunStepName } from '../model/go-live.js';
import type { Delivery, DeliveryAttempt } from '../model/notifications.js';
import type { Payment } from '../model/records.js';
import { VERIFY_WITHIN_MS } from './notification-checks.js';
import { runReferences, STEP_PLAN, stepEventId } from './run-steps.js';

/**
 * A go-live run as GET /__sandbox/go-live/{publicKey}/runs/{id} shows it
 * (docs/decisions.md#d87-go-live-report), computed from what the store
 * keeps of it (its payments and deliveries) and the merchant's clock, so
 * that any replica, or the sandbox restarted, answers the same. Times are
 * on the merchant's clock, as its payments' and attempts' are.
 */

/** What a run's view is computed from. */
export interface RunSources {
  id: string;
  publicKey: string;
  /** the run's `GOLIVE-<run>-PAID` payment: its createdAt is when the run started */
  paid: Payment;
  /** the run's deliveries (`run.id`), in any order */
  deliveries: readonly Delivery[];
  /** the merchant's clock now, epoch ms */
  nowMs: number;
  /** true while some process may still send the run's steps; false once none can: a step not sent by then never will be */
  sending: boolean;
}

/** A step's result, and why. */
interface Judged {
  result: GoLiveRunStep['result'];
  detail: string;
}

/**
 * The run: each step of GO_LIVE_RUN_STEPS with what the receiver answered
 * and its result, and the run's status. A run is `running` while steps are
 * still to be sent, then until the merchant's status query has followed
 * both notifications of success (steps success and false-success) or its
 * clock has passed VERIFY_WITHIN_MS after the last step's attempt. A run
 * whose sending stopped (`sending` false with steps unsent) is `done`, the
 * steps never sent failed.
 */
export function runView(sources: RunSources): GoLiveRun {
  const steps = GO_LIVE_RUN_STEPS.map((step) => stepView(step, sources));
  const run: GoLiveRun = { id: sources.id, status: 'running', startedAt: sources.paid.createdAt, steps };
  const finishedAt = finishedAtOf(sources);
  if (finishedAt !== undefined) Object.assign(run, { status: 'done', finishedAt });
  return run;
}

/** The delivery of one step of the run, if it was made. */
export function stepDelivery(deliveries: readonly Delivery[], step: GoLiveRunStepName): Delivery | undefined {
  return deliveries.find((delivery) => delivery.run?.step === step);
}

function stepView(step: GoLiveRunStepName, sources: RunSources): GoLiveRunStep {
  const { eventType, payment } = STEP_PLAN[step];
  const delivery = stepDelivery(sources.deliveries, step);
  const attempt = delivery?.attempts[0];
  const { result, detail } = judged(step, delivery, attempt, sources);
  return {
    step,
    eventType,
    eventId: delivery?.event.eventId ?? stepEventId(sources.publicKey, sources.id, step),
    paymentReference: runReferences(sources.id)[payment],
    ...(delivery ? { deliveryId: delivery.id } : {}),
    ...(attempt ? { answer: answerOf(attempt) } : {}),
    result,
    detail,
  };
}

// What the receiver answered: the ackReference its body held is known to be the one sent when it acknowledged; a
// wrong one is quoted in the attempt's reason, and so in the step's detail.
function answerOf(attempt: DeliveryAttempt): GoLiveRunAnswer {
  return {
    ...(attempt.status !== undefined && attempt.notSent !== true ? { status: attempt.status } : {}),
    ...(attempt.acknowledged ? { ackReference: attempt.ackReference } : {}),
    ms: attempt.latencyMs,
  };
}

function judged(step: GoLiveRunStepName, delivery: Delivery | undefined, attempt: DeliveryAttempt | undefined, sources: RunSources): Judged {
  if (!delivery) return sources.sending ? { result: 'waiting', detail: 'not sent yet' } : { result: 'fail', detail: 'the sandbox stopped before this step was sent' };
  if (!attempt) {
    return sources.sending
      ? { result: 'waiting', detail: 'sent; waiting for the receiver\'s answer (5 s at most)' }
      : { result: 'fail', detail: 'the sandbox stopped before the receiver\'s answer to this step was recorded' };
  }
  const verification = STEP_PLAN[step].eventType === 'transaction' && step !== 'duplicate' ? verifiedOf(delivery, attempt, sources.nowMs) : undefined;
  if (attempt.notSent === true) return { result: 'fail', detail: `not sent: ${attempt.reason ?? 'answered by the sandbox'}` };
  if (!attempt.acknowledged) {
    const also = verification === undefined || verification.state === 'open' ? '' : `; ${verification.text}`;
    return { result: 'fail', detail: `not acknowledged: ${attempt.reason ?? 'no answer'}${also}` };
  }
  if (step === 'duplicate') return { result: 'pass', detail: 'the same event (same eventId) acknowledged again: a receiver that drops duplicates still acknowledges them' };
  if (step === 'dispute') return { result: 'pass', detail: 'acknowledged, though an integration may not process dispute events' };
  const { state, text } = verification!;
  if (state === 'open') return { result: 'waiting', detail: `acknowledged; ${text}` };
  if (state === 'late') return { result: 'fail', detail: `acknowledged, but ${text}` };
  if (state === 'verified') {
    const meaning = step === 'false-success' ? ': it answers S12, so the success the event claimed is not to be believed' : '';
    return { result: 'pass', detail: `acknowledged; ${text}${meaning}` };
  }
  const risk = step === 'false-success'
    ? 'a forged notification claiming success for a failed payment would have been believed'
    : 'notifications are not signed: query GET /api/v2/payments/query/{paymentReference} and trust its code before fulfilling';
  return { result: 'fail', detail: `acknowledged, but ${text}: ${risk}` };
}

/** Where the merchant's status query of a notification of success stands (notification-checks.ts, VERIFY_WITHIN_MS). */
interface Verification {
  state: 'verified' | 'late' | 'open' | 'never';
  text: string;
}

function verifiedOf(delivery: Delivery, attempt: DeliveryAttempt, nowMs: number): Verification {
  const sentMs = Date.parse(attempt.at);
  if (delivery.verifiedAt !== undefined) {
    const seconds = Math.max(0, Math.round((Date.parse(delivery.verifiedAt) - sentMs) / 100) / 10);
    return Date.parse(delivery.verifiedAt) - sentMs <= VERIFY_WITHIN_MS
      ? { state: 'verified', text: `the payment's status was queried ${seconds} s later` }
      : { state: 'late', text: `the payment's status was queried only ${seconds} s later, after the 30 s allowed` };
  }
  if (nowMs - sentMs <= VERIFY_WITHIN_MS) return { state: 'open', text: `waiting up to 30 s (on the merchant's clock) for the status query of ${delivery.paymentReference}` };
  return { state: 'never', text: 'the payment\'s status was not queried within 30 s' };
}

// When the run ended, on the merchant's clock; undefined while it runs.
function finishedAtOf(sources: RunSources): string | undefined {
  const made = GO_LIVE_RUN_STEPS.map((step) => stepDelivery(sources.deliveries, step));
  const attempts = made.map((delivery) => delivery?.attempts[0]);
  if (attempts.every((attempt) => attempt !== undefined)) {
    const success = made[0]!;
    const falseSuccess = made[3]!;
    const windowEnds = Date.parse(attempts[3]!.at) + VERIFY_WITHIN_MS;
    const verified = success.verifiedAt !== undefined && falseSuccess.verifiedAt !== undefined
      ? Math.max(Date.parse(success.verifiedAt), Date.parse(falseSuccess.verifiedAt))
      : Number.POSITIVE_INFINITY;
    if (verified <= windowEnds) return new Date(verified).toISOString();
    // The window is over once the clock has passed its end, as a step's is (verifiedOf).
    return sources.nowMs > windowEnds ? new Date(windowEnds).toISOString() : undefined;
  }
  if (sources.sending) return undefined;
  // Cut off: it ended with the last thing it recorded.
  const times = [sources.paid.createdAt, ...made.flatMap((delivery) => (delivery ? [delivery.updatedAt] : []))].map(Date.parse);
  return new Date(Math.max(...times)).toISOString();
}
