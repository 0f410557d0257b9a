/**
 * Card numbers found by value: a run of 12 to 19 digits that passes the Luhn
 * check is what every payment card number is (ISO/IEC 7812-1), whatever the
 * field, JSON type or sentence it came in.
 */

/** The shortest and longest card numbers (ISO/IEC 7812-1: 12 to 19 digits). */
const CARD_DIGITS = { min: 12, max: 19 };

// Digits written in groups, as people type them: 5123 4500 0000 0008, 3782-822463-10005.
const GROUPED = /(?<!\d)\d{4}([ -])\d{4,6}(?:\1\d{4,5}){1,2}(?:\1\d{1,4})?(?!\d)/g;
const RUN = /\d+/g;

/**
 * Whether a string of digits passes the Luhn check.
 * @param digits only the characters 0-9
 * @returns true when the check digit is right; false for an empty string
 */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let index = 0; index < digits.length; index += 1) {
    let digit = digits.charCodeAt(digits.length - 1 - index) - 48;
    if (index % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/**
 * A card number as `512345******0008`: the BIN and the last four kept, as
 * receipts and the provider's maskedPan show them, so a payment can still be
 * told apart. Numbers of 10 digits or fewer are hidden whole.
 */
export const maskCard = (number: string): string =>
  number.length <= 10 ? '*'.repeat(number.length) : `${number.slice(0, 6)}${'*'.repeat(number.length - 10)}${number.slice(-4)}`;

/** A stored card (BIN and last four) as a masked 16-digit number, `512345******0008`: how the dashboard and the pages show it. */
export const maskStoredCard = (card: { bin: string; last4: string }): string => maskCard(`${card.bin}${'0'.repeat(6)}${card.last4}`);

/**
 * `text` with every card number in it masked to its BIN and last four: a
 * 12-19 digit run that passes the Luhn check, or such digits in groups split
 * by spaces or hyphens (the separators stay). Other digits are left alone.
 */
export function maskCardNumbers(text: string): string {
  // Cheap exit: most strings hold no run long enough to be a card number.
  if (!/\d{4}/.test(text)) return text;
  const grouped = text.replace(GROUPED, (found) => {
    const digits = found.replace(/\D/g, '');
    if (!isCardNumber(digits)) return found;
    let seen = 0;
    return found.replace(/\d/g, (digit) => {
      seen += 1;
      return seen > 6 && seen <= digits.length - 4 ? '*' : digit;
    });
  });
  return grouped.replace(RUN, (digits) => (isCardNumber(digits) ? maskCard(digits) : digits));
}

const isCardNumber = (digits: string): boolean => digits.length >= CARD_DIGITS.min && digits.length <= CARD_DIGITS.max && passesLuhn(digits);
