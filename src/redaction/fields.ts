/**
 * Fields masked by their name, whatever their value: a value may be a secret
 * without looking like one (a CVV is three digits, an OTP six, a mistyped
 * card number fails the Luhn check). Names are those of the Payments API
 * document, the provider's own description and its SDKs (`cardNumber`,
 * `cvv`, `pin`, `otp` of `/payments/validate` and `/payments/momo/otp`), with
 * the spellings other clients use (`card_number`, `pan`, `cvc`, `cvv2`).
 * The expiry (`expiryMonth`, `expiryYear`) is not a secret on its own and
 * stays (README, "The journal").
 */

/** How a field is masked by its name: `card` keeps BIN and last four, `hidden` hides the whole value. */
export type FieldMask = 'card' | 'hidden';

const MASKS = new Map<string, FieldMask>();
for (const name of ['cardnumber', 'card_number', 'card-number', 'cardno', 'card_no', 'card-no', 'cardnum', 'card_num', 'card-num', 'pan']) MASKS.set(name, 'card');
for (const name of ['cvv', 'cvv2', 'cvc', 'cvc2', 'pin', 'otp']) MASKS.set(name, 'hidden');
// The names as clients usually write them, found without lower-casing.
for (const name of ['cardNumber', 'cardNo', 'CardNumber', 'PAN', 'CVV', 'CVV2', 'CVC', 'PIN', 'OTP']) MASKS.set(name, MASKS.get(name.toLowerCase())!);

// The lengths of those names, and their first letters in lower case (an ASCII letter's code with 0x20 set):
// most field names are ruled out by these alone, without a lower-cased copy.
const LENGTHS = new Set([...MASKS.keys()].map((name) => name.length));
const FIRST_LETTERS = new Set([...MASKS.keys()].map((name) => name.charCodeAt(0) | 0x20));

/**
 * How the field `name` is masked, compared in any case (`CVV`, `Pin`,
 * `CARD_NUMBER`); undefined for a field that is redacted by value only.
 */
export function maskOfField(name: string): FieldMask | undefined {
  if (!LENGTHS.has(name.length) || !FIRST_LETTERS.has(name.charCodeAt(0) | 0x20)) return undefined;
  return MASKS.get(name) ?? MASKS.get(name.toLowerCase());
}
