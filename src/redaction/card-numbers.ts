/**
 * Card numbers found by value: 12 to 19 digits that pass the Luhn check are
 * what every payment card number is (ISO/IEC 7812-1), whatever the field,
 * JSON type or sentence they came in, and however they were written: in one
 * run, or in groups split by spaces, tabs, '-', '.', '_' or '/'.
 */

/** The shortest and longest card numbers (ISO/IEC 7812-1: 12 to 19 digits). */
const CARD_DIGITS = { min: 12, max: 19 };

/** The longest card number field value masked digit by digit, in characters: 19 digits in groups, with room for blanks. */
const CARD_FIELD_MAX = 64;

/**
 * What may stand between two groups of a card number as people write them:
 * one to three of space, tab, no-break space, '-', '.', '_', '/' (`5123 4500`,
 * `5123  4500`, `5123 - 4500`, `5123.4500`), mixed as they come.
 */
const SEPARATOR = '[ \\t\\u00a0._/-]{1,3}';

// Groups of digits joined by separators, starting at a group of four digits or more (no card
// number is written starting with a shorter one): the only places a card number can be.
const CHAIN = new RegExp(`(?<!\\d)\\d{4,}(?:${SEPARATOR}\\d+)*`, 'g');
// The cheap test before the scan: every chain starts with four digits in a row.
const FOUR_DIGITS = /\d{4}/;
const DIGIT = /\d/g;
// The separators one by one, for a value read a character at a time.
const SEPARATOR_CODES = new Set([' ', '\t', '\u00a0', '.', '_', '/', '-'].map((character) => character.charCodeAt(0)));

/**
 * Whether a string of digits passes the Luhn check.
 * @param digits only the characters 0-9
 * @returns true when the check digit is right; false for an empty string
 */
export function passesLuhn(digits: string): boolean {
  return luhnOver(digits, 0, digits.length) && digits.length > 0;
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
 * The value of a field that holds a card number by its name (`cardNumber`,
 * `pan`: README, "The journal"), masked whatever it is: digits, alone or in
 * groups, keep the first six and the last four (`5123 45** **** 0008`; all
 * hidden when there are 10 or fewer), Luhn-valid or not; anything else, or
 * a value longer than CARD_FIELD_MAX characters, is `hidden` whole.
 * @param value the field's value as it came (a string, a JSON number, ...)
 * @param hidden what stands for a value that is not written in digits
 */
export function maskCardField(value: unknown, hidden: string): string {
  const text = typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint' ? String(value) : undefined;
  // Longer than any card number written in groups: hidden whole, without reading a client's megabyte.
  if (text === undefined || text.length > CARD_FIELD_MAX) return hidden;
  let digits = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (isDigit(code)) digits += 1;
    else if (!SEPARATOR_CODES.has(code)) return hidden;
  }
  if (digits === text.length) return maskCard(text);
  if (digits <= 10) return text.replace(DIGIT, '*');
  return starDigits(text, 0, text.length, 6, digits - 4);
}

/**
 * `text` with every card number in it masked to its BIN and last four: 12-19
 * digits that pass the Luhn check, in one run or in groups (the separators
 * stay: `5123 45** **** 0008`). A group of digits is four or more for the
 * first, three or more for the others but the last; so an amount
 * (`1500.00`), a date or an IP address is not read as part of a number.
 * Other digits are left alone; text without a card number is returned as it is.
 */
export function maskCardNumbers(text: string): string {
  // Cheap exit: most strings hold no four digits in a row, so no chain.
  if (!FOUR_DIGITS.test(text)) return text;
  // Character ranges of `text` whose digits become '*', in order, disjoint.
  let starred: number[] | undefined;
  CHAIN.lastIndex = 0;
  for (let chain = CHAIN.exec(text); chain !== null; chain = CHAIN.exec(text)) {
    // Fewer than 12 characters cannot hold 12 digits.
    if (chain[0].length < CARD_DIGITS.min) continue;
    starred = findCards(text, chain.index, chain.index + chain[0].length, starred);
  }
  if (starred === undefined) return text;
  let masked = '';
  let from = 0;
  for (let range = 0; range < starred.length; range += 2) {
    masked += text.slice(from, starred[range]) + text.slice(starred[range], starred[range + 1]).replace(DIGIT, '*');
    from = starred[range + 1]!;
  }
  return masked + text.slice(from);
}

