import type { Merchant } from '../domain/merchants.js';
import type { Order, Payment } from '../domain/records.js';

/**
 * The whole stored state, as it is written to the snapshot file: merchants by
 * public key; payments and orders by public key, then by paymentReference.
 * Keeping every merchant's records apart is what lets one merchant be reset
 * without touching the others.
 */
export interface StoreData {
  version: 1;
  merchants: Record<string, Merchant>;
  payments: Record<string, Record<string, Payment>>;
  orders: Record<string, Record<string, Order>>;
}

/** One change to the state: the unit of the write-ahead log. Each replaces a whole record, so replaying a change twice is harmless. */
export type Change =
  | { kind: 'merchant'; merchant: Merchant }
  | { kind: 'payment'; payment: Payment }
  | { kind: 'order'; order: Order }
  | { kind: 'reset'; publicKey?: string };

/** An empty state. */
export const emptyState = (): StoreData => ({ version: 1, merchants: {}, payments: {}, orders: {} });

/** Applies one change to `data` in place. */
export function applyChange(data: StoreData, change: Change): void {
  switch (change.kind) {
    case 'merchant':
      data.merchants[change.merchant.publicKey] = change.merchant;
      return;
    case 'payment': {
      const { publicKey, paymentReference } = change.payment;
      (data.payments[publicKey] ??= {})[paymentReference] = change.payment;
      return;
    }
    case 'order': {
      const { publicKey, paymentReference } = change.order;
      (data.orders[publicKey] ??= {})[paymentReference] = change.order;
      return;
    }
    case 'reset':
      // Merchants stay: tokens already handed out keep working after a reset.
      if (change.publicKey === undefined) {
        data.payments = {};
        data.orders = {};
      } else {
        delete data.payments[change.publicKey];
        delete data.orders[change.publicKey];
      }
      return;
  }
}

/**
 * Checks that a parsed log line is a change that applyChange can apply.
 * @returns a description of the first problem, or undefined when it is fine.
 */
export function checkChange(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const change = value as Record<string, unknown>;
  const keyed = (record: unknown, keys: string[]): boolean =>
    typeof record === 'object' && record !== null && !Array.isArray(record) &&
    keys.every((key) => typeof (record as Record<string, unknown>)[key] === 'string');
  switch (change.kind) {
    case 'merchant':
      return keyed(change.merchant, ['publicKey']) ? undefined : '"merchant" is not a merchant record';
    case 'payment':
      return keyed(change.payment, ['publicKey', 'paymentReference']) ? undefined : '"payment" is not a payment record';
    case 'order':
      return keyed(change.order, ['publicKey', 'paymentReference']) ? undefined : '"order" is not an order record';
    case 'reset':
      return change.publicKey === undefined || typeof change.publicKey === 'string' ? undefined : '"publicKey" is not a string';
    default:
      return `unknown kind ${JSON.stringify(change.kind)}`;
  }
}

/**
 * Checks that a parsed snapshot has the shape of StoreData.
 * @returns a description of the first problem, or undefined when it is fine.
 */
export function checkState(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const data = value as Record<string, unknown>;
  if (data.version !== 1) return `unknown version ${JSON.stringify(data.version)} (expected 1)`;
  for (const key of ['merchants', 'payments', 'orders']) {
    const part = data[key];
    if (typeof part !== 'object' || part === null || Array.isArray(part)) return `"${key}" is not an object`;
  }
  return undefined;
}
