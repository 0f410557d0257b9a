import { claimsSuccess, type Delivery, type DeliveryAttempt } from '../model/notifications.js';
import { redactText } from '../redaction/redact.js';
import { checkOf, type CheckResult, type Found } from './check.js';

/**
 * The report's four notification checks, judged from the merchant's
 * deliveries and their attempts as the store keeps them (the provider's
 * webhook page, "Acknowledgment Response" and "Best practices";
 * docs/decisions.md#d87-go-live-report). An attempt the sandbox answered in
 * the receiver's place (`notSent`) is never held against the receiver.
 */

/** How long after a notification of success the integration's own status query counts (the issue's rule: 30 s). */
export const VERIFY_WITHIN_MS = 30_000;

/** An attempt the receiver itself answered, or failed to. */
const sent = (attempt: DeliveryAttempt): boolean => attempt.notSent !== true;

/** One attempt as evidence names it: the delivery, its payment, its event, and why it did not count. */
function attemptFound(delivery: Delivery, attempt: DeliveryAttempt, number: number, what?: string): Found {
  const why = attempt.acknowledged ? 'acknowledged' : (attempt.reason ?? (attempt.status === undefined ? 'no answer' : `HTTP ${attempt.status}`));
  return {
    paymentReference: redactText(delivery.paymentReference),
    deliveryId: delivery.id,
    eventId: delivery.event.eventId,
    detail: `${what ?? `${delivery.event.eventType} event`}, attempt ${number}: ${why}`,
  };
}

/**
 * `notification-acknowledged` (required): every attempt the receiver
 * answered was HTTP 200 with `{"ackReference": <the header's value>,
 * "status": "received"}` within 5 s. Each failed attempt is evidence.
 */
export function acknowledgedCheck(deliveries: readonly Delivery[]): CheckResult {
  let attempts = 0;
  let legacy = 0;
  const failed: Found[] = [];
  for (const delivery of deliveries) {
    delivery.attempts.forEach((attempt, index) => {
      if (!sent(attempt)) return;
      attempts += 1;
      if (delivery.schedule === 'legacy') legacy += 1;
      if (!attempt.acknowledged) failed.push(attemptFound(delivery, attempt, index + 1));
    });
  }
  // An attempt is judged as it was when made: the older page had any HTTP 200 count.
  const older = legacy > 0 ? ` (${legacy} judged by the older page's rule, any HTTP 200: schedule legacy)` : '';
  return checkOf('notification-acknowledged', attempts === 0
    ? { status: 'not-exercised', summary: 'No notification was sent to the merchant\'s URL yet: set one and make a payment, or start a run' }
    : failed.length === 0
      ? { status: 'pass', summary: `All ${attempts} attempts were acknowledged${older}` }
      : { status: 'fail', summary: `${failed.length} of ${attempts} attempts were not acknowledged${older}`, found: failed });
}

/**
 * `notification-duplicate-acknowledged` (required): every sending of an
 * event after its first (a retry, a redeliver, a duplicate, a run's second
 * step: the same eventId) was acknowledged again, so a receiver that drops
 * duplicates by eventId still answers them.
 */
export function duplicateCheck(deliveries: readonly Delivery[]): CheckResult {
  const seen = new Set<string>();
  let again = 0;
  const failed: Found[] = [];
  // Oldest first across the merchant's deliveries, so "after its first" is the order they were sent in.
  const ordered = [...deliveries].sort((a, b) => a.sequence - b.sequence);
  for (const delivery of ordered) {
    delivery.attempts.forEach((attempt, index) => {
      if (!sent(attempt)) return;
      const eventId = delivery.event.eventId;
      if (!seen.has(eventId)) {
        seen.add(eventId);
        return;
      }
      again += 1;
      if (!attempt.acknowledged) failed.push(attemptFound(delivery, attempt, index + 1, `${delivery.event.eventType} event sent again`));
    });
  }
  return checkOf('notification-duplicate-acknowledged', again === 0
    ? { status: 'not-exercised', summary: 'No event was sent twice yet: start a run, or redeliver a delivery' }
    : failed.length === 0
      ? { status: 'pass', summary: `All ${again} sendings of an event already sent were acknowledged` }
      : { status: 'fail', summary: `${failed.length} of ${again} sendings of an event already sent were not acknowledged`, found: failed });
}

/**
 * `notification-unknown-type-acknowledged` (required): every `dispute`
 * event (a type an integration may not process) was acknowledged, so it is
 * not retried for an hour.
 */
export function unknownTypeCheck(deliveries: readonly Delivery[]): CheckResult {
  let attempts = 0;
  const failed: Found[] = [];
  for (const delivery of deliveries) {
    if (delivery.event.eventType !== 'dispute') continue;
    delivery.attempts.forEach((attempt, index) => {
      if (!sent(attempt)) return;
      attempts += 1;
      if (!attempt.acknowledged) failed.push(attemptFound(delivery, attempt, index + 1));
    });
  }
  return checkOf('notification-unknown-type-acknowledged', attempts === 0
    ? { status: 'not-exercised', summary: 'No dispute event was sent yet: start a run, or trigger one' }
    : failed.length === 0
      ? { status: 'pass', summary: `All ${attempts} dispute events were acknowledged` }
      : { status: 'fail', summary: `${failed.length} of ${attempts} dispute events were not acknowledged`, found: failed });
}

/**
 * `notification-verified` (required): each notification claiming a payment
 * succeeded was followed, within VERIFY_WITHIN_MS of its first attempt, by
 * the integration's own status query of that payment (`verifiedAt`). One
 * whose window is still open is neither a pass nor a failure yet. Times
 * are on the merchant's clock, as the attempts' `at` and `verifiedAt` are.
 * @param nowMs the merchant's clock now, milliseconds since the epoch
 */
export function verifiedCheck(deliveries: readonly Delivery[], nowMs: number): CheckResult {
  let judged = 0;
  let waiting = 0;
  const failed: Found[] = [];
  for (const delivery of deliveries) {
    const first = delivery.attempts.find(sent);
    if (!claimsSuccess(delivery) || first === undefined) continue;
    const sentAt = Date.parse(first.at);
    const queried = delivery.verifiedAt === undefined ? undefined : Date.parse(delivery.verifiedAt);
    if (queried !== undefined && queried - sentAt <= VERIFY_WITHIN_MS) {
      judged += 1;
      continue;
    }
    if (queried === undefined && nowMs - sentAt <= VERIFY_WITHIN_MS) {
      waiting += 1;
      continue;
    }
    judged += 1;
    failed.push({
      paymentReference: redactText(delivery.paymentReference),
      deliveryId: delivery.id,
      eventId: delivery.event.eventId,
      detail: queried === undefined
        ? 'notified of success; the payment\'s status was never queried afterwards'
        : `notified of success; its status was queried ${Math.round((queried - sentAt) / 1000)} s later, after the 30 s allowed`,
    });
  }
  const open = waiting > 0 ? `; ${waiting} still within their 30 s` : '';
  return checkOf('notification-verified', judged === 0
    ? { status: 'not-exercised', summary: `No notification of success has been judged yet${open}` }
    : failed.length === 0
      ? { status: 'pass', summary: `All ${judged} notifications of success were followed by a status query${open}` }
      : { status: 'fail', summary: `${failed.length} of ${judged} notifications of success were not followed by a status query within 30 s${open}`, found: failed });
}
