import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maskCard, maskCardNumbers } from '../../../src/redaction/card-numbers.js';
import { redactText } from '../../../src/redaction/redact.js';

/**
 * Card numbers in free text (README, "The journal"): 12-19 digits that pass
 * the Luhn check are masked to their BIN and last four however they are
 * written: in one run, or in groups split by spaces, tabs, '-', '.', '_' or
 * '/', mixed as they come. Other digits are left alone.
 */

// What people put between the groups of a card number, one to three of them.
const SEPARATOR_CHARACTERS = [' ', '\t', '\u00a0', '-', '.', '_', '/'];
const SEPARATORS = /[ \t\u00a0._/-]/g;

// A card number: 12-19 digits whose last is the Luhn check digit.
const cardNumber = fc
  .integer({ min: 12, max: 19 })
  .chain((length) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: length - 1, maxLength: length - 1 }))
  .map((body) => body.join('') + checkDigit(body.join('')));

// Group sizes as card numbers are written: the first four or more, the others three or more but the last.
const grouping = fc.array(fc.integer({ min: 3, max: 8 }), { minLength: 0, maxLength: 6 });
const separator = fc.array(fc.constantFrom(...SEPARATOR_CHARACTERS), { minLength: 1, maxLength: 3 }).map((characters) => characters.join(''));
// Words around the number: anything but digits, which would make it another number, and '_', which
// could make it part of one of the sandbox's own identifiers (SBLNK_...), left whole by design.
const words = fc.string({ maxLength: 12 }).map((text) => text.replace(/[\d_]/g, 'x'));

function checkDigit(body: string): string {
  for (let digit = 0; digit <= 9; digit += 1) {
    let sum = 0;
    const number = body + digit;
    for (let index = 0; index < number.length; index += 1) {
      let value = Number(number[number.length - 1 - index]);
      if (index % 2 === 1) value = value * 2 > 9 ? value * 2 - 9 : value * 2;
      sum += value;
    }
    if (sum % 10 === 0) return String(digit);
  }
  throw new Error('no check digit');
}

// `digits` cut in groups of the sizes asked (the first at least four), joined by the separators given.
function written(digits: string, sizes: number[], separators: string[]): string {
  const groups: string[] = [];
  let at = 0;
  for (const size of [Math.max(4, sizes[0] ?? digits.length), ...sizes.slice(1)]) {
    if (at >= digits.length) break;
    groups.push(digits.slice(at, at + size));
    at += size;
  }
  if (at < digits.length) groups.push(digits.slice(at));
  return groups.map((group, index) => (index === 0 ? group : `${separators[index % separators.length]}${group}`)).join('');
}

describe('card numbers in free text', () => {
  it('masks the groupings cards are written in, with any common separator, keeping BIN and last four; other digits stay', () => {
    const cases: Array<[string, string]> = [
      ['5123.4500.0000.0008', '5123.45**.****.0008'],
      ['5123_4500_0000_0008', '5123_45**_****_0008'],
      ['5123/4500/0000/0008', '5123/45**/****/0008'],
      ['5123\t4500\t0000\t0008', '5123\t45**\t****\t0008'],
      ['5123  4500  0000  0008', '5123  45**  ****  0008'],
      ['5123 - 4500 - 0000 - 0008', '5123 - 45** - **** - 0008'],
      ['51234500 00000008', '512345** ****0008'],
      ['3782.822463.10005', '3782.82****.*0005'],
      ['4111-1111 1111.1111', '4111-11** ****.1111'],
      ['6011\u00a01111\u00a01111\u00a01117', '6011\u00a011**\u00a0****\u00a01117'],
      ['card: 4111_1111_1111_1111, thanks', 'card: 4111_11**_****_1111, thanks'],
    ];
    for (const [text, masked] of cases) expect(maskCardNumbers(text), JSON.stringify(text)).toBe(masked);
    // Digits that are no card number: amounts, dates, addresses, phone numbers, too short, failing Luhn.
    for (const text of [
      '1500.00 2000.00 3500.00',
      '2025/03/14 10.30',
      '2025-03-14T09:00:00.000Z',
      '192.168.100.200',
      '+234 803 123 4567',
      '5123.4500.0000.0009',
      '4111 1111 111',
      'v1.2.3_4567',
    ]) {
      expect(maskCardNumbers(text), text).toBe(text);
    }
  });

  it('masks each of two numbers written one after the other, each keeping its own last four', () => {
    expect(maskCardNumbers('5123 4500 0000 0008 / 3782-822463-10005')).toBe('5123 45** **** 0008 / 3782-82****-*0005');
    expect(maskCardNumbers('4111.1111.1111.1111 5123.4500.0000.0008')).toBe('4111.11**.****.1111 5123.45**.****.0008');
  });

  it('for any card number and any mix of separators, the masked text never holds its digits and keeps BIN and last four; text without one is unchanged', () => {
    fc.assert(
      fc.property(cardNumber, grouping, fc.array(separator, { minLength: 1, maxLength: 6 }), words, words, (digits, sizes, separators, before, after) => {
        const number = written(digits, sizes, separators);
        const text = `${before}${number}${after}`;
        for (const masked of [maskCardNumbers(text), redactText(text)]) {
          expect(masked).not.toContain(digits);
          expect(masked.replace(SEPARATORS, '')).not.toContain(digits);
        }
        const masked = maskCardNumbers(text);
        // One character for one: the number's place in the text, its separators stripped, is its mask.
        expect(masked.slice(before.length, before.length + number.length).replace(SEPARATORS, '')).toBe(maskCard(digits));
        expect(maskCardNumbers(masked)).toBe(masked);
      }),
      { numRuns: 2000 },
    );
    // And text whose runs of digits and separators hold fewer than 12 digits is left as it is.
    const group = fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 5 }).map((digits) => digits.join(''));
    const shortNumber = fc.tuple(group, separator, group).map((parts) => parts.join(''));
    const word = fc.string({ minLength: 1, maxLength: 8 }).map((text) => text.replace(/[\d \t\u00a0._/-]/g, 'x'));
    fc.assert(
      fc.property(fc.array(fc.oneof(word, fc.tuple(word, shortNumber).map(([w, n]) => w + n)), { maxLength: 10 }), (parts) => {
        const text = parts.join('');
        expect(maskCardNumbers(text)).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });
});
