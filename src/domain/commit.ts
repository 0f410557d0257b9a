import type { Delivery } from '../model/notifications.js';
import type { Payment } from '../model/records.js';
import type { Store } from '../store/store.js';
import type { Write } from './answer.js';

/**
 * What makes the deliveries of the notifications a payment's change causes
 * (src/notifications/outbox.ts; README, "Notifications"): none when the
 * change is not one the merchant hears of, or no notification URL is set.
 */
export interface Outbox {
  /**
   * @param before the record `after` replaces; absent for a new payment
   * @param after  the state machine's new record, as it is stored
   */
  deliveriesFor(before: Payment | undefined, after: Payment): Delivery[];
}

/**
 * The one place where what the domain decided is stored: merchants,
 * payments, orders and a delivery's status query (its `verifiedAt`), put in the order given inside the caller's unit of
 * work (`Store.transaction`), which makes them durable together (README,
 * "Durability levels"). A payment is put with the deliveries of its
 * notifications, which the outbox makes from the stored record and the one
 * it replaces: one change holds both, so a crash keeps both or neither.
 * @throws StoreUnavailableError when the store cannot write (nothing of a
 *   refused batch is kept); TypeError for a record its schema refuses (the
 *   records before it in the list are put).
 */
export function putWrites(store: Store, writes: readonly Write[], outbox?: Outbox): void {
  for (const write of writes) {
    if (write.kind === 'payment') store.putPayment(write.payment, outbox?.deliveriesFor(write.before, write.payment) ?? []);
    else if (write.kind === 'order') store.putOrder(write.order);
    else if (write.kind === 'delivery') store.putDelivery(write.delivery);
    else store.putMerchant(write.merchant);
  }
}
