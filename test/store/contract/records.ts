import type { Delivery, MerchantClock, WebhookEndpoint } from '../../../src/model/notifications.js';
import type { Payment } from '../../../src/model/records.js';
import { NotificationFaults, type NotificationFaultView } from '../../../src/notifications/faults.js';
import { OverrideBook, type Override } from '../../../src/scenarios/overrides.js';
import type { Store } from '../../../src/store/store.js';

/**
 * What the store's contract needs beside test/store/fixtures.ts's merchants,
 * payments and orders: deliveries, notification URLs and clocks as the store
 * keeps them, and the overrides and faults wired to a store as src/index.ts
 * wires them.
 */

/** A notification of `payment`, scheduled, as the outbox stores one; `n` makes its id, eventId and sequence. */
export function deliveryRecord(payment: Pick<Payment, 'publicKey' | 'paymentReference' | 'createdAt'>, n: number, fields: Partial<Delivery> = {}): Delivery {
  return {
    id: `dlv_${n.toString(16).padStart(20, '0')}`,
    publicKey: payment.publicKey,
    paymentReference: payment.paymentReference,
    event: { eventType: 'transaction', eventDate: '2025-01-01 12:00:00', eventId: `evt-${n}`, data: { reference: payment.paymentReference, amount: '150.00' } },
    state: 'scheduled',
    schedule: 'current',
    ackReference: `ack-${n}`,
    dueAt: '2025-01-01T12:00:30.000Z',
    attempts: [],
    sequence: n,
    createdAt: payment.createdAt,
    updatedAt: payment.createdAt,
    ...fields,
  };
}

/** A merchant's notification URL. */
export function webhookRecord(publicKey: string, fields: Partial<WebhookEndpoint> = {}): WebhookEndpoint {
  return { publicKey, url: `https://merchant.example.com/hooks/${publicKey.slice(-4)}`, schedule: 'current', updatedAt: '2025-01-01T12:00:00.000Z', ...fields };
}

/** A merchant's clock, `offsetMs` ahead of real time. */
export function clockRecord(publicKey: string, offsetMs: number): MerchantClock {
  return { publicKey, offsetMs };
}

/** The overrides and notification faults a sandbox keeps beside its store. */
export interface Books {
  overrides: OverrideBook;
  faults: NotificationFaults;
}

/**
 * New books wired to `store` as src/index.ts wires a sandbox's (startSandbox):
 * each change says so to the store (`booksChanged`, a no-op on the file), and
 * on PostgreSQL the store captures and applies them whole (`shareBooks`).
 * Called after the store is open, as there.
 */
export function booksOf(store: Store): Books {
  const overrides = new OverrideBook();
  const faults = new NotificationFaults();
  overrides.onChange = () => store.booksChanged();
  faults.onChange = () => store.booksChanged();
  store.shareBooks({
    capture: () => ({ overrides: overrides.list(), faults: faults.all() }),
    apply: (books) => {
      overrides.replace(books.overrides as Override[]);
      faults.replace(books.faults as NotificationFaultView[]);
    },
  });
  return { overrides, faults };
}