/**
 * The card numbers of one chain of groups `text[start, end)`, added to
 * `starred` as the character ranges of their middle digits. From each group
 * that may start a number, the longest run of groups that is one and holds no
 * digit already hidden is taken: so every card number in the chain has at
 * least its own middle digits hidden (a longer number from the same group
 * hides them too), while a second number read across two real ones cannot
 * hide the last four of the first.
 */
function findCards(text: string, start: number, end: number, starred: number[] | undefined): number[] | undefined {
  // Where each group starts and ends, and its digits: a chain of 12+ characters is rare, so arrays are fine here.
  const starts: number[] = [];
  const ends: number[] = [];
  for (let index = start; index < end; ) {
    const group = index;
    while (index < end && isDigit(text.charCodeAt(index))) index += 1;
    starts.push(group);
    ends.push(index);
    while (index < end && !isDigit(text.charCodeAt(index))) index += 1;
  }
  // The groups a number from `first` may end at, each with its count of digits.
  const candidates: number[] = [];
  for (let first = 0; first < starts.length; first += 1) {
    if (ends[first]! - starts[first]! < 4) continue;
    candidates.length = 0;
    let digits = 0;
    for (let last = first; last < starts.length; last += 1) {
      const size = ends[last]! - starts[last]!;
      digits += size;
      if (digits > CARD_DIGITS.max) break;
      if (digits >= CARD_DIGITS.min) candidates.push(last, digits);
      // A short group can only end a number.
      if (last > first && size < 3) break;
    }
    for (let candidate = candidates.length - 2; candidate >= 0; candidate -= 2) {
      const from = starts[first]!;
      const to = ends[candidates[candidate]!]!;
      if (overlaps(starred, from, to) || !luhnOver(text, from, to)) continue;
      const count = candidates[candidate + 1]!;
      const middle = digitRange(text, from, to, 6, count - 4);
      (starred ??= []).push(middle[0], middle[1]);
      break;
    }
  }
  return starred;
}

// Whether `text[from, to)` holds a digit of the ranges already hidden (kept in order and disjoint).
function overlaps(starred: number[] | undefined, from: number, to: number): boolean {
  if (starred === undefined) return false;
  for (let range = starred.length - 2; range >= 0 && starred[range + 1]! > from; range -= 2) {
    if (starred[range]! < to) return true;
  }
  return false;
}

// The character range of `text[from, to)` that holds its digits number `keep` (0-based) to `until` (excluded).
function digitRange(text: string, from: number, to: number, keep: number, until: number): [number, number] {
  let seen = 0;
  let begin = from;
  for (let index = from; index < to; index += 1) {
    if (!isDigit(text.charCodeAt(index))) continue;
    if (seen === keep) begin = index;
    seen += 1;
    if (seen === until) return [begin, index + 1];
  }
  return [begin, to];
}

// `text[from, to)` with its digits number `keep` (0-based) to `until` (excluded) as '*', the rest as it is.
function starDigits(text: string, from: number, to: number, keep: number, until: number): string {
  const [begin, end] = digitRange(text, from, to, keep, until);
  return text.slice(from, begin) + text.slice(begin, end).replace(DIGIT, '*') + text.slice(end, to);
}

// The Luhn check over the digits of `text[from, to)`, separators skipped; no copy made.
function luhnOver(text: string, from: number, to: number): boolean {
  let sum = 0;
  let position = 0;
  for (let index = to - 1; index >= from; index -= 1) {
    const code = text.charCodeAt(index);
    if (!isDigit(code)) continue;
    let digit = code - 48;
    if (position % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    position += 1;
  }
  return sum % 10 === 0;
}

const isDigit = (code: number): boolean => code >= 48 && code <= 57;
