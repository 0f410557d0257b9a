import { FACTS_LIMIT, type ConformanceWarning, type GoLiveFacts, type GoLiveRunMark, type GoLiveRunStepName, type ReusedReference } from '../model/go-live.js';
import type {
  Delivery, DeliveryAttempt, DeliveryFault, DeliverySchedule, DeliveryState, MerchantClock, NotificationEvent, NotificationEventType,
  NotificationFaultKind, WebhookEndpoint,
} from '../model/notifications.js';
import type { BillingCycle, PaymentDue, RecurringCharge, Subscription } from '../model/records.js';
import { HISTORY_LIMIT, type Order, type OrderItem, type Payment, type PaymentHistoryEntry, type PaymentHistoryEvent, type PaymentMethod, type PaymentStatus, type StoredCard, type TransferAccount } from '../model/records.js';
import type { MerchantRecord } from './tables.js';

/**
 * The JSON Schemas of what the store keeps (domain/records.ts), checked on
 * every record read from the snapshot or the log and on every record put:
 * a record the store could not read back must never reach the disk. The
 * property lists are typed against the records, so a field added to a
 * record and not here fails to compile instead of failing at the next start.
 */

/** The keys a record of type T cannot do without. */
type RequiredKey<T> = { [K in keyof T]-?: undefined extends T[K] ? never : K }[keyof T];

/** A kind of record the store keeps. */
export type RecordKind = 'merchant' | 'payment' | 'order' | 'delivery' | 'webhook' | 'clock';

const text = { type: 'string' } as const;

function record<T>(properties: Record<keyof T, object>, required: Record<RequiredKey<T>, true>): object {
  return { type: 'object', properties, required: Object.keys(required), additionalProperties: false };
}

function oneOf<T extends string>(values: Record<T, true>): object {
  return { type: 'string', enum: Object.keys(values) };
}

const METHODS: Record<PaymentMethod, true> = { CARD: true, ACCOUNT: true, MOMO: true, TRANSFER: true, USSD: true, CHECKOUT: true, ORDER: true };
const STATUSES: Record<PaymentStatus, true> = {
  PENDING: true, SUCCESSFUL: true, FAILED: true, CANCELLED: true, REFUNDED: true, EXPIRED: true,
  AUTHORIZED: true, PARTIALLY_CAPTURED: true, CAPTURED: true, TOKENIZED: true,
};
const CHANNELS: Record<NonNullable<Payment['channel']>, true> = { CARD: true, ACCOUNT: true, TRANSFER: true };

// `released` came after the first store files: optional, so that those still open (tables.ts, MerchantRecord).
const count = { type: 'integer', minimum: 0 } as const;
const factsList = (item: object) => ({ type: 'array', items: item, maxItems: FACTS_LIMIT });
const goLive = record<GoLiveFacts>(
  {
    since: text,
    exchanges: record<GoLiveFacts['exchanges']>({ count, first: text, last: text }, { count: true }),
    reused: factsList(record<ReusedReference>({ reference: text, operation: text, requestId: count, at: text }, { reference: true, operation: true, requestId: true, at: true })),
    reusedTotal: count,
    warnings: factsList(record<ConformanceWarning>({ warning: text, count, requestId: count, at: text }, { warning: true, count: true, requestId: true, at: true })),
  },
  { since: true, exchanges: true, reused: true, reusedTotal: true, warnings: true },
);

// `goLive` came with the go-live report: absent on older records, as on a merchant with no traffic yet.
const merchant = record<MerchantRecord>(
  { publicKey: text, secretKey: text, createdAt: text, released: { type: 'boolean' }, goLive },
  { publicKey: true, secretKey: true, createdAt: true },
);

const card = record<StoredCard>({ bin: text, last4: text, token: text }, { bin: true, last4: true, token: true });

const transfer = record<TransferAccount>(
  { walletName: text, wallet: text, bankName: text, accountNumber: text },
  { walletName: true, wallet: true, bankName: true, accountNumber: true },
);

