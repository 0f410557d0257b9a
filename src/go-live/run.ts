import { randomBytes } from 'node:crypto';
import type { MerchantClocks } from '../clock/clocks.js';
import { paymentWrite } from '../domain/answer.js';
import { putWrites } from '../domain/commit.js';
import { spaceForm } from '../domain/notification-events.js';
import { GO_LIVE_RUN_STEPS, type GoLiveRun, type GoLiveRunStepName } from '../model/go-live.js';
import type { Delivery, DeliveryAttempt, NotificationEvent } from '../model/notifications.js';
import { attemptOf, NO_URL_ANY_MORE, notificationBody, unsentAttempt } from '../notifications/dispatcher.js';
import type { NotificationOutbox } from '../notifications/outbox.js';
import { SCHEDULES } from '../notifications/retry-schedule.js';
import { sendNotification } from '../notifications/send.js';
import type { Store } from '../store/store.js';
import { runPayments, runReferences, STEP_PLAN, stepData, stepEventId } from './run-steps.js';
import { runView } from './run-view.js';

/** What the runs need. */
export interface GoLiveRunDependencies {
  store: Store;
  clocks: MerchantClocks;
  outbox: NotificationOutbox;
  /** sends one attempt (default: sendNotification, over HTTP) */
  send?: typeof sendNotification;
  /** told of every attempt once it is stored: the request log's line */
  onAttempt?: (delivery: Delivery, attempt: DeliveryAttempt) => void;
  /** real time, epoch ms (a test may pass its own) */
  realNow?: () => number;
}

/** Why a run cannot start: the merchant has no notification URL, or a run of it is still running. */
export class GoLiveRunConflict extends Error {}

/**
 * Real milliseconds after its start by which a run's four steps are sent, or
 * never will be: four attempts of 5 s at most and their writes, with room to
 * spare. A replica that is not sending a run, or the sandbox restarted,
 * judges its unsent steps cut off after that.
 */
export const SENDING_BOUND_MS = 60_000;

/**
 * The go-live runs (POST /__sandbox/go-live/{publicKey}/runs;
 * docs/decisions.md#d87-go-live-report): a run makes its two payments, then
 * sends its four steps to the merchant's notification URL one after the
 * other, one attempt each, awaiting each answer, after the request that
 * started it was answered. What it sends and what came back is stored
 * (payments marked `goLiveRun`, deliveries marked `run`), and its view is
 * computed from the store alone (run-view.ts): the wait for the merchant's
 * status queries is a question of its clock, not of a process waiting, so
 * an advance of the clock ends it at once.
 */
export class GoLiveRuns {
  // The runs this process is sending, by `publicKey id`.
  private readonly sending = new Map<string, Promise<void>>();
  private stopped = false;

  constructor(private readonly deps: GoLiveRunDependencies) {}

  /**
   * Starts a run of the merchant: its two payments are stored, then its
   * steps are sent in the background.
   * @returns the run's id, `run_` and 12 hex digits
   * @throws GoLiveRunConflict (rejects) when the merchant has no notification URL or a run of it is still running;
   *   StoreUnavailableError when the payments cannot be stored
   */
  async start(publicKey: string): Promise<string> {
    const { store, clocks, outbox } = this.deps;
    const id = runId(this.realNow());
    await store.transaction(() => {
      if (!outbox.endpoint(publicKey)) throw new GoLiveRunConflict(`merchant ${publicKey} has no notification URL: set one with PUT /__sandbox/webhooks/${publicKey}`);
      const running = this.latest(publicKey);
      if (running?.status === 'running') {
        throw new GoLiveRunConflict(`go-live run ${running.id} of merchant ${publicKey} is still running: follow it with GET /__sandbox/go-live/${publicKey}/runs/${running.id}`);
      }
      const { paid, failed } = runPayments(store.merchant(publicKey)!, id, clocks.now(publicKey));
      // Stored without the outbox: the run's payments cause no notification but its steps.
      putWrites(store, [paymentWrite(paid), paymentWrite(failed)]);
    });
    const key = `${publicKey} ${id}`;
    // A store that stops taking writes ends the run: the steps it did not send show as cut off (run-view.ts).
    const sent = this.sendSteps(publicKey, id).catch(() => undefined).finally(() => this.sending.delete(key));
    this.sending.set(key, sent);
    return id;
  }

  /** The run as GET /__sandbox/go-live/{publicKey}/runs/{id} answers it, or undefined when the merchant has no such run. */
  view(publicKey: string, id: string): GoLiveRun | undefined {
    const { store, clocks } = this.deps;
    const paid = store.payment(publicKey, runReferences(id).paid);
    if (!paid || paid.goLiveRun !== id) return undefined;
    const deliveries = store.deliveries(publicKey).filter((delivery) => delivery.run?.id === id);
    return runView({ id, publicKey, paid, deliveries, nowMs: clocks.nowMs(publicKey), sending: this.mayBeSending(publicKey, id) });
  }

