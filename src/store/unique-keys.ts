import type { Delivery } from '../model/notifications.js';
import type { Payment } from '../model/records.js';

/**
 * What the store already holds under the keys that name one record across
 * every merchant: the tables' indexes (tables.ts), which the customer pages,
 * POST /payments/validate and the control API's delivery look-up read.
 */
export interface HeldKeys {
  /** the payment with this linkingReference, whoever's it is */
  paymentWithLinkingReference(linkingReference: string): Payment | undefined;
  /** the delivery with this id, whoever's it is */
  delivery(id: string): Delivery | undefined;
}

/**
 * The keys the state machine keeps unique across all merchants, checked on
 * the records of a state being loaded (a snapshot, a replace), one record at
 * a time, so that no record can take another's place in those indexes: a
 * payment's `linkingReference` (an HMAC of its merchant's key and reference,
 * docs/decisions.md#d09-linking-reference) and a delivery's `id` (random).
 * A record whose keys repeat an earlier one's whole (the same merchant and
 * reference, or the same merchant and delivery id) is left to the tables,
 * which name it as held twice. With `held`, a state of one merchant is also
 * checked against the records of the other merchants the store keeps (its
 * own are the ones it replaces).
 */
export class UniqueKeys {
  private readonly links = new Map<string, Payment>();
  private readonly ids = new Map<string, Delivery>();

  /**
   * @param held what the store holds, and the merchant whose records the
   *   state replaces; absent for a whole state, which replaces every record
   */
  constructor(private readonly held?: { keys: HeldKeys; publicKey: string }) {}

  /**
   * @param payment a record that fits the payment schema
   * @param at the JSON Pointer of the record (`/payments/3`)
   * @returns the problem, naming the field, the payment's reference and merchant and the record that holds the key; or undefined
   */
  payment(payment: Payment, at: string): string | undefined {
    const link = payment.linkingReference;
    const before = this.links.get(link);
    if (before) {
      if (before.publicKey === payment.publicKey && before.paymentReference === payment.paymentReference) return undefined;
      return `${at}/linkingReference (${paymentOf(payment)}) is ${JSON.stringify(link)}, as is that of the ${paymentOf(before)} before it: ${ONE_PAYMENT}`;
    }
    this.links.set(link, payment);
    const other = this.held?.keys.paymentWithLinkingReference(link);
    if (other && other.publicKey !== this.held!.publicKey) {
      return `${at}/linkingReference (${paymentOf(payment)}) is ${JSON.stringify(link)}, the linkingReference of the ${paymentOf(other)} the sandbox holds: ${ONE_PAYMENT}`;
    }
    return undefined;
  }

  /**
   * @param delivery a record that fits the delivery schema
   * @param at the JSON Pointer of the record (`/deliveries/3`)
   * @returns the problem, naming the field, the delivery's merchant and the record that holds the id; or undefined
   */
  delivery(delivery: Delivery, at: string): string | undefined {
    const before = this.ids.get(delivery.id);
    if (before) {
      if (before.publicKey === delivery.publicKey) return undefined;
      return `${at}/id (${deliveryOf(delivery)}) is ${JSON.stringify(delivery.id)}, as is that of the ${deliveryOf(before)} before it: ${ONE_DELIVERY}`;
    }
    this.ids.set(delivery.id, delivery);
    const other = this.held?.keys.delivery(delivery.id);
    if (other && other.publicKey !== this.held!.publicKey) {
      return `${at}/id (${deliveryOf(delivery)}) is ${JSON.stringify(delivery.id)}, the id of the ${deliveryOf(other)} the sandbox holds: ${ONE_DELIVERY}`;
    }
    return undefined;
  }
}

const ONE_PAYMENT = 'a linkingReference names one payment across all merchants';
const ONE_DELIVERY = 'a delivery id names one delivery across all merchants';
const paymentOf = (payment: Payment): string => `payment ${JSON.stringify(payment.paymentReference)} of merchant ${JSON.stringify(payment.publicKey)}`;
const deliveryOf = (delivery: Delivery): string => `delivery for payment ${JSON.stringify(delivery.paymentReference)} of merchant ${JSON.stringify(delivery.publicKey)}`;
