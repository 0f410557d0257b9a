import { cardTokenOf } from '../domain/payments.js';
import type { Payment } from '../model/records.js';
import { maskRecordAtEntry } from '../redaction/entry.js';
import type { SnapshotRecords } from '../store/store.js';

/**
 * A snapshot's records as the store takes them (docs/decisions.md#d86-one-redaction-rule):
 * card numbers in what the file gave masked by the one rule, and every card's
 * token made again as the sandbox made it, whatever the file said (a snapshot
 * taken never holds one; a store file copied in does).
 */

/**
 * The first card whose BIN or last four is not what the sandbox keeps of a
 * card (6 and 4 digits: a full number there is refused, not masked), as the
 * field's place and what is wrong; undefined when every card is one.
 */
export function cardProblem(records: SnapshotRecords): string | undefined {
  for (const [index, payment] of (records.payments ?? []).entries()) {
    const card = (payment as { card?: unknown } | null)?.card;
    if (!isCard(card)) continue;
    if (typeof card.bin !== 'string' || !/^[0-9]{6}$/.test(card.bin)) return `/payments/${index}/card/bin must be the card's first 6 digits, not a longer number`;
    if (typeof card.last4 !== 'string' || !/^[0-9]{4}$/.test(card.last4)) return `/payments/${index}/card/last4 must be the card's last 4 digits, not a longer number`;
  }
  return undefined;
}

/**
 * The records of a snapshot to load: payments, orders and deliveries
 * masked at entry (`maskRecordAtEntry`), each card's `token` made from the
 * linkingReference of the payment its number was sent to (its own, or, for
 * a charge of a card again, its subscription's or its tokenisation's). A record that is
 * not an object is left for the store's schema to refuse.
 */
export function recordsAsLoaded(records: SnapshotRecords): SnapshotRecords {
  const payments = (records.payments ?? []).map((payment) => maskRecordAtEntry(payment));
  const tokenOf = cardTokens(payments);
  return {
    ...records,
    payments: payments.map((payment) => (isCard(payment.card) ? { ...payment, card: { bin: payment.card.bin, last4: payment.card.last4, token: tokenOf(payment) } } : payment)),
    orders: (records.orders ?? []).map((order) => maskRecordAtEntry(order)),
    deliveries: (records.deliveries ?? []).map((delivery) => maskRecordAtEntry(delivery)),
  };
}

const isCard = (card: unknown): card is { bin: string; last4: string } => typeof card === 'object' && card !== null && !Array.isArray(card);

// The token a payment's card has: the charges of a card again (src/domain/subscriptions.ts, bulk-charges.ts) keep their source's card.
function cardTokens(payments: readonly Payment[]): (payment: Payment) => string {
  const byReference = new Map<string, Payment>();
  const byCode = new Map<string, Payment>();
  for (const payment of payments) {
    if (typeof payment !== 'object' || payment === null) continue;
    byReference.set(`${payment.publicKey}\u0000${payment.paymentReference}`, payment);
    if (typeof payment.authorizationCode === 'string') byCode.set(`${payment.publicKey}\u0000${payment.authorizationCode}`, payment);
  }
  const sourceOf = (payment: Payment): Payment | undefined =>
    (typeof payment.recurring?.billingId === 'string' ? byReference.get(`${payment.publicKey}\u0000${payment.recurring.billingId}`) : undefined) ??
    (typeof payment.bulk?.authorizationCode === 'string' ? byCode.get(`${payment.publicKey}\u0000${payment.bulk.authorizationCode}`) : undefined);
  return (payment) => {
    let origin = payment;
    // A source is a payment whose number was sent; a few steps bound a chain a file may make circular.
    for (let step = 0; step < 4; step += 1) {
      const source = sourceOf(origin);
      if (source === undefined || source === origin) break;
      origin = source;
    }
    return cardTokenOf(String(origin.linkingReference));
  };
}
