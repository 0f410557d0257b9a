import type { Delivery, MerchantClock, WebhookEndpoint } from '../model/notifications.js';
import type { Order, Payment } from '../model/records.js';
import { keyText, recordAt, type OwnChanges, type RecordKey, type StoredRecord } from './own-changes.js';
import type { MerchantRecord, SnapshotRecords, Tables } from './tables.js';

/** The state with one writer's own changes taken back, and what of them it kept. */
export interface TakenBack {
  /** the whole state to put, in one change of the store */
  records: SnapshotRecords;
  /** the records put back as they were before the writer's first change (removed when it made them) */
  takenBack: RecordKey[];
  /** the records the writer changed that keep the value they hold now: somebody else changed them since, or holds records of a merchant the writer made */
  kept: RecordKey[];
}

/**
 * The state now with the writer's own changes taken back, and nobody
 * else's (docs/decisions.md#d76-fixtures): each record it changed whose
 * value is still the one its last change left goes back to the value before
 * its first (or goes, when it made it). A record somebody changed since (a
 * client, another replica, the sandbox's own timers) keeps its value: that
 * change was answered, or was sent as a notification. The deliveries of a
 * payment that goes, go with it; a merchant that would go stays while the
 * state holds other records of it. Reads the tables once: O(records).
 */
export function withoutOwn(tables: Tables, own: OwnChanges): TakenBack {
  const target = new Map<string, Target>();
  const takenBack: RecordKey[] = [];
  const kept: RecordKey[] = [];
  for (const record of own.list()) {
    if (recordAt(tables, record.key) === record.after) {
      target.set(keyText(record.key), { key: record.key, value: record.before });
      takenBack.push(record.key);
    } else kept.push(record.key);
  }
  const goes = (key: RecordKey) => target.has(keyText(key)) && target.get(keyText(key))!.value === undefined;
  const now = tables.records();
  // A notification of a payment that is no more would name nothing: it goes with the payment, whoever attempted it since.
  for (const delivery of now.deliveries) {
    const key: RecordKey = { table: 'delivery', publicKey: delivery.publicKey, id: delivery.id };
    if (!target.has(keyText(key)) && goes({ table: 'payment', publicKey: delivery.publicKey, paymentReference: delivery.paymentReference })) {
      target.set(keyText(key), { key, value: undefined });
      takenBack.push(key);
    }
  }
  const payments = rows(now.payments, 'payment', (payment) => ({ table: 'payment', publicKey: payment.publicKey, paymentReference: payment.paymentReference }), target);
  const orders = rows(now.orders, 'order', (order) => ({ table: 'order', publicKey: order.publicKey, paymentReference: order.paymentReference }), target);
  const webhooks = rows(now.webhooks, 'webhook', (webhook) => ({ table: 'webhook', publicKey: webhook.publicKey }), target);
  const clocks = rows(now.clocks, 'clock', (clock) => ({ table: 'clock', publicKey: clock.publicKey }), target);
  const deliveries = rows(now.deliveries, 'delivery', (delivery) => ({ table: 'delivery', publicKey: delivery.publicKey, id: delivery.id }), target);
  // A merchant the writer made stays while somebody else's records of it stay: their answers needed it.
  const held = new Set<string>();
  for (const list of [payments, orders, webhooks, clocks, deliveries]) for (const row of list) held.add(row.publicKey);
  for (const merchant of now.merchants) {
    const key: RecordKey = { table: 'merchant', publicKey: merchant.publicKey };
    if (goes(key) && held.has(merchant.publicKey)) {
      target.delete(keyText(key));
      takenBack.splice(takenBack.findIndex((taken) => keyText(taken) === keyText(key)), 1);
      kept.push(key);
    }
  }
  const merchants = rows(now.merchants, 'merchant', (merchant) => ({ table: 'merchant', publicKey: merchant.publicKey }), target);
  const records: SnapshotRecords = { merchants, payments, orders, webhooks, clocks, deliveries };
  return { records, takenBack, kept };
}

type Row = MerchantRecord | Payment | Order | WebhookEndpoint | MerchantClock | Delivery;

/** What a record of the writer's becomes: `value` put back, or nothing when undefined. */
interface Target {
  key: RecordKey;
  value: StoredRecord | undefined;
}

// The rows held now, each the writer changed last put back or left out, in its place; then the ones of this table it removed, at the end.
function rows<T extends Row>(now: readonly T[], table: RecordKey['table'], keyOf: (row: T) => RecordKey, target: Map<string, Target>): T[] {
  const seen = new Set<string>();
  const result: T[] = [];
  for (const row of now) {
    const id = keyText(keyOf(row));
    seen.add(id);
    const back = target.get(id);
    if (!back) result.push(row);
    else if (back.value !== undefined) result.push(back.value as T);
  }
  for (const [id, back] of target) if (back.key.table === table && back.value !== undefined && !seen.has(id)) result.push(back.value as T);
  return result;
}
