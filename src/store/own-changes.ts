import { AsyncLocalStorage } from 'node:async_hooks';
import type { Delivery, MerchantClock, WebhookEndpoint } from '../model/notifications.js';
import type { Order, Payment } from '../model/records.js';
import type { Change, MerchantRecord, SnapshotRecords, Tables } from './tables.js';

/** One record of the state, by the keys it is stored under. */
export type RecordKey =
  | { table: 'merchant' | 'webhook' | 'clock'; publicKey: string }
  | { table: 'payment' | 'order'; publicKey: string; paymentReference: string }
  | { table: 'delivery'; publicKey: string; id: string };

/** A stored record of any table: the frozen object the tables hold. */
export type StoredRecord = MerchantRecord | Payment | Order | Delivery | WebhookEndpoint | MerchantClock;

/** A record one writer put: as it was before the writer's first change of it, and as the writer's last change left it (undefined: none). */
export interface OwnRecord {
  key: RecordKey;
  before: StoredRecord | undefined;
  after: StoredRecord | undefined;
}

/** What lives beside the store's tables and is changed in units too (the overrides and faults): told when each of the writer's units begins and ends. */
export interface UnitWatcher {
  begin(): void;
  end(): void;
}

/**
 * The changes one writer (a fixtures load) put, record by record, so that
 * it can take back its own changes only (docs/decisions.md#d76-fixtures):
 * each record's value before the writer first changed it, and the value its
 * last change left. Records are frozen and replaced, never changed in place,
 * so a record whose object is still `after` was changed by nobody since.
 */
export class OwnChanges {
  private readonly records = new Map<string, OwnRecord>();

  /** @param units told when each of the writer's units begins and ends, for what it changes beside the tables */
  constructor(readonly units?: UnitWatcher) {}

  /** The records the writer changed, in the order it first changed them. */
  list(): OwnRecord[] {
    return [...this.records.values()];
  }

  /** Notes the records a change is about to put: the first time for each, as they are before it. */
  noteBefore(keys: readonly RecordKey[], tables: Tables): void {
    for (const key of keys) {
      const id = keyText(key);
      if (!this.records.has(id)) this.records.set(id, { key, before: recordAt(tables, key), after: undefined });
    }
  }

  /** Notes the records a change put, as the tables hold them now. */
  noteAfter(keys: readonly RecordKey[], tables: Tables): void {
    for (const key of keys) this.records.get(keyText(key))!.after = recordAt(tables, key);
  }
}

/** The record stored under `key` now, if any. */
export function recordAt(tables: Tables, key: RecordKey): StoredRecord | undefined {
  switch (key.table) {
    case 'merchant':
      return tables.merchant(key.publicKey);
    case 'webhook':
      return tables.webhook(key.publicKey);
    case 'clock':
      return tables.clock(key.publicKey);
    case 'payment':
      return tables.payment(key.publicKey, key.paymentReference);
    case 'order':
      return tables.order(key.publicKey, key.paymentReference);
    case 'delivery':
      return tables.delivery(key.id);
  }
}

/** A key as one text: two keys are the same record exactly when their texts are equal. */
export function keyText(key: RecordKey): string {
  return JSON.stringify(key.table === 'delivery' ? [key.table, key.id] : 'paymentReference' in key ? [key.table, key.publicKey, key.paymentReference] : [key.table, key.publicKey]);
}

/**
 * The records a change puts or removes, read before it is applied: one for
 * most changes; every record of the state (or of a merchant) a reset or a
 * replace covers, and every record a replace brings.
 */
export function recordKeys(change: Change, tables: Tables): RecordKey[] {
  switch (change.kind) {
    case 'merchant':
      return [{ table: 'merchant', publicKey: change.merchant.publicKey }];
    case 'payment': {
      const { publicKey, paymentReference } = change.payment;
      return [{ table: 'payment', publicKey, paymentReference }, ...(change.deliveries ?? []).map(deliveryKey)];
    }
    case 'order':
      return [{ table: 'order', publicKey: change.order.publicKey, paymentReference: change.order.paymentReference }];
    case 'delivery':
      return [deliveryKey(change.delivery)];
    case 'webhook':
      return [{ table: 'webhook', publicKey: change.publicKey }];
    case 'clock':
      return [{ table: 'clock', publicKey: change.clock.publicKey }];
    case 'reset':
      return keysOf(tables.records(change.publicKey));
    case 'replace':
      return [...keysOf(tables.records(change.publicKey)), ...keysOf(change.records)];
  }
}

/** The key of every record of a state. */
export function keysOf(records: SnapshotRecords): RecordKey[] {
  return [
    ...records.merchants.map((merchant): RecordKey => ({ table: 'merchant', publicKey: merchant.publicKey })),
    ...records.payments.map((payment): RecordKey => ({ table: 'payment', publicKey: payment.publicKey, paymentReference: payment.paymentReference })),
    ...records.orders.map((order): RecordKey => ({ table: 'order', publicKey: order.publicKey, paymentReference: order.paymentReference })),
    ...records.deliveries.map(deliveryKey),
    ...records.webhooks.map((webhook): RecordKey => ({ table: 'webhook', publicKey: webhook.publicKey })),
    ...records.clocks.map((clock): RecordKey => ({ table: 'clock', publicKey: clock.publicKey })),
  ];
}

const deliveryKey = (delivery: Delivery): RecordKey => ({ table: 'delivery', publicKey: delivery.publicKey, id: delivery.id });

/** Whose units a unit of work is: a writer's own changes, while the request (or step) that started it is under way. */
export interface OwnScope {
  own: OwnChanges;
  /** false once the step that made the scope is answered: work it left running (a timer) is no longer the writer's */
  open: boolean;
}

/**
 * The scope a unit of work started in, carried across the awaits of the
 * request that started it (AsyncLocalStorage). It is enabled only while a
 * writer records (Store.recordOwn): nothing is carried the rest of the time.
 */
export const ownScope = new AsyncLocalStorage<OwnScope>();
