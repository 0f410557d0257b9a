import { awaitsVerification, type Delivery, type MerchantClock, type WebhookEndpoint } from '../model/notifications.js';
import type { GoLiveFacts } from '../model/go-live.js';
import type { Merchant } from '../model/records.js';
import type { Order, Payment } from '../model/records.js';

/**
 * A merchant as the store keeps it: its key pair, and whether a reset
 * released it. A released merchant's next key exchange may bring another
 * secret key, which then binds it again (docs/decisions.md#d27-reset-releases-keys); until then its
 * tokens keep working. Absent: bound.
 */
export interface MerchantRecord extends Merchant {
  released?: boolean;
  /** what the go-live report keeps of the merchant's traffic since its last reset; absent: none yet (docs/decisions.md#d87-go-live-report) */
  goLive?: GoLiveFacts;
}

/**
 * How many merchants a store keeps unless opened with `maxMerchants`: far
 * more than the key pairs of a team's test suites, far fewer than a web page
 * or a stranger could make it remember (README, "Security").
 */
export const DEFAULT_MAX_MERCHANTS = 1000;

/**
 * One change to the state: the unit of the write-ahead log, one line each.
 * Each replaces whole records, so replaying a change twice is harmless. A
 * payment change carries the deliveries of the notifications it causes (the
 * outbox), so that one line holds both and a crash keeps both or neither.
 * A reset releases the merchants it covers (MerchantRecord) by itself: its
 * line stays `{kind, publicKey}`, as older logs hold it, and its replay
 * releases them again. A replace puts a whole state in one line (a snapshot
 * loaded, a fixture load taken back): every merchant's, or one merchant's
 * when it names `publicKey`; a crash keeps all of it or none.
 */
export type Change =
  | { kind: 'merchant'; merchant: MerchantRecord }
  | { kind: 'replace'; publicKey?: string; records: SnapshotRecords }
  | { kind: 'payment'; payment: Payment; deliveries?: Delivery[] }
  | { kind: 'order'; order: Order }
  | { kind: 'delivery'; delivery: Delivery }
  | { kind: 'webhook'; publicKey: string; webhook: WebhookEndpoint | null }
  | { kind: 'clock'; clock: MerchantClock }
  | { kind: 'reset'; publicKey?: string };

/**
 * Whole records of a state, each list oldest first: what a snapshot holds
 * (snapshot.ts) and what a `replace` change puts. The lists may hold the
 * tables' own frozen records: nothing is copied to take them.
 */
export interface SnapshotRecords {
  merchants: readonly MerchantRecord[];
  payments: readonly Payment[];
  orders: readonly Order[];
  webhooks: readonly WebhookEndpoint[];
  clocks: readonly MerchantClock[];
  deliveries: readonly Delivery[];
}

/**
 * What a change weighs in the log: the records it puts. A replace holds a
 * whole state in one line, and the log is folded into the snapshot by
 * weight, so that loading snapshots or resetting to a baseline again and
 * again never leaves a log that outgrows what a start can read.
 */
export function changeWeight(change: Change): number {
  if (change.kind !== 'replace') return 1;
  const { records } = change;
  return 1 + records.merchants.length + records.payments.length + records.orders.length + records.webhooks.length + records.clocks.length + records.deliveries.length;
}

/** Takes one applied change back, leaving the tables exactly as they were before it (the order of rows included). */
export type Undo = () => void;

/** Rows of one merchant, by paymentReference, oldest first (a Map keeps the order rows were first put in). */
type Rows<T> = Map<string, T>;

/**
 * The state in memory: merchants by public key; payments and orders by
 * public key, then paymentReference; payments by linkingReference. Maps, not
 * objects, so that any string a client sends is a key like any other:
 * `__proto__`, `constructor` or `toString` name a payment, never a property
 * every object has. Keeping every merchant's records apart is what lets one
 * merchant be reset without touching the others.
 */
export class Tables {
  private merchants = new Map<string, MerchantRecord>();
  private payments = new Map<string, Rows<Payment>>();
  private orders = new Map<string, Rows<Order>>();
  private byLinkingReference = new Map<string, Payment>();
  private deliveries = new Map<string, Rows<Delivery>>();
  private deliveryById = new Map<string, Delivery>();
  private webhooks = new Map<string, WebhookEndpoint>();
  private clocks = new Map<string, MerchantClock>();
  // Notifications of success awaiting the merchant's status query, by public key then paymentReference: ids added
  // as such deliveries are put and checked when read, so that neither an undone put nor a verification need remove
  // one; a reset drops the merchant's whole index with its deliveries.
  private unverified = new Map<string, Map<string, Set<string>>>();

