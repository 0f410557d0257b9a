import { createHash } from 'node:crypto';
import { fromMinor, toMinor, toNumber } from '../model/money.js';
import type { NotificationEventType } from '../model/notifications.js';
import type { Payment } from '../model/records.js';

/**
 * The notifications a payment's change causes, in the provider's shape
 * (the provider's webhook page; README, "Notifications"). Built from
 * the stored record the state machine returned and the one it replaced;
 * never from a request.
 */

/** An event before its delivery is made: the outbox gives it its eventId and eventDate. */
export interface EventDraft {
  eventType: NotificationEventType;
  data: Record<string, unknown>;
}

/** The business name the sandbox's merchants have in notifications: the provider sends the merchant's. */
export const SANDBOX_BUSINESS_NAME = 'Sandbox Test Business';

/**
 * The events of one change: a `transaction` when a payment resolves (it
 * leaves PENDING, or is created resolved: succeeded, failed, cancelled,
 * expired, authorised, charged, tokenized), and when a pre-authorisation
 * moves on (a capture, a cancel that voids it, its expiry), a `refund` when its
 * refunded amount grows. A charge of a subscription's card is a
 * `transaction.recurrent` (scheduled) or a `transaction.recurring.debit`
 * (POST /recurring/charge) instead of a `transaction`. A payment created or
 * left PENDING causes none. The
 * provider names events for successes, failures and refunds; those for
 * cancelled and expired payments and for the moves of a pre-authorisation
 * are decided in docs/decisions.md#d36-cancel-expiry-notifications,
 * docs/decisions.md#d40-pending-lifetimes and docs/decisions.md#d57-preauth-notifications.
 * @param before the record `after` replaces; absent for a new payment
 */
export function eventsOf(before: Payment | undefined, after: Payment): EventDraft[] {
  const events: EventDraft[] = [];
  const resolved = after.status !== 'PENDING' && (before === undefined || before.status === 'PENDING');
  const captured = before !== undefined && toMinor(after.capturedAmount ?? '0.00') > toMinor(before.capturedAmount ?? '0.00');
  // An authorisation that ends with nothing captured: voided by a cancel, or expired.
  const released = before?.status === 'AUTHORIZED' && (after.status === 'CANCELLED' || after.status === 'EXPIRED');
  if (resolved || captured || released) events.push(after.recurring ? recurringEvent(after) : { eventType: 'transaction', data: transactionData(after) });
  const refunded = toMinor(after.refundedAmount) - (before ? toMinor(before.refundedAmount) : 0);
  if (refunded > 0) events.push({ eventType: 'refund', data: refundData(after, refunded) });
  return events;
}

/**
 * The data of a `transaction` event, fields and types as in the provider's
 * sample: `amount` a JSON number, `createdAt` ISO 8601 with a `T` and no
 * zone, `maskedPan` `5123-45xx-xxxx-0008`. What the sandbox does not know (a
 * fee, a narration) is an empty string or zero, as the sample's empty fields are.
 */
export function transactionData(payment: Payment): Record<string, unknown> {
  const card = payment.card;
  // A captured pre-authorisation tells what was taken so far; before, what was authorised.
  const charged = payment.status === 'PARTIALLY_CAPTURED' || payment.status === 'CAPTURED' ? (payment.capturedAmount ?? payment.amount) : payment.amount;
  const data: Record<string, unknown> = {
    amount: toNumber(charged),
    mobile: payment.mobileNumber ?? '',
    reference: payment.paymentReference,
    gatewayMessage: payment.message,
    publicKey: payment.publicKey,
    businessName: SANDBOX_BUSINESS_NAME,
    fee: '0.00',
    productId: payment.productId ?? '',
    channelType: payment.channelType ?? channelOf(payment),
    maskedPan: card ? maskedPanOf(card) : '',
    sourceIP: payment.sourceIP ?? '',
    deviceType: payment.deviceType ?? '',
    fullname: payment.fullName ?? '',
    email: payment.email ?? '',
    gatewayReference: gatewayReferenceOf(payment),
    country: payment.country,
    currency: payment.currency,
    narration: payment.productDescription ?? '',
    createdAt: payment.createdAt.slice(0, 19),
    updatedAt: payment.updatedAt.slice(0, 23),
    lastFourDigits: card?.last4 ?? '',
    cardBin: card?.bin ?? '',
    reason: payment.message,
    paymentType: paymentTypeOf(payment),
    gatewayCode: payment.code,
    code: payment.code,
  };
  // A transfer is paid into an account opened for it: the provider's virtual-account events name it.
  if (payment.transfer && (payment.method === 'TRANSFER' || payment.channel === 'TRANSFER')) {
    data.creditAccountNumber = payment.transfer.accountNumber;
    data.creditAccountName = payment.transfer.walletName;
  }
  return data;
}

/**
 * The event of a charge of a subscription's card, fields and types as in the
 * provider's samples (its webhook page, 7.5 and 7.6): `amount` a string,
 * no `currency`, `gatewayCode` or `code` in a `transaction.recurrent`. Both
 * carry `gatewayMessage`, so that a declined charge can be told from a paid
 * one (the recurrent sample, of a paid charge, has none: README, "Subscriptions").
 */