const due = record<PaymentDue>(
  { at: text, event: oneOf<PaymentDue['event']>({ settle: true, expire: true }), outcome: oneOf<NonNullable<PaymentDue['outcome']>>({ success: true, failure: true }) },
  { at: true, event: true },
);

const CYCLES: Record<BillingCycle, true> = { HOURLY: true, DAILY: true, WEEKLY: true, MONTHLY: true, ANNUALLY: true };

const subscription = record<Subscription>(
  {
    billingCycle: oneOf(CYCLES), billingPeriod: { type: 'integer', minimum: 1 }, amount: text, status: oneOf<Subscription['status']>({ ACTIVE: true, INACTIVE: true }),
    startDate: text, planId: text, customerId: text, cardName: text, charges: { type: 'integer', minimum: 0 }, nextChargeAt: text,
  },
  { billingCycle: true, billingPeriod: true, amount: true, status: true, startDate: true, charges: true },
);

const recurring = record<RecurringCharge>(
  { billingId: text, kind: oneOf<RecurringCharge['kind']>({ scheduled: true, debit: true }), cycle: { type: 'integer', minimum: 1 } },
  { billingId: true, kind: true },
);

const HISTORY_EVENTS: Record<PaymentHistoryEvent, true> = { create: true, 'choose-channel': true, settle: true, capture: true, refund: true, cancel: true, expire: true };

// Added after the first store files: optional, so that records without it still load (docs/decisions.md#d79-payment-history).
const history = {
  type: 'array',
  maxItems: HISTORY_LIMIT,
  items: record<PaymentHistoryEntry>(
    { at: text, status: oneOf(STATUSES), code: text, message: text, scenario: text, event: oneOf(HISTORY_EVENTS) },
    { at: true, status: true, code: true, scenario: true, event: true },
  ),
};

const payment = record<Payment>(
  {
    publicKey: text, paymentReference: text, linkingReference: text, method: oneOf(METHODS), status: oneOf(STATUSES),
    code: text, message: text, amount: text, refundedAmount: text, capturedAmount: text, withoutAuthentication: { type: 'boolean' }, authorizationCode: text, currency: text, country: text,
    subscription, recurring, bulk: record<NonNullable<Payment['bulk']>>({ batchId: text, item: { type: 'integer', minimum: 1 }, authorizationCode: text }, { batchId: true, item: true, authorizationCode: true }),
    fullName: text, email: text, mobileNumber: text, productId: text, productDescription: text,
    card, transfer, channel: oneOf(CHANNELS), channelType: text, deviceType: text, sourceIP: text, type: text,
    redirectUrl: text, callbackUrl: text, scenario: text, goLiveRun: text, due, history, createdAt: text, updatedAt: text,
  },
  {
    publicKey: true, paymentReference: true, linkingReference: true, method: true, status: true, code: true, message: true,
    amount: true, refundedAmount: true, currency: true, country: true, scenario: true, createdAt: true, updatedAt: true,
  },
);

const orderItem = record<OrderItem>(
  { orderId: text, currency: text, amount: text, productId: text, productDescription: text, createdAt: text, updatedAt: text },
  { orderId: true, currency: true, amount: true, productId: true, productDescription: true, createdAt: true, updatedAt: true },
);

const order = record<Order>(
  {
    publicKey: text, paymentReference: text, email: text, fullName: text, mobileNumber: text, orderType: text,
    callbackUrl: text, country: text, currency: text, amount: text,
    // An order is created with at least one item and items are never removed (docs/decisions.md#d06-required-fields).
    items: { type: 'array', items: orderItem, minItems: 1 },
    createdAt: text, updatedAt: text,
  },
  { publicKey: true, paymentReference: true, callbackUrl: true, country: true, currency: true, amount: true, items: true, createdAt: true, updatedAt: true },
);

