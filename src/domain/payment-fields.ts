import { normaliseAmount } from '../model/money.js';
import { maskedAtEntry } from '../redaction/entry.js';
import { redactText } from '../redaction/redact.js';
import { walletDaysOf } from './due.js';
import { stringOf, textOf, type Body } from './request.js';

/**
 * What a request that creates a payment (initiate, hosted checkout link,
 * order, the card operations, a subscription) says of it, read once from its
 * validated body. Amounts are decimal strings in major units.
 */

/** The initiate fields a payment keeps as they were sent, card numbers masked: what the status query answers (never card data). */
export const KEPT_FIELDS = [
  'fullName', 'email', 'mobileNumber', 'productId', 'productDescription', 'redirectUrl', 'callbackUrl', 'channelType', 'deviceType', 'sourceIP', 'type',
] as const;

/** One of KEPT_FIELDS. */
export type KeptField = (typeof KEPT_FIELDS)[number];

/** The payment a request creates. */
export interface NewPaymentFields {
  paymentReference: string;
  /** normalised to two decimals, e.g. "150.00" */
  amount: string;
  currency: string;
  country: string;
  /** the KEPT_FIELDS the body carries, as text */
  kept: Partial<Record<KeptField, string>>;
  /** a card initiate's number: only its BIN and last four are ever stored */
  cardNumber?: string;
  /** a transfer's `walletDaysActive` as whole days, when it is one (src/domain/due.ts) */
  walletDaysActive?: number;
}

/** The facts of an operation that creates a payment. */
export interface NewPaymentFacts {
  newPayment: NewPaymentFields;
}

/**
 * The new payment's fields of a body the document validated.
 * @param card true when the body may carry a card's number (a card initiate, the card operations)
 */
export function newPaymentFields(body: Body, card: boolean): NewPaymentFields {
  const kept: Partial<Record<KeptField, string>> = {};
  for (const field of KEPT_FIELDS) {
    const value = body[field];
    // A card number sent in a name or description is kept masked (docs/decisions.md#d86-one-redaction-rule); URLs are kept whole, the customer is sent there.
    if (value !== undefined && value !== null) kept[field] = maskedAtEntry(field) ? redactText(String(value)) : String(value);
  }
  const fields: NewPaymentFields = {
    paymentReference: textOf(body, 'paymentReference'),
    amount: normaliseAmount(textOf(body, 'amount')),
    currency: textOf(body, 'currency'),
    country: textOf(body, 'country'),
    kept,
  };
  const cardNumber = card ? stringOf(body, 'cardNumber') : undefined;
  if (cardNumber !== undefined) fields.cardNumber = cardNumber;
  const walletDaysActive = walletDaysOf(body.walletDaysActive);
  if (walletDaysActive !== undefined) fields.walletDaysActive = walletDaysActive;
  return fields;
}
