import { describe, expect, it } from 'vitest';
import { maskOfField } from '../../../src/redaction/fields.js';
import { redactValue } from '../../../src/redaction/value.js';

/**
 * Fields masked by their name, whatever their value (README, "The journal"):
 * card number fields keep BIN and last four even when the number fails the
 * Luhn check; CVV, PIN and OTP fields are `***`.
 */

describe('fields masked by their name', () => {
  it('knows the card, CVV, PIN and OTP fields of the API, the provider and common clients, in any case', () => {
    for (const name of ['cardNumber', 'CARD_NUMBER', 'card_number', 'card-number', 'cardNo', 'pan', 'PAN']) expect(maskOfField(name), name).toBe('card');
    for (const name of ['cvv', 'CVV', 'cvv2', 'cvc', 'Cvc2', 'pin', 'PIN', 'otp', 'OTP']) expect(maskOfField(name), name).toBe('hidden');
    for (const name of ['maskedPan', 'cardBin', 'isCvv', 'expiryMonth', 'expiryYear', 'paymentType', 'publicKey', 'country', 'pinned', 'options', '']) {
      expect(maskOfField(name), name).toBeUndefined();
    }
  });

  it('masks an OTP, a CVV and a card number that fails the Luhn check, at any depth, whatever their type', () => {
    const body = {
      linkingReference: 'SBLNK_0123456789abcdef',
      otp: '123456',
      cardNumber: '5123450000000009',
      card: { pan: 4111111111111112, card_number: '4111 1111 1111 1112', cvc: 123, CVV2: '999', OTP: ['1', '2'] },
      expiryMonth: '09',
      expiryYear: '30',
    };
    expect(redactValue(body)).toEqual({
      linkingReference: 'SBLNK_0123456789abcdef',
      otp: '***',
      cardNumber: '512345******0009',
      card: { pan: '411111******1112', card_number: '4111 11** **** 1112', cvc: '***', CVV2: '***', OTP: '***' },
      expiryMonth: '09',
      expiryYear: '30',
    });
  });

  it('hides a card number field whole when it is not written in digits, and a short one digit by digit', () => {
    expect(redactValue({ cardNumber: 'not-a-card', pan: { number: '4111111111111111' }, card_no: '1234 5678' })).toEqual({ cardNumber: '***', pan: '***', card_no: '**** ****' });
    expect(redactValue({ cardNumber: ' 4111 1111 1111 1112 ', pan: '4'.repeat(100_000) })).toEqual({ cardNumber: ' 4111 11** **** 1112 ', pan: '***' });
  });
});
