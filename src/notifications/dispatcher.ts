import type { MerchantClocks } from '../clock/clocks.js';
import type { Delivery, DeliveryAttempt } from '../model/notifications.js';
import type { Store } from '../store/store.js';
import { DEFAULT_RECEIVER_ERRORS, type NotificationOutbox } from './outbox.js';
import { nextAttemptAt, SCHEDULES } from './retry-schedule.js';
import { sendNotification, type SendResult } from './send.js';

/** What the dispatcher needs. */
export interface DispatcherDependencies {
  store: Store;
  clocks: MerchantClocks;
  outbox: NotificationOutbox;
  /** deliveries sent at once, across the sandbox; default 16 */
  maxInFlight?: number;
  /** told of every attempt once it is stored: the request log's line */
  onAttempt?: (delivery: Delivery, attempt: DeliveryAttempt) => void;
}

/** The body the provider POSTs: one event in `notificationItems` (its webhook page). */
export const notificationBody = (delivery: Delivery): string => JSON.stringify({ notificationItems: [{ notificationRequestItem: delivery.event }] });

/** Why an attempt was not made: the merchant's notification URL was removed after its delivery was made. */
export const NO_URL_ANY_MORE = 'the merchant has no notification URL any more';

/** An attempt as stored, from what sending it came to; `at` is on the merchant's clock. */
export function attemptOf(at: string, url: string, ackReference: string, result: SendResult): DeliveryAttempt {
  return {
    at, url, ackReference, ...(result.status !== undefined ? { status: result.status } : {}),
    latencyMs: result.latencyMs, acknowledged: result.acknowledged, ...(result.reason !== undefined ? { reason: result.reason } : {}),
  };
}

/**
 * An attempt the sandbox answered in the receiver's place, nothing sent
 * (a receiver-error fault's status, no notification URL any more): marked
 * `notSent`, so the go-live report never holds it against the receiver
 * (docs/decisions.md#d87-go-live-report).
 */
export function unsentAttempt(at: string, ackReference: string, reason: string, answered: { url?: string; status?: number } = {}): DeliveryAttempt {
  const { url = '', status } = answered;
  return { at, url, ackReference, ...(status !== undefined ? { status } : {}), latencyMs: 0, acknowledged: false, reason, notSent: true };
}

/**
 * Makes the attempts of deliveries that fall due (README, "Notifications"):
 * sends, judges the answer by the merchant's schedule, and stores the
 * attempt with the delivery's next state (delivered, due again on the
 * schedule, or undelivered). At most `maxInFlight` are sent at once; an
 * answer of the API never waits for one.
 */
export class Dispatcher {
  private readonly inFlight = new Set<string>();
  // Merchants that may have held deliveries: only theirs are looked through after an attempt.
  private readonly holding = new Set<string>();
  private readonly slots: Array<() => void> = [];
  private sending = 0;

  constructor(private readonly deps: DispatcherDependencies) {}

  /** Notes that the merchant has a held delivery (an out-of-order fault), to be let go after its next attempt. */
  noteHeld(publicKey: string): void {
    this.holding.add(publicKey);
  }

  /**
   * Makes the delivery's attempt if it is due now on its merchant's clock;
   * does nothing for one that is not scheduled, not yet due, or under way.
   * @throws StoreUnavailableError (rejects) when the attempt cannot be stored: the delivery stays due
   */
  async attempt(id: string): Promise<void> {
    if (!this.dueDelivery(id) || this.inFlight.has(id)) return;
    this.inFlight.add(id);
    const { store } = this.deps;
    try {
      // A receiver is never told of a change the log does not hold yet: a
      // crash would take the change back after its event went out. A change
      // the disk refused is taken back, and so is its delivery.
      await store.commit();
      // The send slot first, then the claim: a claim's lease runs while it is held, never while it waits for a slot.
      await this.slot();
      let claimed = false;
      try {
        // One replica makes each attempt: the one whose claim is in force (always this one where one process
        // holds the store). Another's claim runs out if it dies before recording, and the attempt is tried
        // again then (docs/decisions.md#d84-shared-store).
        const claim = await store.claim(id);
        if (!claim.claimed) {
          this.retryAfter(id, claim.untilMs);
          return;
        }
        claimed = true;
        // What the claim's last holder recorded before letting go is read before the delivery is judged due.
        await store.refresh();
        const due = this.dueDelivery(id);
        if (!due) return;
        // The older page: later notifications wait behind one that is failing, and go once it is accepted.
        const blocker = due.schedule === 'legacy' ? this.failingBefore(due) : undefined;
        if (blocker) {
          if (blocker.dueAt !== due.dueAt) {
            await store.transaction(() => {
              const current = store.delivery(id);
              if (current && current.attempts.length === due.attempts.length) store.putDelivery({ ...current, dueAt: blocker.dueAt! });
            });
          }
          return;
        }
        await this.send(due);
      } finally {
        this.sending -= 1;
        this.slots.shift()?.();
        if (claimed) await store.unclaim(id);
      }
    } finally {
      this.inFlight.delete(id);
    }
  }

