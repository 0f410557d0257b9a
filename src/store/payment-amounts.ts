import { AMOUNT_PATTERN, toMinor } from '../model/money.js';
import type { Payment } from '../model/records.js';

/**
 * The invariants the state machine keeps on a payment's amounts
 * (src/domain/state-machine.ts), checked on every payment the store takes,
 * so that a snapshot or a log line cannot bring one it would never make:
 * each amount a decimal string in major units (docs/decisions.md#d07-amounts);
 * the amount above zero (#d45-zero-amounts-empty-references), but for a card
 * tokenised without one, kept at 0.00 (#d63-tokenize-card-checks); no more
 * captured than the amount; no more refunded than was charged (the captured
 * amount of a pre-authorisation, else the amount).
 * @param payment a record that fits the payment schema (its amounts are strings)
 * @param at the JSON Pointer of the record (`/payments/3`)
 * @returns the first problem, naming the field, the payment's reference and merchant; or undefined
 */
export function paymentAmountsProblem(payment: Payment, at: string): string | undefined {
  for (const field of ['amount', 'refundedAmount', 'capturedAmount'] as const) {
    const value = payment[field];
    if (value !== undefined && !AMOUNT_PATTERN.test(value)) {
      return `${at}/${field} ${named(payment)} is ${JSON.stringify(value)}, not a decimal amount in major units (up to 13 digits and 2 decimals, as "150.00")`;
    }
  }
  const amount = toMinor(payment.amount);
  if (amount === 0 && payment.method !== 'CARD') return `${at}/amount ${named(payment)} is ${JSON.stringify(payment.amount)}: an amount must be above zero`;
  const captured = payment.capturedAmount === undefined ? undefined : toMinor(payment.capturedAmount);
  if (captured !== undefined && captured > amount) {
    return `${at}/capturedAmount ${named(payment)} is ${payment.capturedAmount}, more than the amount ${payment.amount}`;
  }
  if (toMinor(payment.refundedAmount) > (captured ?? amount)) {
    const charged = captured === undefined ? `the amount ${payment.amount}` : `the captured amount ${payment.capturedAmount}`;
    return `${at}/refundedAmount ${named(payment)} is ${payment.refundedAmount}, more than ${charged}`;
  }
  return undefined;
}

// The payment a problem is of, written only when there is one: every put of a payment is checked.
const named = (payment: Payment): string => `(payment ${JSON.stringify(payment.paymentReference)} of merchant ${JSON.stringify(payment.publicKey)})`;
