import TinyQueue from 'tinyqueue';
import type { MerchantClocks } from '../clock/clocks.js';
import { paymentWrite } from '../domain/answer.js';
import { putWrites } from '../domain/commit.js';
import { settleDue } from '../domain/payments.js';
import { chargeDue, chargeReferenceOf } from '../domain/subscriptions.js';
import type { Delivery } from '../model/notifications.js';
import type { Payment } from '../model/records.js';
import type { Dispatcher } from '../notifications/dispatcher.js';
import type { NotificationOutbox } from '../notifications/outbox.js';
import type { ScenarioEngine } from '../scenarios/engine.js';
import { CLAIM_LEASE_MS } from '../store/lease.js';
import type { Change, Store } from '../store/store.js';

/**
 * Something due at a time on its merchant's clock: a pending payment's
 * settlement or expiry, an uncaptured authorisation's expiry, an active
 * subscription's next charge, or a delivery's attempt.
 */
export interface DueItem {
  /** epoch ms on the merchant's clock */
  atMs: number;
  kind: 'payment' | 'charge' | 'delivery';
  /** the paymentReference (of the subscription's first payment, for a charge), or the delivery's id */
  key: string;
}

/**
 * An item on a merchant's clock as the control API shows it
 * (control-api.yaml, DueItem): what is due (GET /clock) and what an advance
 * carried out, in the order it did (POST /clock/advance, `fired`).
 */
export interface DueView {
  /** ISO 8601 UTC on the merchant's clock */
  at: string;
  kind: 'settlement' | 'expiry' | 'charge' | 'delivery';
  /** the payment settled or expired, the charge made, or the payment of the delivery's event */
  paymentReference: string;
  /** the delivery, for a delivery's attempt */
  deliveryId?: string;
}

/** What the agenda needs. */
export interface AgendaDependencies {
  store: Store;
  clocks: MerchantClocks;
  engine: ScenarioEngine;
  outbox: NotificationOutbox;
  dispatcher: Dispatcher;
  /** told of a failure to carry out something due (it is tried again a second later) */
  onError?: (error: unknown) => void;
}

// setTimeout's longest wait; a later item is looked at again then.
const LONGEST_WAIT_MS = 2 ** 31 - 1;
const RETRY_AFTER_MS = 1_000;


/**
 * What falls due, and when (README, "Time"): settlements a rule promised,
 * expiries of pending payments and of uncaptured authorisations, subscriptions' charges, and delivery attempts, each at a time on
 * its merchant's clock. One timer waits for the earliest in real time; when
 * a merchant's clock is advanced, everything of that merchant that falls
 * due is carried out in time order, the clock stepping to each item's time
 * first. What is due is read from the store (payments' `due`, deliveries'
 * `dueAt`), so it survives a restart; an entry the store no longer agrees
 * with is passed over.
 */
export class Agenda {
  private readonly queues = new Map<string, TinyQueue<DueItem>>();
  private readonly advancing = new Map<string, Promise<unknown>>();
  private readonly running = new Set<Promise<unknown>>();
  // Merchants whose clock another replica moved, and until when (real epoch ms) their items are left to it.
  private readonly leftToReplica = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  private stopped = false;
  private unwatch: (() => void) | undefined;

  constructor(private readonly deps: AgendaDependencies) {}

  /** Reads what is due from the store, watches its changes, and starts the timer. */
  start(): void {
    const { store } = this.deps;
    for (const merchant of store.merchants()) {
      for (const payment of store.payments(merchant.publicKey)) this.notePayment(payment);
    }
    for (const delivery of store.deliveries()) this.noteDelivery(delivery);
    this.unwatch = store.watch((change, fromReplica) => this.note(change, fromReplica));
    this.wake();
  }

  /**
   * What is due for the merchant and not yet carried out, earliest first
   * (entries the store no longer agrees with left out).
   * @param only keeps the items it accepts, asked before anything else: a
   *   payment's story wants its own few of a merchant's 100,000, and sorting
   *   and checking them all took most of a second
   */
  pending(publicKey: string, only?: (item: DueItem) => boolean): DueItem[] {
    const queue = this.queues.get(publicKey);
    if (!queue) return [];
    const items = only ? queue.data.filter(only) : [...queue.data];
    return items.sort(byTime).filter((item) => this.stillDue(publicKey, item));
  }

