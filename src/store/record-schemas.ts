import type { Merchant } from '../model/records.js';
import type { Order, OrderItem, Payment, PaymentMethod, PaymentStatus, StoredCard, TransferAccount } from '../model/records.js';

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
export type RecordKind = 'merchant' | 'payment' | 'order';

const text = { type: 'string' } as const;

function record<T>(properties: Record<keyof T, object>, required: Record<RequiredKey<T>, true>): object {
  return { type: 'object', properties, required: Object.keys(required), additionalProperties: false };
}

function oneOf<T extends string>(values: Record<T, true>): object {
  return { type: 'string', enum: Object.keys(values) };
}

const METHODS: Record<PaymentMethod, true> = { CARD: true, ACCOUNT: true, MOMO: true, TRANSFER: true, CHECKOUT: true, ORDER: true };
const STATUSES: Record<PaymentStatus, true> = { PENDING: true, SUCCESSFUL: true, FAILED: true, CANCELLED: true, REFUNDED: true };
const CHANNELS: Record<NonNullable<Payment['channel']>, true> = { CARD: true, ACCOUNT: true, TRANSFER: true };

const merchant = record<Merchant>({ publicKey: text, secretKey: text, createdAt: text }, { publicKey: true, secretKey: true, createdAt: true });

const card = record<StoredCard>({ bin: text, last4: text, token: text }, { bin: true, last4: true, token: true });

const transfer = record<TransferAccount>(
  { walletName: text, wallet: text, bankName: text, accountNumber: text },
  { walletName: true, wallet: true, bankName: true, accountNumber: true },
);

const payment = record<Payment>(
  {
    publicKey: text, paymentReference: text, linkingReference: text, method: oneOf(METHODS), status: oneOf(STATUSES),
    code: text, message: text, amount: text, refundedAmount: text, currency: text, country: text,
    fullName: text, email: text, mobileNumber: text, productId: text, productDescription: text,
    card, transfer, channel: oneOf(CHANNELS), channelType: text, deviceType: text, sourceIP: text, type: text,
    redirectUrl: text, callbackUrl: text, scenario: text, createdAt: text, updatedAt: text,
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
    // An order is created with at least one item and items are never removed (README decision 6).
    items: { type: 'array', items: orderItem, minItems: 1 },
    createdAt: text, updatedAt: text,
  },
  { publicKey: true, paymentReference: true, callbackUrl: true, country: true, currency: true, amount: true, items: true, createdAt: true, updatedAt: true },
);

const byKey = (value: object) => ({ type: 'object', additionalProperties: value });
const inOrder = (value: object) => ({ type: 'array', items: value });
const snapshot = (version: number, merchants: object, payments: object, orders: object) => ({
  type: 'object',
  properties: { version: { const: version }, merchants, payments, orders },
  required: ['version', 'merchants', 'payments', 'orders'],
  additionalProperties: false,
});

/**
 * Every schema the store checks with, by name: one per kind of record, and
 * one per snapshot version (1 kept records by their keys, merchant then
 * paymentReference; 2 lists them in order).
 */
export const STORE_SCHEMAS = {
  merchant,
  payment,
  order,
  snapshot1: snapshot(1, byKey(merchant), byKey(byKey(payment)), byKey(byKey(order))),
  snapshot2: snapshot(2, inOrder(merchant), inOrder(payment), inOrder(order)),
} as const;

/** The name of one of the store's schemas. */
export type StoreSchemaName = keyof typeof STORE_SCHEMAS;