const EVENT_TYPES: Record<NotificationEventType, true> = { transaction: true, refund: true, 'transaction.recurrent': true, 'transaction.recurring.debit': true, dispute: true };
const SCHEDULES: Record<DeliverySchedule, true> = { current: true, legacy: true };
const DELIVERY_STATES: Record<DeliveryState, true> = { scheduled: true, held: true, delivered: true, undelivered: true, withheld: true };
const FAULTS: Record<NotificationFaultKind, true> = { duplicate: true, late: true, 'out-of-order': true, never: true, 'receiver-error': true };
const integer = { type: 'integer', minimum: 0 } as const;

const webhook = record<WebhookEndpoint>(
  { publicKey: text, url: text, events: { type: 'array', items: oneOf(EVENT_TYPES) }, schedule: oneOf(SCHEDULES), updatedAt: text },
  { publicKey: true, url: true, schedule: true, updatedAt: true },
);

const clock = record<MerchantClock>({ publicKey: text, offsetMs: integer }, { publicKey: true, offsetMs: true });

const event = record<NotificationEvent>(
  { eventType: oneOf(EVENT_TYPES), eventDate: text, eventId: text, data: { type: 'object' } },
  { eventType: true, eventDate: true, eventId: true, data: true },
);

const attempt = record<DeliveryAttempt>(
  { at: text, url: text, ackReference: text, status: integer, latencyMs: { type: 'number', minimum: 0 }, acknowledged: { type: 'boolean' }, reason: text, notSent: { type: 'boolean' } },
  { at: true, url: true, ackReference: true, latencyMs: true, acknowledged: true },
);

const fault = record<DeliveryFault>({ kind: oneOf(FAULTS), delay: text, status: integer, attempts: integer }, { kind: true });

const delivery = record<Delivery>(
  {
    id: text, publicKey: text, paymentReference: text, event, state: oneOf(DELIVERY_STATES), schedule: oneOf(SCHEDULES), ackReference: text, dueAt: text,
    attempts: { type: 'array', items: attempt }, fault, copyOf: text, sequence: integer, createdAt: text, updatedAt: text,
    run: record<GoLiveRunMark>({ id: text, step: oneOf<GoLiveRunStepName>({ success: true, duplicate: true, dispute: true, 'false-success': true }) }, { id: true, step: true }),
    verifiedAt: text,
  },
  { id: true, publicKey: true, paymentReference: true, event: true, state: true, schedule: true, ackReference: true, attempts: true, sequence: true, createdAt: true, updatedAt: true },
);

// A record's schema by its name: the snapshots refer to the records' schemas, so that each is compiled once.
const ref = (name: RecordKind) => ({ $ref: name });

const byKey = (value: object) => ({ type: 'object', additionalProperties: value });
const inOrder = (value: object) => ({ type: 'array', items: value });
const snapshot = (version: number, merchants: object, payments: object, orders: object, more: Record<string, object> = {}) => ({
  type: 'object',
  properties: { version: { const: version }, merchants, payments, orders, ...more },
  required: ['version', 'merchants', 'payments', 'orders', ...Object.keys(more)],
  additionalProperties: false,
});

/**
 * Every schema the store checks with, by name: one per kind of record, and
 * one per snapshot version (1 kept records by their keys, merchant then
 * paymentReference; 2 lists them in order; 3 adds notification URLs, clocks and deliveries).
 */
export const STORE_SCHEMAS = {
  merchant,
  payment,
  order,
  delivery,
  webhook,
  clock,
  snapshot1: snapshot(1, byKey(ref('merchant')), byKey(byKey(ref('payment'))), byKey(byKey(ref('order')))),
  snapshot2: snapshot(2, inOrder(ref('merchant')), inOrder(ref('payment')), inOrder(ref('order'))),
  snapshot3: snapshot(3, inOrder(ref('merchant')), inOrder(ref('payment')), inOrder(ref('order')), {
    webhooks: inOrder(ref('webhook')), clocks: inOrder(ref('clock')), deliveries: inOrder(ref('delivery')),
  }),
} as const;

/** The name of one of the store's schemas. */
export type StoreSchemaName = keyof typeof STORE_SCHEMAS;