  /**
   * Moves the merchant's clock to `targetMs` (epoch ms; a time before its
   * now leaves it where it is), carrying out in time order everything of
   * that merchant due by then: the clock is at each item's time while it is
   * carried out. A delivery's attempt is awaited, so a receiver that takes 5 s takes 5 s here.
   * @param askedAtMs the real time (epoch ms) `targetMs` was reckoned from: the clock ends exactly as far ahead as asked, however long the advance takes
   * @returns what was carried out
   * @throws StoreUnavailableError when the store cannot write (what was carried out before stays)
   */
  advance(publicKey: string, targetMs: number, askedAtMs = Date.now()): Promise<DueView[]> {
    const before = this.advancing.get(publicKey) ?? Promise.resolve();
    const run = before.catch(() => undefined).then(() => this.advanceNow(publicKey, targetMs, askedAtMs));
    this.advancing.set(publicKey, run);
    void run.catch(() => undefined).finally(() => {
      if (this.advancing.get(publicKey) === run) this.advancing.delete(publicKey);
      this.wake();
    });
    return run;
  }

  /** Stops the timer and waits for what is under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unwatch?.();
    if (this.timer) clearTimeout(this.timer);
    await Promise.allSettled([...this.running, ...this.advancing.values()]);
  }

  private async advanceNow(publicKey: string, targetMs: number, askedAtMs: number): Promise<DueView[]> {
    const { clocks, store } = this.deps;
    // What the timer started for this merchant ends first: the items are carried out one at a time, in order.
    await Promise.allSettled([...this.running]);
    const fired: DueView[] = [];
    const queue = this.queues.get(publicKey);
    while (queue && queue.length > 0 && queue.peek()!.atMs <= targetMs) {
      const item = queue.pop()!;
      if (!this.stillDue(publicKey, item)) continue;
      await store.transaction(() => clocks.moveTo(publicKey, item.atMs));
      const done = await this.carryOut(publicKey, item);
      if (done) fired.push(done);
    }
    await store.transaction(() => clocks.moveTo(publicKey, targetMs, askedAtMs));
    return fired;
  }

  private note(change: Change, fromReplica = false): void {
    if (change.kind === 'payment') {
      this.notePayment(change.payment);
      for (const delivery of change.deliveries ?? []) this.noteDelivery(delivery);
    } else if (change.kind === 'delivery') {
      this.noteDelivery(change.delivery);
    } else if (change.kind === 'clock') {
      // Another replica stepping this clock is advancing it: what falls due is its to carry out, and to list. If it dies
      // mid-advance, the rest is carried out here once a claim's lease has run out since its last step.
      if (fromReplica) this.leftToReplica.set(change.clock.publicKey, Date.now() + CLAIM_LEASE_MS);
      // The merchant's items are now due earlier in real time.
      this.wake();
    } else if (change.kind === 'replace') {
      // A state put whole (a snapshot loaded, a fixture load taken back): what it holds falls due as it says, and nothing it replaced does.
      if (change.publicKey === undefined) this.queues.clear();
      else this.queues.delete(change.publicKey);
      for (const payment of change.records.payments) this.notePayment(payment);
      for (const delivery of change.records.deliveries) this.noteDelivery(delivery);
      this.wake();
    }
  }

  private notePayment(payment: Payment): void {
    // The state machine keeps `due` only while something falls due (a PENDING payment, an uncaptured authorisation).
    if (payment.due) this.push(payment.publicKey, { atMs: Date.parse(payment.due.at), kind: 'payment', key: payment.paymentReference });
    const next = payment.subscription?.status === 'ACTIVE' ? payment.subscription.nextChargeAt : undefined;
    if (next !== undefined) this.push(payment.publicKey, { atMs: Date.parse(next), kind: 'charge', key: payment.paymentReference });
  }

  private noteDelivery(delivery: Delivery): void {
    // A go-live run sends its own deliveries, once each: nothing of them is ever due here (docs/decisions.md#d87-go-live-report).
    if (delivery.run !== undefined) return;
    if (delivery.state === 'held') this.deps.dispatcher.noteHeld(delivery.publicKey);
    if (delivery.state === 'scheduled' && delivery.dueAt) this.push(delivery.publicKey, { atMs: Date.parse(delivery.dueAt), kind: 'delivery', key: delivery.id });
  }

  private push(publicKey: string, item: DueItem): void {
    let queue = this.queues.get(publicKey);
    if (!queue) this.queues.set(publicKey, (queue = new TinyQueue<DueItem>([], byTime)));
    queue.push(item);
    const realMs = this.deps.clocks.realTimeOf(publicKey, item.atMs);
    if (realMs < this.timerAt) this.arm(realMs);
  }

  private stillDue(publicKey: string, item: DueItem): boolean {
    if (item.kind === 'payment') {
      const payment = this.deps.store.payment(publicKey, item.key);
      return payment?.due !== undefined && Date.parse(payment.due.at) === item.atMs;
    }
    if (item.kind === 'charge') {
      const subscription = this.deps.store.payment(publicKey, item.key)?.subscription;
      return subscription?.status === 'ACTIVE' && subscription.nextChargeAt !== undefined && Date.parse(subscription.nextChargeAt) === item.atMs;
    }
    const delivery = this.deps.store.delivery(item.key);
    return delivery?.state === 'scheduled' && delivery.dueAt !== undefined && Date.parse(delivery.dueAt) === item.atMs;
  }

  private async carryOut(publicKey: string, item: DueItem): Promise<DueView | undefined> {
    const { store, clocks, engine, outbox, dispatcher } = this.deps;
    const at = clocks.now(publicKey);
    if (item.kind === 'delivery') {
      const delivery = store.delivery(item.key);
      await dispatcher.attempt(item.key);
      return delivery && { at, kind: 'delivery', paymentReference: delivery.paymentReference, deliveryId: delivery.id };
    }
    // Read and carried out in one unit: on a shared store another replica may have carried it out already, and then it is no longer due.
    return store.transaction((): DueView | undefined => {
      if (!this.stillDue(publicKey, item)) return undefined;
      const payment = store.payment(publicKey, item.key);
      if (item.kind === 'charge') {
        const merchant = store.merchant(publicKey);
        if (!payment?.subscription || !merchant) return undefined;
        const reference = chargeReferenceOf(payment.paymentReference, payment.subscription.charges + 1);
        const writes = chargeDue(engine, merchant, payment, store.payment(publicKey, reference), at);
        if (writes.length === 0) return undefined;
        putWrites(store, writes, outbox);
        return { at, kind: 'charge', paymentReference: reference };
      }
      if (!payment?.due) return undefined;
      const kind = payment.due.event === 'expire' ? 'expiry' : 'settlement';
      const settled = settleDue(engine, payment, at);
      if (!settled || settled.refused) return undefined;
      putWrites(store, [paymentWrite(settled.payment, payment)], outbox);
      return { at, kind, paymentReference: payment.paymentReference };
    });
  }

  private arm(realMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = realMs;
    this.timer = setTimeout(() => this.tick(), Math.min(LONGEST_WAIT_MS, Math.max(0, realMs - Date.now())));
    // The sandbox's server keeps the process alive; a timer alone must not (an in-process sandbox left open).
    this.timer.unref();
  }

  // Finds the earliest item in real time across merchants and waits for it.
  private wake(): void {
    if (this.stopped) return;
    let earliest = Number.POSITIVE_INFINITY;
    for (const [publicKey, queue] of this.queues) {
      const first = queue.peek();
      if (!first) continue;
      earliest = Math.min(earliest, Math.max(this.deps.clocks.realTimeOf(publicKey, first.atMs), this.leftUntil(publicKey)));
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    if (earliest !== Number.POSITIVE_INFINITY) this.arm(earliest);
  }

  // Until when (real epoch ms) the merchant's items are left to the replica that moved its clock; 0 when they are not.
  private leftUntil(publicKey: string): number {
    const until = this.leftToReplica.get(publicKey) ?? 0;
    if (until !== 0 && until <= Date.now()) this.leftToReplica.delete(publicKey);
    return until;
  }

  // Carries out what is due now for every merchant whose clock is not being advanced, here or by another replica.
  private tick(): void {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    for (const [publicKey, queue] of this.queues) {
      if (this.advancing.has(publicKey) || this.leftUntil(publicKey) > Date.now()) continue;
      const now = this.deps.clocks.nowMs(publicKey);
      while (queue.length > 0 && queue.peek()!.atMs <= now) {
        const item = queue.pop()!;
        if (!this.stillDue(publicKey, item)) continue;
        const run = this.carryOut(publicKey, item).catch((error: unknown) => {
          this.deps.onError?.(error);
          // Tried again shortly: the store may take writes again by then.
          setTimeout(() => this.push(publicKey, { ...item }), RETRY_AFTER_MS).unref();
        });
        this.running.add(run);
        void run.finally(() => this.running.delete(run));
      }
      if (queue.length === 0) this.queues.delete(publicKey);
    }
    this.wake();
  }
}

const byTime = (a: DueItem, b: DueItem): number => a.atMs - b.atMs;
