import type { Agenda, DueItem, DueView } from '../agenda/agenda.js';
import type { MerchantClocks } from '../clock/clocks.js';
import { chargeReferenceOf } from '../domain/subscriptions.js';
import { ApiError, inputError } from '../errors.js';
import type { GoLiveRuns } from '../go-live/run.js';
import { durationMs, durationOf } from '../model/durations.js';
import type { Delivery, DeliverySchedule, NotificationEventType } from '../model/notifications.js';
import type { NotificationFaultRequest, NotificationFaults } from '../notifications/faults.js';
import type { NotificationOutbox } from '../notifications/outbox.js';
import { deliveriesMatching, webhookEndpoint, type DeliveryQuery } from '../notifications/webhooks.js';
import type { Store } from '../store/store.js';
import { json, noContent, queryText, type ControlInput, type ControlRun } from './operation.js';
import { cursorSequence, fill, pageAnswer, pageRequest, sequenceCursor } from './paging.js';
import { redactText } from '../redaction/redact.js';
import { shown } from './views.js';

/** What the control API's notification and clock runs need. */
export interface NotificationControls {
  store: Store;
  clocks: MerchantClocks;
  agenda: Agenda;
  outbox: NotificationOutbox;
  faults: NotificationFaults;
  /** the go-live runs that test the merchants' notification receivers (docs/decisions.md#d87-go-live-report) */
  goLiveRuns: GoLiveRuns;
}

/** The list's name in its cursors and messages. */
const DELIVERIES = 'webhooks/deliveries';

// The runs of the control API's notifications and clocks (openapi/control-api.yaml, tags Notifications and
// Clocks; README, "Notifications" and "Time"), by operationId. The document has validated each request before it comes here.

const filterOf = (input: ControlInput): DeliveryQuery => ({
  publicKey: queryText(input, 'publicKey'), paymentReference: queryText(input, 'paymentReference'), eventType: queryText(input, 'eventType'), state: queryText(input, 'state'),
});

const oneDelivery = (store: Store, id: string): Delivery => {
  const delivery = store.delivery(id);
  if (!delivery) throw new ApiError(404, { message: `No delivery ${id}`, error: 'NOT_FOUND' });
  return delivery;
};

// A merchant's notification URL, its events and schedule, and its faults (control-api.yaml, WebhookView).
const webhookView = ({ outbox, faults }: NotificationControls, publicKey: string) => {
  const endpoint = outbox.endpoint(publicKey);
  return {
    publicKey,
    url: endpoint?.url ?? null,
    events: endpoint?.events ?? null,
    schedule: endpoint?.schedule ?? 'current',
    source: endpoint?.source ?? 'none',
    faults: faults.list(publicKey),
  };
};

/** GET /webhooks/deliveries: newest first, as the journal (what just happened is what a tester looks for), bounded in bytes as every list (paging.ts, MAX_PAGE_BYTES). */
export const listDeliveries: ControlRun = (input, { notifications: { store } }) => {
  const { limit, cursor } = pageRequest(input.query);
  const before = cursor === undefined ? Number.POSITIVE_INFINITY : cursorSequence(DELIVERIES, cursor);
  const matching = deliveriesMatching(store, filterOf(input));
  const written = fill(newestBefore(matching, before), limit, (delivery) => JSON.stringify(shown(delivery)));
  const next = written.more ? sequenceCursor(DELIVERIES, written.rows.at(-1)!.sequence) : undefined;
  return pageAnswer({ total: matching.length, limit, next }, 'deliveries', written.texts);
};

/** GET /webhooks/deliveries/count: the deliveries matching, by state. */
export const countDeliveries: ControlRun = (input, { notifications: { store } }) => {
  const matching = deliveriesMatching(store, filterOf(input));
  const byState: Record<string, number> = { scheduled: 0, held: 0, delivered: 0, undelivered: 0, withheld: 0 };
  for (const delivery of matching) byState[delivery.state] = (byState[delivery.state] ?? 0) + 1;
  return json({ count: matching.length, byState });
};

/** GET /webhooks/deliveries/{id}. */
export const getDelivery: ControlRun = (input, { notifications: { store } }) => json(shown(oneDelivery(store, input.params.id!)));

/** POST /webhooks/deliveries/{id}/redeliver: a copy of the delivery, sent anew. */
export const redeliverNotification: ControlRun = async (input, { notifications: { store, outbox } }) => {
  const copy = await store.transaction(() => {
    const made = refusedAsInput(() => outbox.redeliver(oneDelivery(store, input.params.id!)));
    store.putDelivery(made);
    return made;
  });
  return json(shown(copy), 201);
};

/** GET /webhooks/{publicKey}. */
export const getWebhook: ControlRun = (input, { notifications }) => json(webhookView(notifications, input.params.publicKey!));

/** PUT /webhooks/{publicKey}: the merchant's notification URL, events and schedule. */
export const setWebhook: ControlRun = async (input, { notifications }) => {
  const publicKey = input.params.publicKey!;
  const { url, events, schedule } = input.body as { url: string; events?: NotificationEventType[]; schedule?: DeliverySchedule };
  const webhook = refusedAsInput(() => webhookEndpoint(publicKey, url, { events, schedule }, new Date().toISOString()));
  await notifications.store.transaction(() => notifications.store.putWebhook(publicKey, webhook));
  return json(webhookView(notifications, publicKey));
};

/** DELETE /webhooks/{publicKey}. */
export const deleteWebhook: ControlRun = async (input, { notifications: { store } }) => {
  const publicKey = input.params.publicKey!;
  await store.transaction(() => {
    if (store.webhook(publicKey)) store.putWebhook(publicKey, null);
  });
  return noContent();
};