  // Tries an attempt again once another replica's claim on it has run out.
  private retryAfter(id: string, untilMs: number): void {
    const timer = setTimeout(() => void this.attempt(id).catch(() => undefined), Math.max(0, untilMs - Date.now()) + 50);
    timer.unref();
  }

  private async send(due: Delivery): Promise<void> {
    const { store, clocks } = this.deps;
    const at = clocks.now(due.publicKey);
    const endpoint = this.deps.outbox.endpoint(due.publicKey);
    const rules = SCHEDULES[due.schedule];
    const url = endpoint?.url ?? '';
    const fault = due.fault;
    let attempt: DeliveryAttempt;
    if (!endpoint) {
      attempt = unsentAttempt(at, due.ackReference, NO_URL_ANY_MORE);
    } else if (fault?.kind === 'receiver-error' && due.attempts.length < (fault.attempts ?? DEFAULT_RECEIVER_ERRORS)) {
      const status = fault.status ?? 500;
      const attempts = fault.attempts ?? DEFAULT_RECEIVER_ERRORS;
      const reason = `HTTP ${status}, answered by the sandbox in the receiver's place (fault receiver-error, attempt ${due.attempts.length + 1} of ${attempts}); nothing was sent`;
      attempt = unsentAttempt(at, due.ackReference, reason, { url, status });
    } else {
      const result = await sendNotification(url, notificationBody(due), { ackReference: due.ackReference, timeoutMs: rules.timeoutMs, acknowledgement: rules.acknowledgement });
      attempt = attemptOf(at, url, due.ackReference, result);
    }
    const recorded = await store.transaction(() => {
      // A reset may have removed it meanwhile, or (on a shared store) another replica recorded this attempt: nothing is left to record.
      const current = store.delivery(due.id);
      if (!current || current.attempts.length !== due.attempts.length) return undefined;
      const attempts = [...current.attempts, attempt];
      const nextAt = attempt.acknowledged ? undefined : nextAttemptAt(current.schedule, attempts.length, Date.parse(attempts[0]!.at), Date.parse(at));
      const state = attempt.acknowledged ? 'delivered' : nextAt === undefined ? 'undelivered' : 'scheduled';
      const next: Delivery = { ...current, attempts, state, dueAt: nextAt === undefined ? undefined : new Date(nextAt).toISOString(), updatedAt: at };
      store.putDelivery(next);
      this.release(next, at);
      return next;
    });
    if (recorded) this.deps.onAttempt?.(recorded, attempt);
  }

  // Deliveries that waited for this one go now: held ones made before it
  // (an out-of-order fault: they arrive after a later event), and, on the
  // older page's schedule, those that queued behind it once it is accepted.
  private release(sent: Delivery, at: string): void {
    const { store } = this.deps;
    const unqueue = sent.state === 'delivered' && sent.schedule === 'legacy';
    if (!unqueue && !this.holding.has(sent.publicKey)) return;
    let stillHeld = false;
    for (const other of store.deliveries(sent.publicKey)) {
      const held = other.state === 'held' && other.sequence < sent.sequence;
      const queued = unqueue && other.schedule === 'legacy' && other.state === 'scheduled' && other.sequence > sent.sequence && other.dueAt !== undefined && other.dueAt > at;
      if (held || queued) store.putDelivery({ ...other, state: 'scheduled', dueAt: at, updatedAt: at });
      else if (other.state === 'held') stillHeld = true;
    }
    if (!stillHeld) this.holding.delete(sent.publicKey);
  }

  private dueDelivery(id: string): Delivery | undefined {
    const delivery = this.deps.store.delivery(id);
    // A go-live run makes its deliveries' one attempt itself: the dispatcher never sends or retries them (docs/decisions.md#d87-go-live-report).
    if (!delivery || delivery.run !== undefined || delivery.state !== 'scheduled' || delivery.dueAt === undefined) return undefined;
    return Date.parse(delivery.dueAt) <= this.deps.clocks.nowMs(delivery.publicKey) ? delivery : undefined;
  }

  private failingBefore(delivery: Delivery): Delivery | undefined {
    return this.deps.store.deliveries(delivery.publicKey).find(
      (other) => other.sequence < delivery.sequence && other.state === 'scheduled' && other.attempts.length > 0 && other.schedule === 'legacy',
    );
  }

  private slot(): Promise<void> {
    if (this.sending < (this.deps.maxInFlight ?? 16)) {
      this.sending += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.slots.push(() => {
      this.sending += 1;
      resolve();
    }));
  }
}
