import type { Store } from '../../../src/index.js';
import { fetchAt, type Origin } from './api.js';

/**
 * What the sandbox keeps: merchants, payments and orders, read over its
 * control API, or from the store of a sandbox running in this process
 * through the same lists the control API serves. Two readings taken around
 * a refused request must be equal, since a refusal changes nothing.
 */

/** The stored state as the control API lists it, each part in its own JSON text. */
export interface StoredState {
  /** public keys of every merchant */
  merchants: string[];
  /** `<publicKey> <paymentReference>` -> the payment's JSON */
  payments: Map<string, string>;
  /** `<publicKey> <paymentReference>` -> the order's JSON */
  orders: Map<string, string>;
}

/** What differs between two readings; empty lists when nothing does. */
export interface StateChange {
  merchantsAdded: string[];
  merchantsRemoved: string[];
  /** payments or orders added, removed or changed, as `payment <publicKey> <reference>: added` and the like */
  records: string[];
}

const READ_WITHIN_MS = 10_000;

async function list(origin: Origin, path: string): Promise<any> {
  const response = await fetchAt(origin, `/__sandbox${path}`, { signal: AbortSignal.timeout(READ_WITHIN_MS) });
  if (response.status !== 200) throw new Error(`GET /__sandbox${path} answered ${response.status}: ${await response.text()}`);
  return response.json();
}

const keyOf = (record: { publicKey: string; paymentReference: string }) => `${record.publicKey} ${record.paymentReference}`;

/** Reads merchants, payments and orders from the sandbox at `origin` (http://127.0.0.1:port, or served in process). */
export async function storedState(origin: Origin): Promise<StoredState> {
  const [merchants, payments, orders] = await Promise.all([list(origin, '/merchants'), list(origin, '/payments'), list(origin, '/orders')]);
  return {
    merchants: (merchants.merchants as Array<{ publicKey: string }>).map((merchant) => merchant.publicKey).sort(),
    payments: new Map((payments.payments as Array<{ publicKey: string; paymentReference: string }>).map((payment) => [keyOf(payment), JSON.stringify(payment)])),
    orders: new Map((orders.orders as Array<{ publicKey: string; paymentReference: string }>).map((order) => [keyOf(order), JSON.stringify(order)])),
  };
}

/**
 * Reads merchants, payments and orders from a store in this process, as the
 * control API lists them (payments and orders of every merchant). Costs no
 * request, so that it can be read around every one of thousands of requests.
 */
export function storeState(store: Store): StoredState {
  const merchants = store.merchants().map((merchant) => merchant.publicKey);
  const payments = new Map<string, string>();
  const orders = new Map<string, string>();
  for (const publicKey of merchants) {
    for (const payment of store.payments(publicKey)) payments.set(keyOf(payment), JSON.stringify(payment));
    for (const order of store.orders(publicKey)) orders.set(keyOf(order), JSON.stringify(order));
  }
  return { merchants: merchants.sort(), payments, orders };
}

/** What changed from `before` to `after`. */
export function changeBetween(before: StoredState, after: StoredState): StateChange {
  const records: string[] = [];
  for (const [kind, was, now] of [['payment', before.payments, after.payments], ['order', before.orders, after.orders]] as const) {
    for (const [key, value] of now) {
      if (!was.has(key)) records.push(`${kind} ${key}: added`);
      else if (was.get(key) !== value) records.push(`${kind} ${key}: changed from ${was.get(key)} to ${value}`);
    }
    for (const key of was.keys()) if (!now.has(key)) records.push(`${kind} ${key}: removed`);
  }
  return {
    merchantsAdded: after.merchants.filter((key) => !before.merchants.includes(key)),
    merchantsRemoved: before.merchants.filter((key) => !after.merchants.includes(key)),
    records,
  };
}