/** POST /webhooks/{publicKey}/faults. */
export const createNotificationFault: ControlRun = async (input, { notifications: { store, faults } }) => {
  const request = input.body as NotificationFaultRequest;
  if (request.delay !== undefined) refusedAsInput(() => durationMs(request.delay!));
  return json(await store.transaction(() => faults.add(input.params.publicKey!, request)), 201);
};

/** DELETE /webhooks/{publicKey}/faults. */
export const deleteNotificationFaults: ControlRun = async (input, { notifications: { store, faults } }) => {
  await store.transaction(() => faults.clear(input.params.publicKey!));
  return noContent();
};

/** POST /webhooks/{publicKey}/trigger: an event of a stored payment, sent now. */
export const triggerNotification: ControlRun = async (input, { notifications: { store, outbox } }) => {
  const publicKey = input.params.publicKey!;
  const { eventType, paymentReference } = input.body as { eventType: NotificationEventType; paymentReference: string };
  const deliveries = await store.transaction(() => {
    const payment = store.payment(publicKey, paymentReference);
    if (!payment) throw new ApiError(404, { message: `No payment with paymentReference ${paymentReference} for merchant ${publicKey}`, error: 'NOT_FOUND' });
    const made = refusedAsInput(() => outbox.trigger(payment, eventType));
    for (const delivery of made) store.putDelivery(delivery);
    return made;
  });
  return json({ deliveries: deliveries.map(shown) }, 201);
};

/** GET /clock/{publicKey}. */
export const getClock: ControlRun = (input, { notifications }) => json(clockViewOf(notifications, input.params.publicKey!));

/** POST /clock/{publicKey}/advance: by a duration or to a time, carrying out what falls due on the way. */
export const advanceClock: ControlRun = async (input, { notifications }) => {
  const { clocks, agenda } = notifications;
  const publicKey = input.params.publicKey!;
  const { by, to } = input.body as { by?: string; to?: string };
  if ((by === undefined) === (to === undefined)) throw inputError('give exactly one of by (an ISO 8601 duration) and to (an ISO 8601 time)');
  const askedAt = Date.now();
  const now = askedAt + clocks.offsetMs(publicKey);
  const target = by !== undefined ? now + refusedAsInput(() => durationMs(by)) : Date.parse(to!);
  if (Number.isNaN(target)) throw inputError(`to must be an ISO 8601 time, not ${JSON.stringify(to).slice(0, 100)}`);
  if (target < now) throw inputError(`to (${to}) is before the merchant's clock (${new Date(now).toISOString()}): a clock only goes forward`);
  const fired: DueView[] = await agenda.advance(publicKey, target, askedAt);
  return json({ ...clockViewOf(notifications, publicKey), fired });
};

/** A merchant's clock as GET /__sandbox/clock/{publicKey} answers it (control-api.yaml, ClockView), also shown by GET /__sandbox/overview. */
export interface ClockView {
  publicKey: string;
  /** ISO 8601 UTC: the merchant's time */
  now: string;
  /** milliseconds the clock runs ahead of real time */
  offsetMs: number;
  /** the same, as an ISO 8601 duration */
  offset: string;
  /** what is due for the merchant, earliest first: the first CLOCK_PENDING_LIMIT */
  pending: DueView[];
  /** how many items are due in all (`pending` may show fewer) */
  pendingTotal: number;
}

/**
 * The most due items a clock view lists: a merchant with 100,000 pending
 * payments has as many expiries, and listing them all made every clock view
 * and the overview megabytes long (docs/decisions.md#d82-list-filters).
 */
export const CLOCK_PENDING_LIMIT = 100;

/** The clock view of one merchant (README, "Time"). */
export function clockViewOf(deps: Pick<NotificationControls, 'store' | 'clocks' | 'agenda'>, publicKey: string): ClockView {
  const { store, clocks, agenda } = deps;
  const pending = agenda.pending(publicKey);
  return {
    publicKey,
    now: clocks.now(publicKey),
    offsetMs: clocks.offsetMs(publicKey),
    offset: durationOf(clocks.offsetMs(publicKey)),
    pending: pending.slice(0, CLOCK_PENDING_LIMIT).map((item) => dueView(store, publicKey, item)),
    pendingTotal: pending.length,
  };
}

/**
 * An agenda item as the control API shows it (openapi/control-api.yaml,
 * DueItem): its time (ISO 8601 UTC on the merchant's clock), its kind, the
 * payment it is of (of a charge, the charge's reference to come), and the
 * delivery of a delivery's attempt.
 */
export function dueView(store: Store, publicKey: string, item: DueItem): DueView {
  const at = new Date(item.atMs).toISOString();
  if (item.kind === 'delivery') {
    const delivery = store.delivery(item.key);
    return { at, kind: 'delivery', paymentReference: redactText(delivery?.paymentReference ?? ''), deliveryId: item.key };
  }
  const payment = store.payment(publicKey, item.key);
  // A paymentReference is shown by the one redaction rule (docs/decisions.md#d86-one-redaction-rule).
  if (item.kind === 'charge') return { at, kind: 'charge', paymentReference: redactText(chargeReferenceOf(item.key, (payment?.subscription?.charges ?? 0) + 1)) };
  return { at, kind: payment?.due?.event === 'settle' ? 'settlement' : 'expiry', paymentReference: redactText(item.key) };
}

// What the domain refuses with a RangeError is the client's mistake: 400 INPUT, with its sentence.
function refusedAsInput<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof RangeError) throw inputError(error.message);
    throw error;
  }
}

// The deliveries of `list` (oldest first) with a sequence below `before`, newest first.
function* newestBefore(list: readonly Delivery[], before: number): Generator<Delivery> {
  for (let at = list.length - 1; at >= 0; at -= 1) if (list[at]!.sequence < before) yield list[at]!;
}