  /** The merchant with this public key, if any. */
  merchant(publicKey: string): MerchantRecord | undefined {
    return this.merchants.get(publicKey);
  }

  /** Every merchant, in the order they were first put. */
  merchantList(): MerchantRecord[] {
    return [...this.merchants.values()];
  }

  /** How many merchants the tables hold. */
  get merchantCount(): number {
    return this.merchants.size;
  }

  /** The payment of one merchant with this paymentReference, if any. */
  payment(publicKey: string, paymentReference: string): Payment | undefined {
    return this.payments.get(publicKey)?.get(paymentReference);
  }

  /** The payments of one merchant, oldest first; of every merchant when `publicKey` is absent. */
  paymentList(publicKey?: string): Payment[] {
    return rowsOf(this.payments, publicKey);
  }

  /** The payment with this linkingReference, whoever's it is. */
  paymentWithLinkingReference(linkingReference: string): Payment | undefined {
    return this.byLinkingReference.get(linkingReference);
  }

  /** The order of one merchant with this paymentReference, if any. */
  order(publicKey: string, paymentReference: string): Order | undefined {
    return this.orders.get(publicKey)?.get(paymentReference);
  }

  /** The orders of one merchant, oldest first; of every merchant when `publicKey` is absent. */
  orderList(publicKey?: string): Order[] {
    return rowsOf(this.orders, publicKey);
  }

  /** The delivery with this id, whoever's it is. */
  delivery(id: string): Delivery | undefined {
    return this.deliveryById.get(id);
  }

  /** The deliveries of one merchant, oldest first; of every merchant when `publicKey` is absent. */
  deliveryList(publicKey?: string): Delivery[] {
    return rowsOf(this.deliveries, publicKey);
  }

  /**
   * The merchant's notifications of success of this payment that no status
   * query has followed yet (awaitsVerification), oldest first. O(its deliveries).
   */
  awaitingVerification(publicKey: string, paymentReference: string): Delivery[] {
    const byReference = this.unverified.get(publicKey);
    const ids = byReference?.get(paymentReference);
    if (!ids) return [];
    const awaiting: Delivery[] = [];
    for (const id of ids) {
      const delivery = this.deliveryById.get(id);
      if (delivery && delivery.publicKey === publicKey && delivery.paymentReference === paymentReference && awaitsVerification(delivery)) awaiting.push(delivery);
      else ids.delete(id);
    }
    if (ids.size === 0) byReference!.delete(paymentReference);
    return awaiting;
  }

  // Adds a delivery to the index of those awaiting a status query; a stale id is dropped when read.
  private noteUnverified(delivery: Delivery): void {
    if (!awaitsVerification(delivery)) return;
    let byReference = this.unverified.get(delivery.publicKey);
    if (!byReference) this.unverified.set(delivery.publicKey, (byReference = new Map()));
    let ids = byReference.get(delivery.paymentReference);
    if (!ids) byReference.set(delivery.paymentReference, (ids = new Set()));
    ids.add(delivery.id);
  }

  /** The merchant's notification URL, if one is set. */
  webhook(publicKey: string): WebhookEndpoint | undefined {
    return this.webhooks.get(publicKey);
  }

  /** Every notification URL set. */
  webhookList(): WebhookEndpoint[] {
    return [...this.webhooks.values()];
  }

  /** The merchant's clock, if it was ever moved. */
  clock(publicKey: string): MerchantClock | undefined {
    return this.clocks.get(publicKey);
  }

  /** Every clock ever moved. */
  clockList(): MerchantClock[] {
    return [...this.clocks.values()];
  }

  /**
   * The records of every merchant, or of one: lists of the frozen records
   * held now (the same objects), oldest first. O(records) to list, nothing copied.
   */
  records(publicKey?: string): SnapshotRecords {
    if (publicKey === undefined) {
      return {
        merchants: this.merchantList(), payments: this.paymentList(), orders: this.orderList(),
        webhooks: this.webhookList(), clocks: this.clockList(), deliveries: this.deliveryList(),
      };
    }
    const one = <T>(value: T | undefined): T[] => (value === undefined ? [] : [value]);
    return {
      merchants: one(this.merchants.get(publicKey)), payments: this.paymentList(publicKey), orders: this.orderList(publicKey),
      webhooks: one(this.webhooks.get(publicKey)), clocks: one(this.clocks.get(publicKey)), deliveries: this.deliveryList(publicKey),
    };
  }