export function recurringEvent(payment: Payment): EventDraft {
  const card = payment.card;
  const common = {
    amount: payment.amount,
    reference: payment.paymentReference,
    gatewayMessage: payment.message,
    publicKey: payment.publicKey,
    maskedPan: card ? maskedPanOf(card) : '',
    email: payment.email ?? '',
    gatewayReference: gatewayReferenceOf(payment),
    country: payment.country,
    createdAt: payment.createdAt.slice(0, 19),
    updatedAt: payment.updatedAt.slice(0, 23),
  };
  if (payment.recurring?.kind === 'debit') {
    const description = payment.productDescription ?? 'Authorised charge';
    return {
      eventType: 'transaction.recurring.debit',
      data: { ...common, description, channelType: 'Recurring Debit', type: 'TOKEN', fullname: payment.fullName ?? '', currency: payment.currency, narration: description, paymentType: 'card' },
    };
  }
  return {
    eventType: 'transaction.recurrent',
    data: {
      ...common,
      mobile: payment.mobileNumber ?? '',
      description: payment.productDescription ?? '',
      productId: payment.productId ?? '',
      // The provider's sample spells it so.
      narration: 'Reccurrent',
      lastFourDigits: card?.last4 ?? '',
      cardBin: card?.bin ?? '',
    },
  };
}

/**
 * The data of an event of `eventType` for a payment as it stands (a
 * notification triggered on demand): a `refund` of all that was refunded of it.
 * @throws RangeError for a refund of a payment with nothing refunded
 */
export function eventDataOf(payment: Payment, eventType: NotificationEventType): Record<string, unknown> {
  if (eventType === 'transaction') return transactionData(payment);
  if (eventType === 'refund') {
    const refunded = toMinor(payment.refundedAmount);
    if (refunded === 0) throw new RangeError(`payment ${payment.paymentReference} has no refund to notify`);
    return refundData(payment, refunded);
  }
  if (eventType === 'dispute') return disputeData(payment);
  const kind = eventType === 'transaction.recurring.debit' ? 'debit' : 'scheduled';
  return recurringEvent({ ...payment, recurring: { billingId: payment.recurring?.billingId ?? payment.paymentReference, kind } }).data;
}

/**
 * The data of a `dispute` event. The provider's sample holds only
 * `evidence[].images[].image`; the sandbox adds the payment's `reference`
 * and `publicKey`, as its `transaction` events carry them, so a receiver can
 * tell which payment is disputed (docs/decisions.md#d87-go-live-report).
 */
export function disputeData(payment: Payment): Record<string, unknown> {
  return {
    reference: payment.paymentReference,
    publicKey: payment.publicKey,
    amount: payment.amount,
    currency: payment.currency,
    evidence: [{ images: [{ image: '' }] }],
  };
}

/** A card's number as the provider's notifications mask it: `5123-45xx-xxxx-0008`. */
export const maskedPanOf = (card: { bin: string; last4: string }): string => `${card.bin.slice(0, 4)}-${card.bin.slice(4, 6)}xx-xxxx-${card.last4}`;

/**
 * The data of a `refund` event, as in the provider's sample: `amount` a
 * string (this refund's, major units), times in the space form, `type`
 * FULL_REFUND when the payment is now refunded in full, else PARTIAL_REFUND.
 * @param amountMinor this refund's amount in minor units
 */
export function refundData(payment: Payment, amountMinor: number): Record<string, unknown> {
  const at = spaceForm(payment.updatedAt);
  return {
    amount: fromMinor(amountMinor),
    createdAt: at,
    transactionRef: payment.paymentReference,
    description: `Refund of ${payment.paymentReference}`,
    type: payment.status === 'REFUNDED' ? 'FULL_REFUND' : 'PARTIAL_REFUND',
    mode: 'TEST',
    updatedAt: at,
  };
}

/** An ISO 8601 UTC time in the provider's `yyyy-MM-dd HH:mm:ss` form (its eventDate). */
export function spaceForm(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}

// The card scheme the BIN names, as the provider's channelType does; the method for payments without a card.
function channelOf(payment: Payment): string {
  const bin = payment.card?.bin;
  if (bin === undefined) return payment.channel ?? payment.method;
  return cardSchemeOf(bin);
}

/** The card scheme a BIN names, in the provider's words (its `channelType`, `cardType`): VISA, MASTERCARD, VERVE, or CARD. */
export function cardSchemeOf(bin: string): string {
  if (bin.startsWith('4')) return 'VISA';
  if (/^(5[1-5]|2[2-7])/.test(bin)) return 'MASTERCARD';
  if (/^(506|507|650)/.test(bin)) return 'VERVE';
  return 'CARD';
}

// A checkout or an order is paid the way the customer chose on the page.
function paymentTypeOf(payment: Payment): string {
  if (payment.method === 'CHECKOUT' || payment.method === 'ORDER') return payment.channel ?? 'CARD';
  return payment.method;
}

// Stable per payment, in the provider's style (`SEERLFN8WWTSILB7ZG7`): the same payment always shows the same one.
function gatewayReferenceOf(payment: Payment): string {
  return `SB${createHash('sha256').update(payment.linkingReference).digest('hex').slice(0, 17).toUpperCase()}`;
}
