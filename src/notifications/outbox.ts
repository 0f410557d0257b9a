import { randomBytes } from 'node:crypto';
import type { MerchantClocks } from '../clock/clocks.js';
import type { Outbox } from '../domain/commit.js';
import { eventDataOf, eventsOf, spaceForm } from '../domain/notification-events.js';
import { durationMs, later } from '../model/durations.js';
import type { GoLiveRunMark } from '../model/go-live.js';
import type { Delivery, DeliveryFault, DeliverySchedule, NotificationEvent, NotificationEventType } from '../model/notifications.js';
import type { Payment } from '../model/records.js';
import type { ScenarioEngine } from '../scenarios/engine.js';
import type { Change, Store } from '../store/store.js';
import type { NotificationFaults } from './faults.js';

/** A merchant's notification URL as it applies now: its own, or the one every merchant has (`--webhook-url`). */
export interface ActiveEndpoint {
  url: string;
  events?: NotificationEventType[];
  schedule: DeliverySchedule;
  /** `merchant`: set for this merchant; `default`: `--webhook-url` */
  source: 'merchant' | 'default';
}

/** What the outbox needs. */
export interface OutboxDependencies {
  store: Store;
  clocks: MerchantClocks;
  faults: NotificationFaults;
  engine: ScenarioEngine;
  /** every merchant's notification URL unless it set its own (`--webhook-url`); absent: none */
  defaultUrl?: string;
}

/** How long a `late` fault holds the first attempt back when it says nothing. */
export const DEFAULT_LATE_DELAY = 'PT1M';
/** How many attempts a `receiver-error` fault answers for the receiver when it says nothing. */
export const DEFAULT_RECEIVER_ERRORS = 3;

/**
 * Makes the deliveries of notifications (README, "Notifications"): from a
 * payment's change (`deliveriesFor`, called by the one commit function, so
 * they go in the same log line as the change), on demand (`trigger`), and
 * again (`redeliver`). A delivery is made only for a merchant with a
 * notification URL, and its first attempt is due at once unless a fault
 * says otherwise.
 */
export class NotificationOutbox implements Outbox {
  private sequence: number;

  constructor(private readonly deps: OutboxDependencies) {
    this.sequence = deps.store.deliveries().reduce((highest, delivery) => Math.max(highest, delivery.sequence), 0);
    // Other replicas of a shared store number deliveries too, and a snapshot loaded brings its own: each counts on from the highest it has seen.
    deps.store.watch((change) => this.countFrom(change));
  }

  private countFrom(change: Change): void {
    const made = change.kind === 'payment' ? (change.deliveries ?? []) : change.kind === 'delivery' ? [change.delivery] : change.kind === 'replace' ? change.records.deliveries : [];
    for (const delivery of made) this.sequence = Math.max(this.sequence, delivery.sequence);
  }

  /** The merchant's notification URL as it applies now, or undefined when it has none. */
  endpoint(publicKey: string): ActiveEndpoint | undefined {
    const own = this.deps.store.webhook(publicKey);
    if (own) return { url: own.url, ...(own.events ? { events: own.events } : {}), schedule: own.schedule, source: 'merchant' };
    return this.deps.defaultUrl === undefined ? undefined : { url: this.deps.defaultUrl, schedule: 'current', source: 'default' };
  }

  /** @inheritdoc */
  deliveriesFor(before: Payment | undefined, after: Payment): Delivery[] {
    const endpoint = this.endpoint(after.publicKey);
    if (!endpoint) return [];
    const deliveries: Delivery[] = [];
    for (const draft of eventsOf(before, after)) {
      if (endpoint.events && !endpoint.events.includes(draft.eventType)) continue;
      const event = this.event(after.publicKey, draft.eventType, draft.data);
      deliveries.push(...this.deliveriesOf(after, event, endpoint.schedule, this.faultFor(after)));
    }
    return deliveries;
  }