  /**
   * How many records the tables hold (merchants, payments and orders): what
   * a snapshot of them costs to write and to read, which sets when the log
   * is worth folding into one. O(merchants).
   */
  get size(): number {
    let size = this.merchants.size + this.webhooks.size + this.clocks.size + this.deliveryById.size;
    for (const rows of this.payments.values()) size += rows.size;
    for (const rows of this.orders.values()) size += rows.size;
    return size;
  }

  /**
   * Applies one change. Its record is deep-frozen first: a stored record is
   * never changed in place, only replaced by putting a new one.
   * @returns how to take the change back: a write the disk refused must leave no trace in memory
   */
  apply(change: Change): Undo {
    switch (change.kind) {
      case 'merchant': {
        const merchant = deepFreeze(change.merchant);
        return put(this.merchants, merchant.publicKey, merchant);
      }
      case 'payment': {
        const payment = deepFreeze(change.payment);
        const undoRow = putRow(this.payments, payment.publicKey, payment.paymentReference, payment);
        const undoLink = put(this.byLinkingReference, payment.linkingReference, payment);
        const undoDeliveries = (change.deliveries ?? []).map((delivery) => this.apply({ kind: 'delivery', delivery }));
        return () => {
          for (const undo of undoDeliveries.reverse()) undo();
          undoLink();
          undoRow();
        };
      }
      case 'order': {
        const order = deepFreeze(change.order);
        return putRow(this.orders, order.publicKey, order.paymentReference, order);
      }
      case 'delivery': {
        const delivery = deepFreeze(change.delivery);
        const undoRow = putRow(this.deliveries, delivery.publicKey, delivery.id, delivery);
        const undoId = put(this.deliveryById, delivery.id, delivery);
        this.noteUnverified(delivery);
        return () => {
          undoId();
          undoRow();
        };
      }
      case 'webhook':
        return change.webhook ? put(this.webhooks, change.publicKey, deepFreeze(change.webhook)) : remove(this.webhooks, change.publicKey);
      case 'clock':
        return put(this.clocks, change.clock.publicKey, deepFreeze(change.clock));
      case 'reset':
        // Merchants stay, so tokens already handed out keep working after a reset; each merchant reset is released.
        return change.publicKey === undefined ? this.resetAll() : this.resetOne(change.publicKey);
      case 'replace':
        return change.publicKey === undefined ? this.replaceAll(change.records) : this.replaceOne(change.publicKey, change.records);
    }
  }

  /**
   * Tables holding exactly `records`, each record frozen.
   * @returns the tables, or the first record held twice under the same keys
   *   (`/payments/3 repeats the paymentReference "R1" of "SBTESTPUBK_a"`), as a JSON Pointer into the lists
   */
  static of(records: SnapshotRecords): Tables | string {
    const tables = new Tables();
    // replay() says when a record took the place of one under the same keys.
    const put = (list: string, rows: readonly object[], replay: (row: never) => boolean, named: (row: never) => string) => {
      for (const [index, row] of rows.entries()) if (!replay(row as never)) return `/${list}/${index} repeats ${named(row as never)}`;
      return undefined;
    };
    const once = <T extends { publicKey: string }>(map: Map<string, T>, row: T) => !map.has(row.publicKey) && Boolean(map.set(row.publicKey, deepFreeze(row)));
    const repeated =
      put('merchants', records.merchants, (merchant: Merchant) => tables.replay({ kind: 'merchant', merchant }), (merchant: Merchant) => `the merchant ${JSON.stringify(merchant.publicKey)}`) ??
      put('payments', records.payments, (payment: Payment) => tables.replay({ kind: 'payment', payment }), describe) ??
      put('orders', records.orders, (order: Order) => tables.replay({ kind: 'order', order }), describe) ??
      put('webhooks', records.webhooks, (webhook: WebhookEndpoint) => once(tables.webhooks, webhook), (webhook: WebhookEndpoint) => `the webhook of ${JSON.stringify(webhook.publicKey)}`) ??
      put('clocks', records.clocks, (clock: MerchantClock) => once(tables.clocks, clock), (clock: MerchantClock) => `the clock of ${JSON.stringify(clock.publicKey)}`) ??
      put('deliveries', records.deliveries, (delivery: Delivery) => tables.replay({ kind: 'delivery', delivery }), (delivery: Delivery) => `the delivery ${JSON.stringify(delivery.id)}`);
    return repeated ?? tables;
  }

