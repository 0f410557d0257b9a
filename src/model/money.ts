/**
 * Amounts travel as decimal strings in major units ("150.00"; spec,
 * Conventions). Inside the sandbox they are compared and added as whole minor
 * units so that no floating-point rounding can change an outcome.
 * The accepted form (up to 13 digits, up to 2 decimals) is decided in docs/decisions.md#d07-amounts.
 */

/** The pattern the OpenAPI document uses for every decimal amount. */
export const AMOUNT_PATTERN = /^[0-9]{1,13}(\.[0-9]{1,2})?$/;

/**
 * Minor units of a decimal amount string.
 * @throws Error when `amount` does not match AMOUNT_PATTERN (validation has
 *   already refused such a request, so this is a programming error).
 */
export function toMinor(amount: string): number {
  if (!AMOUNT_PATTERN.test(amount)) throw new Error(`not a decimal amount: ${amount}`);
  const [whole, fraction = ''] = amount.split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
}

/** The canonical two-decimal string of a minor-unit amount: 15000 -> "150.00". */
export function fromMinor(minor: number): string {
  const whole = Math.floor(minor / 100);
  const cents = String(minor % 100).padStart(2, '0');
  return `${whole}.${cents}`;
}

/** A decimal amount string rewritten in canonical form: "150" -> "150.00". */
export const normaliseAmount = (amount: string): string => fromMinor(toMinor(amount));

/** A decimal amount string as a JSON number, for the response fields the spec types as numbers. */
export const toNumber = (amount: string): number => toMinor(amount) / 100;