  /**
   * A new event of `eventType` for a stored payment, as `stripe trigger`
   * makes one (README, "Notifications"): from the payment as it stands
   * (src/domain/notification-events.ts, eventDataOf). Not stored: the
   * caller puts the deliveries and commits.
   * @throws RangeError when the merchant has no notification URL, or a refund is asked of a payment with nothing refunded
   */
  trigger(payment: Payment, eventType: NotificationEventType): Delivery[] {
    const endpoint = this.endpoint(payment.publicKey);
    if (!endpoint) throw new RangeError(`merchant ${payment.publicKey} has no notification URL: set one with PUT /__sandbox/webhooks/${payment.publicKey}`);
    const data = eventDataOf(payment, eventType);
    return this.deliveriesOf(payment, this.event(payment.publicKey, eventType, data), endpoint.schedule, this.deps.faults.take(payment.publicKey));
  }

  /**
   * Another delivery of a delivery's event, the same eventId, due at once to
   * the merchant's URL as it is now. Not stored.
   * @throws RangeError when the merchant has no notification URL
   */
  redeliver(delivery: Delivery): Delivery {
    const endpoint = this.endpoint(delivery.publicKey);
    if (!endpoint) throw new RangeError(`merchant ${delivery.publicKey} has no notification URL: set one with PUT /__sandbox/webhooks/${delivery.publicKey}`);
    const now = this.deps.clocks.now(delivery.publicKey);
    return this.delivery(delivery.publicKey, delivery.paymentReference, delivery.event, endpoint.schedule, now, { copyOf: delivery.id });
  }

  /**
   * A go-live run's delivery of `event` (docs/decisions.md#d87-go-live-report):
   * due at once, judged by the current page's rule, marked with its run and
   * numbered after every other delivery. The run makes its one attempt
   * itself; the dispatcher never does. Not stored.
   * @param copyOf the delivery whose event it sends again (the run's duplicate step)
   */
  runDelivery(publicKey: string, paymentReference: string, event: NotificationEvent, run: GoLiveRunMark, copyOf?: string): Delivery {
    const now = this.deps.clocks.now(publicKey);
    return { ...this.delivery(publicKey, paymentReference, event, 'current', now, copyOf === undefined ? {} : { copyOf }), run };
  }

  private event(publicKey: string, eventType: NotificationEventType, data: Record<string, unknown>): NotificationEvent {
    return { eventType, eventDate: spaceForm(this.deps.clocks.now(publicKey)), eventId: randomBytes(16).toString('hex'), data };
  }

  // The control API's faults first (newest intent), then the fault of the rule that decided the payment.
  private faultFor(payment: Payment): DeliveryFault | undefined {
    return this.deps.faults.take(payment.publicKey) ?? this.deps.engine.find(payment.scenario)?.then.notification;
  }

  private deliveriesOf(payment: Payment, event: NotificationEvent, schedule: DeliverySchedule, fault: DeliveryFault | undefined): Delivery[] {
    const now = this.deps.clocks.now(payment.publicKey);
    const first = this.delivery(payment.publicKey, payment.paymentReference, event, schedule, now, fault ? { fault } : {});
    if (fault?.kind !== 'duplicate') return [first];
    return [first, this.delivery(payment.publicKey, payment.paymentReference, event, schedule, now, { fault, copyOf: first.id })];
  }

  private delivery(
    publicKey: string,
    paymentReference: string,
    event: NotificationEvent,
    schedule: DeliverySchedule,
    now: string,
    extra: { fault?: DeliveryFault; copyOf?: string },
  ): Delivery {
    const fault = extra.fault;
    const state = fault?.kind === 'never' ? 'withheld' : fault?.kind === 'out-of-order' ? 'held' : 'scheduled';
    const dueAt = state !== 'scheduled' ? undefined : fault?.kind === 'late' ? later(now, durationMs(fault.delay ?? DEFAULT_LATE_DELAY)) : now;
    // One literal with every key, set or not: a delivery is copied at each attempt, and a copy that adds a key costs V8 a new map.
    return {
      id: `dlv_${randomBytes(10).toString('hex')}`,
      publicKey,
      paymentReference,
      event,
      state,
      schedule,
      ackReference: `ack_${randomBytes(12).toString('hex')}`,
      dueAt,
      attempts: [],
      fault,
      copyOf: extra.copyOf,
      sequence: ++this.sequence,
      createdAt: now,
      updatedAt: now,
    };
  }
}