  /**
   * Applies one change read from disk, as `apply()` does, without the means
   * to take it back: start-up replays some 100 000 of them, and the closures
   * of `apply()` would be that many objects for the collector.
   * @returns false when the change replaced a record under the same keys
   *   (a snapshot holding a record twice), else true
   */
  replay(change: Change): boolean {
    switch (change.kind) {
      case 'merchant': {
        const merchant = deepFreeze(change.merchant);
        return setNew(this.merchants, merchant.publicKey, merchant);
      }
      case 'payment': {
        const payment = deepFreeze(change.payment);
        this.byLinkingReference.set(payment.linkingReference, payment);
        for (const delivery of change.deliveries ?? []) this.replay({ kind: 'delivery', delivery });
        return setNew(rowsFor(this.payments, payment.publicKey), payment.paymentReference, payment);
      }
      case 'order': {
        const order = deepFreeze(change.order);
        return setNew(rowsFor(this.orders, order.publicKey), order.paymentReference, order);
      }
      case 'delivery': {
        const delivery = deepFreeze(change.delivery);
        this.deliveryById.set(delivery.id, delivery);
        this.noteUnverified(delivery);
        return setNew(rowsFor(this.deliveries, delivery.publicKey), delivery.id, delivery);
      }
      case 'webhook':
      case 'clock':
        this.apply(change);
        return true;
      case 'reset':
      case 'replace':
        this.apply(change);
        return true;
    }
  }

  private replaceAll(records: SnapshotRecords): Undo {
    const built = Tables.of(records);
    if (typeof built === 'string') throw new TypeError(`the state cannot be stored: ${built}`);
    const { merchants, payments, orders, byLinkingReference, deliveries, deliveryById, webhooks, clocks, unverified } = this;
    Object.assign(this, {
      merchants: built.merchants, payments: built.payments, orders: built.orders, byLinkingReference: built.byLinkingReference,
      deliveries: built.deliveries, deliveryById: built.deliveryById, webhooks: built.webhooks, clocks: built.clocks, unverified: built.unverified,
    });
    return () => {
      Object.assign(this, { merchants, payments, orders, byLinkingReference, deliveries, deliveryById, webhooks, clocks, unverified });
    };
  }

  // One merchant's records go, and the new ones take their place; every other merchant's stay as they are.
  private replaceOne(publicKey: string, records: SnapshotRecords): Undo {
    const built = Tables.of(records);
    if (typeof built === 'string') throw new TypeError(`the state cannot be stored: ${built}`);
    const undoRows = this.resetOne(publicKey);
    const merchant = built.merchants.get(publicKey);
    const undoMerchant = merchant === undefined ? remove(this.merchants, publicKey) : put(this.merchants, publicKey, merchant);
    const webhook = built.webhooks.get(publicKey);
    const undoWebhook = webhook === undefined ? remove(this.webhooks, publicKey) : put(this.webhooks, publicKey, webhook);
    const clock = built.clocks.get(publicKey);
    const undoClock = clock === undefined ? () => {} : put(this.clocks, publicKey, clock);
    const rows = <T>(table: Map<string, Rows<T>>, from: Map<string, Rows<T>>) => {
      const mine = from.get(publicKey);
      if (mine && mine.size > 0) table.set(publicKey, mine);
    };
    rows(this.payments, built.payments);
    rows(this.orders, built.orders);
    rows(this.deliveries, built.deliveries);
    for (const payment of built.payments.get(publicKey)?.values() ?? []) this.byLinkingReference.set(payment.linkingReference, payment);
    for (const delivery of built.deliveries.get(publicKey)?.values() ?? []) this.deliveryById.set(delivery.id, delivery);
    const undoUnverified = put(this.unverified, publicKey, built.unverified.get(publicKey) ?? new Map());
    return () => {
      undoUnverified();
      for (const payment of built.payments.get(publicKey)?.values() ?? []) {
        if (this.byLinkingReference.get(payment.linkingReference) === payment) this.byLinkingReference.delete(payment.linkingReference);
      }
      for (const id of built.deliveries.get(publicKey)?.keys() ?? []) this.deliveryById.delete(id);
      this.payments.delete(publicKey);
      this.orders.delete(publicKey);
      this.deliveries.delete(publicKey);
      undoClock();
      undoWebhook();
      undoMerchant();
      undoRows();
    };
  }

  // Notification URLs stay, as merchants do: they are set-up, not state. Clocks go back to real time.
  private resetAll(): Undo {
    const { merchants, payments, orders, byLinkingReference, deliveries, deliveryById, clocks, unverified } = this;
    // A new map in the same order: undoing the reset puts the old one back whole.
    this.merchants = new Map([...merchants].map(([publicKey, merchant]) => [publicKey, releasedRecord(merchant)]));
    this.payments = new Map();
    this.orders = new Map();
    this.byLinkingReference = new Map();
    this.deliveries = new Map();
    this.deliveryById = new Map();
    this.clocks = new Map();
    this.unverified = new Map();
    return () => {
      Object.assign(this, { merchants, payments, orders, byLinkingReference, deliveries, deliveryById, clocks, unverified });
    };
  }