  /** Sends no further step and waits for the attempts under way to be recorded: the runs' steps not sent are cut off. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.sending.values()]);
  }

  // The merchant's latest run: runs of a merchant never overlap, so it is the only one that may be running.
  private latest(publicKey: string): GoLiveRun | undefined {
    const payments = this.deps.store.payments(publicKey);
    for (let at = payments.length - 1; at >= 0; at -= 1) {
      const id = payments[at]!.goLiveRun;
      if (id !== undefined) return this.view(publicKey, id);
    }
    return undefined;
  }

  // Sending here, or (another replica, a sandbox restarted) started recently enough that some process may be.
  private mayBeSending(publicKey: string, id: string): boolean {
    return this.sending.has(`${publicKey} ${id}`) || this.realNow() - startedMs(id) < SENDING_BOUND_MS;
  }

  private realNow(): number {
    return (this.deps.realNow ?? Date.now)();
  }

  // The steps in order, each awaited; a reset that removed the run's payments ends it.
  private async sendSteps(publicKey: string, id: string): Promise<void> {
    const { store, clocks } = this.deps;
    const references = runReferences(id);
    let success: Delivery | undefined;
    for (const step of GO_LIVE_RUN_STEPS) {
      const paid = store.payment(publicKey, references.paid);
      const failed = store.payment(publicKey, references.failed);
      if (this.stopped || !paid || !failed) return;
      // The duplicate is the success step's event again, the same eventId, as a copy of its delivery.
      const event: NotificationEvent = step === 'duplicate'
        ? success!.event
        : { eventType: STEP_PLAN[step].eventType, eventDate: spaceForm(clocks.now(publicKey)), eventId: stepEventId(publicKey, id, step), data: stepData(step, { paid, failed }) };
      const sent = await this.sendStep(publicKey, id, step, references[STEP_PLAN[step].payment], event, step === 'duplicate' ? success!.id : undefined);
      if (!sent) return;
      if (step === 'success') success = sent;
    }
  }

  // One step: its delivery stored (due now, so that a status query made while it is sent is recorded on it), one
  // attempt, the attempt stored with the delivery's final state. Undefined when a reset removed it meanwhile.
  private async sendStep(publicKey: string, id: string, step: GoLiveRunStepName, paymentReference: string, event: NotificationEvent, copyOf?: string): Promise<Delivery | undefined> {
    const { store, clocks, outbox } = this.deps;
    const made = await store.transaction(() => {
      if (store.payment(publicKey, paymentReference)?.goLiveRun !== id) return undefined;
      const delivery = outbox.runDelivery(publicKey, paymentReference, event, { id, step }, copyOf);
      store.putDelivery(delivery);
      return delivery;
    });
    if (!made) return undefined;
    const at = clocks.now(publicKey);
    const endpoint = outbox.endpoint(publicKey);
    let attempt: DeliveryAttempt;
    if (endpoint) {
      // Judged by the current page's rule (5 s, the ackReference echoed), whatever the merchant's schedule.
      const { timeoutMs, acknowledgement } = SCHEDULES.current;
      const send = this.deps.send ?? sendNotification;
      attempt = attemptOf(at, endpoint.url, made.ackReference, await send(endpoint.url, notificationBody(made), { ackReference: made.ackReference, timeoutMs, acknowledgement }));
    } else {
      attempt = unsentAttempt(at, made.ackReference, NO_URL_ANY_MORE);
    }
    const recorded = await store.transaction(() => {
      const current = store.delivery(made.id);
      if (!current || current.attempts.length > 0) return undefined;
      // Sent once, never retried: delivered or undelivered after its one attempt.
      const next: Delivery = { ...current, attempts: [attempt], state: attempt.acknowledged ? 'delivered' : 'undelivered', dueAt: undefined, updatedAt: at };
      store.putDelivery(next);
      return next;
    });
    if (recorded) this.deps.onAttempt?.(recorded, attempt);
    return recorded;
  }
}

/**
 * A new run's id: `run_`, the real time it started in seconds since the epoch
 * (8 hex digits), and 4 random hex digits. The time tells any replica
 * whether the run may still be sending (SENDING_BOUND_MS).
 */
export function runId(realMs: number): string {
  return `run_${Math.floor(realMs / 1000).toString(16).padStart(8, '0')}${randomBytes(2).toString('hex')}`;
}

/** The real time (epoch ms) a run started, from its id. */
export const startedMs = (id: string): number => Number.parseInt(id.slice(4, 12), 16) * 1000;
