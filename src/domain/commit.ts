import type { Store } from '../store/store.js';
import type { Write } from './answer.js';

/**
 * The one place where what the domain decided is stored: merchants,
 * payments and orders. The records are put at once, so the next request
 * sees them, in the order given; the promise resolves once they are in the
 * store's log (README, "Durability levels").
 * @throws StoreUnavailableError (at once, or as the rejection) when the
 *   store cannot write (nothing of a refused batch is kept); TypeError for a
 *   record its schema refuses (the records before it in the list are put).
 */
export function commitWrites(store: Store, writes: readonly Write[]): Promise<void> {
  for (const write of writes) {
    if (write.kind === 'payment') store.putPayment(write.payment);
    else if (write.kind === 'order') store.putOrder(write.order);
    else store.putMerchant(write.merchant);
  }
  return store.commit();
}