  private resetOne(publicKey: string): Undo {
    const merchant = this.merchants.get(publicKey);
    const undoRelease = merchant === undefined ? () => {} : put(this.merchants, publicKey, releasedRecord(merchant));
    const payments = this.payments.get(publicKey);
    const orders = this.orders.get(publicKey);
    const deliveries = this.deliveries.get(publicKey);
    const undoClock = remove(this.clocks, publicKey);
    const undoUnverified = remove(this.unverified, publicKey);
    this.payments.delete(publicKey);
    this.orders.delete(publicKey);
    this.deliveries.delete(publicKey);
    for (const payment of payments?.values() ?? []) {
      if (this.byLinkingReference.get(payment.linkingReference) === payment) this.byLinkingReference.delete(payment.linkingReference);
    }
    for (const id of deliveries?.keys() ?? []) this.deliveryById.delete(id);
    return () => {
      if (payments) {
        this.payments.set(publicKey, payments);
        for (const payment of payments.values()) this.byLinkingReference.set(payment.linkingReference, payment);
      }
      if (orders) this.orders.set(publicKey, orders);
      if (deliveries) {
        this.deliveries.set(publicKey, deliveries);
        for (const delivery of deliveries.values()) this.deliveryById.set(delivery.id, delivery);
      }
      undoUnverified();
      undoClock();
      undoRelease();
    };
  }
}

function describe(row: { publicKey: string; paymentReference: string }): string {
  return `the paymentReference ${JSON.stringify(row.paymentReference)} of ${JSON.stringify(row.publicKey)}`;
}

// The record of a merchant a reset released: a new frozen record, as every change of a record is; the same one when it already was.
function releasedRecord(merchant: MerchantRecord): MerchantRecord {
  return merchant.released ? merchant : deepFreeze({ ...merchant, released: true });
}

/** Freezes a record and everything in it, so that no caller can change what the store holds. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) freezeObject(value);
  return value;
}

// for...in rather than Object.values: no array made per object, which is most of the cost of freezing 100 000 records at start-up.
function freezeObject(value: object): void {
  Object.freeze(value);
  for (const key in value) {
    const inner = (value as Record<string, unknown>)[key];
    if (typeof inner === 'object' && inner !== null) freezeObject(inner);
  }
}

/** Lists joined by one concat call at most: arguments beyond some tens of thousands would overflow the stack. */
const CONCAT_AT_ONCE = 10_000;

function rowsOf<T>(table: Map<string, Rows<T>>, publicKey: string | undefined): T[] {
  if (publicKey !== undefined) return [...(table.get(publicKey)?.values() ?? [])];
  // Spread and concat rather than flatMap, which is far slower: a fold lists every record at once on the event loop.
  const lists = [...table.values()].map((rows) => [...rows.values()]);
  let all: T[] = [];
  for (let at = 0; at < lists.length; at += CONCAT_AT_ONCE) all = all.concat(...lists.slice(at, at + CONCAT_AT_ONCE));
  return all;
}

// Setting a key that exists keeps its place in the Map, so restoring the
// record it held keeps "oldest first" exactly as it was.
function put<T>(map: Map<string, T>, key: string, value: T): Undo {
  const before = map.get(key);
  map.set(key, value);
  return () => {
    if (before === undefined) map.delete(key);
    else map.set(key, before);
  };
}

function remove<T>(map: Map<string, T>, key: string): Undo {
  const before = map.get(key);
  map.delete(key);
  return () => {
    if (before !== undefined) map.set(key, before);
  };
}

function setNew<T>(map: Map<string, T>, key: string, value: T): boolean {
  const size = map.size;
  map.set(key, value);
  return map.size > size;
}

function rowsFor<T>(table: Map<string, Rows<T>>, publicKey: string): Rows<T> {
  let rows = table.get(publicKey);
  if (!rows) table.set(publicKey, (rows = new Map()));
  return rows;
}

function putRow<T>(table: Map<string, Rows<T>>, publicKey: string, reference: string, value: T): Undo {
  const rows = table.get(publicKey);
  if (rows) return put(rows, reference, value);
  table.set(publicKey, new Map([[reference, value]]));
  // Undone newest first, so by now the merchant's rows hold this one alone.
  return () => table.delete(publicKey);
}
