import type { GoLiveRunMark } from './go-live.js';

/**
 * The records of notifications (webhooks) and merchants' clocks (README,
 * "Notifications" and "Time"). Times are ISO 8601 UTC strings on the
 * merchant's clock unless a field says otherwise.
 */

/**
 * The event types the sandbox sends (the provider's webhook page): a
 * payment resolved, a refund processed, a subscription's charge attempted
 * (`transaction.recurrent`), an authorised debit taken (`transaction.recurring.debit`).
 */
export type NotificationEventType = 'transaction' | 'refund' | 'transaction.recurrent' | 'transaction.recurring.debit' | 'dispute';

/**
 * Every NotificationEventType. A `dispute` is never caused by a payment
 * here: a go-live run sends one, and a trigger makes one on request
 * (docs/decisions.md#d87-go-live-report).
 */
export const NOTIFICATION_EVENT_TYPES: readonly NotificationEventType[] = ['transaction', 'refund', 'transaction.recurrent', 'transaction.recurring.debit', 'dispute'];

/**
 * One event in the provider's shape: what goes in
 * `notificationItems[0].notificationRequestItem` (the provider's webhook page).
 */
export interface NotificationEvent {
  eventType: NotificationEventType;
  /** `yyyy-MM-dd HH:mm:ss`, UTC, on the merchant's clock */
  eventDate: string;
  /** unique per event: receivers drop duplicates by it */
  eventId: string;
  /** the payment's fields, typed as the provider's samples type them (src/domain/notification-events.ts) */
  data: Record<string, unknown>;
}

/**
 * Which retry schedule and acknowledgement a merchant's deliveries follow:
 * `current`, the provider's page as served now (an `ackReference` echoed
 * within 5 s; retries after 30 s, 2 min, 10 min, 30 min, 1 h); `legacy`,
 * its older version (any HTTP 200 within 10 s; 2 min ... 4 h, then every
 * 8 h for 7 days, later notifications waiting behind a failing one).
 */
export type DeliverySchedule = 'current' | 'legacy';

/** A merchant's notification URL, set over the control API or the dashboard. */
export interface WebhookEndpoint {
  publicKey: string;
  /** an http or https URL */
  url: string;
  /** the event types sent; absent: all */
  events?: NotificationEventType[];
  schedule: DeliverySchedule;
  /** real time (not the merchant's clock) */
  updatedAt: string;
}

/**
 * Where a delivery stands: `scheduled` (its next attempt is due at
 * `dueAt`), `held` (an out-of-order fault keeps it until the merchant's next
 * notification has gone), `delivered`, `undelivered` (the schedule ran out),
 * `withheld` (a `never` fault: it is kept, never sent).
 */
export type DeliveryState = 'scheduled' | 'held' | 'delivered' | 'undelivered' | 'withheld';

/** The faults a delivery can be given (README, "Notification faults"). */
export type NotificationFaultKind = 'duplicate' | 'late' | 'out-of-order' | 'never' | 'receiver-error';

/** A fault a delivery carries, as it was set when its event was made. */
export interface DeliveryFault {
  kind: NotificationFaultKind;
  /** `late`: an ISO 8601 duration the first attempt waits */
  delay?: string;
  /** `receiver-error`: the HTTP status the sandbox answers in the receiver's place */
  status?: number;
  /** `receiver-error`: how many attempts are answered so before the receiver is asked */
  attempts?: number;
}

/** One attempt to deliver: what was sent where, what came back, and why it did or did not count. */
export interface DeliveryAttempt {
  /** when it was sent, on the merchant's clock */
  at: string;
  url: string;
  /** the X-Expected-Ack-Reference header it carried */
  ackReference: string;
  /** the receiver's HTTP status; absent when none came (refused, timed out) */
  status?: number;
  /** milliseconds from sending to the answer or the failure, real time */
  latencyMs: number;
  acknowledged: boolean;
  /** why it did not count as acknowledged, redacted like the journal */
  reason?: string;
  /**
   * true when the sandbox answered in the receiver's place and nothing was
   * sent (a receiver-error fault, no notification URL any more): the go-live
   * report does not hold it against the receiver
   */
  notSent?: boolean;
}

/**
 * One delivery of one event to one merchant: the outbox row, written in the
 * same log line as the payment change it reports, then updated at each
 * attempt. A duplicate fault or a redeliver makes another delivery of the
 * same event (same eventId).
 */
export interface Delivery {
  /** `dlv_` and 20 hex digits */
  id: string;
  publicKey: string;
  paymentReference: string;
  event: NotificationEvent;
  state: DeliveryState;
  schedule: DeliverySchedule;
  /** the X-Expected-Ack-Reference of every attempt, which the receiver echoes */
  ackReference: string;
  /** the next attempt's time while `scheduled` */
  dueAt?: string;
  attempts: DeliveryAttempt[];
  fault?: DeliveryFault;
  /** the delivery this one sends again (a redeliver, a duplicate, a trigger of a stored event) */
  copyOf?: string;
  /** of a delivery a go-live run sent: sent once, never retried, and its payment is the run's own */
  run?: GoLiveRunMark;
  /**
   * Of a notification claiming success: when (on the merchant's clock) the merchant's first
   * status query of the payment after the delivery's first attempt (the
   * go-live report's `notification-verified`; docs/decisions.md#d87-go-live-report)
   */
  verifiedAt?: string;
  /** the order deliveries were made in, across the sandbox */
  sequence: number;
  createdAt: string;
  updatedAt: string;
}

/** A merchant's clock: the merchant's time is real time plus `offsetMs` (README, "Time"). */
export interface MerchantClock {
  publicKey: string;
  /** milliseconds the clock runs ahead of real time; never negative */
  offsetMs: number;
}

/** True when the event tells the receiver a payment succeeded: a `transaction` with code 00 (docs/decisions.md#d87-go-live-report). */
export function claimsSuccess(delivery: Pick<Delivery, 'event'>): boolean {
  return delivery.event.eventType === 'transaction' && delivery.event.data.code === '00';
}

/**
 * True when the merchant's next status query of the delivery's payment is
 * recorded on it (`verifiedAt`): a notification of success not yet
 * followed by one (docs/decisions.md#d87-go-live-report).
 */
export function awaitsVerification(delivery: Delivery): boolean {
  return delivery.verifiedAt === undefined && claimsSuccess(delivery);
}
