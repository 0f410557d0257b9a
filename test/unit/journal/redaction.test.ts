import { inProcess } from '../../support/in-process.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { maskCardNumbers, passesLuhn } from '../../../src/redaction/card-numbers.js';
import { redactHeaders, redactText } from '../../../src/redaction/redact.js';
import { redactValue } from '../../../src/redaction/value.js';
import { ControlClient } from '../../support/control.js';
import { accountPayment, ApiClient, cardPayment, momoPayment, sandboxForTest, type TestMerchant } from '../../support/sandbox.js';

/**
 * Redaction by value: whatever field, JSON type, header or query parameter a
 * client puts a card number or a credential in, the journal never holds it.
 */

describe('card numbers by value', () => {
  it('knows a Luhn-valid number from one digit off', () => {
    for (const valid of ['5123450000000008', '4111111111111111', '4000000000000002', '378282246310005', '6011111111111117']) expect(passesLuhn(valid), valid).toBe(true);
    for (const invalid of ['5123450000000009', '4111111111111112', '']) expect(passesLuhn(invalid), invalid).toBe(false);
  });

  it('masks 12-19 digit Luhn runs anywhere in a text, and grouped numbers, keeping BIN and last four', () => {
    expect(maskCardNumbers('paid with 4111111111111111 today')).toBe('paid with 411111******1111 today');
    expect(maskCardNumbers('card:5123450000000008,again:5123450000000008')).toBe('card:512345******0008,again:512345******0008');
    expect(maskCardNumbers('5123 4500 0000 0008 / 3782-822463-10005')).toBe('5123 45** **** 0008 / 3782-82****-*0005');
    expect(maskCardNumbers('x4111111111111111x')).toBe('x411111******1111x');
  });

  it('leaves digits alone that are not a card number: too short, too long, or failing Luhn', () => {
    for (const text of ['41111111111', '41111111111111111111', '5123450000000009', 'ref 1741944000001', '2025-03-14T09:00:00.000Z', '+234 803 123 4567']) {
      expect(maskCardNumbers(text), text).toBe(text);
    }
  });
});

describe('redactText and redactValue', () => {
  it('hides secret keys, bearer tokens and card tokens anywhere in a string, keeping their prefix; twice changes nothing', () => {
    const text = 'key=SBTESTSECK_8vNc3YhQ1wFj6TbE.SBTESTPUBK_t4G7sQ0pX9mZ2kLr live SBSECK_Jd82kLq0Zm4Xw7Pc token "SBTOKEN_U0JURVNU.abc123" card SBCTK_0a1b2c';
    const redacted = redactText(text);
    expect(redacted).toBe('key=SBTESTSECK_[redacted].SBTESTPUBK_t4G7sQ0pX9mZ2kLr live SBSECK_[redacted] token "SBTOKEN_[redacted]" card SBCTK_[redacted]');
    expect(redactText(redacted)).toBe(redacted);
  });

  it("keeps the sandbox's own identifiers whole even when their digits pass Luhn", () => {
    for (const id of ['SBTESTPUBK_4111111111111111', 'SBLNK_4111111111111111abcd', 'SBWALLET_5123450000000008']) expect(redactText(id)).toBe(id);
  });

  it('masks a card number sent as a JSON number, hides cvv and pin in any case at any depth, and redacts field names', () => {
    const body = {
      cardNumber: 5123450000000008,
      amount: 1500,
      nested: [{ deeper: { CVV: 123, Pin: '1234', note: 'card 4111111111111111, key SBTESTSECK_abcdefgh12' } }],
      '4111111111111111': 'a card number as a field name',
    };
    expect(redactValue(body)).toEqual({
      cardNumber: '512345******0008',
      amount: 1500,
      nested: [{ deeper: { CVV: '***', Pin: '***', note: 'card 411111******1111, key SBTESTSECK_[redacted]' } }],
      '411111******1111': 'a card number as a field name',
    });
    expect(body.cardNumber).toBe(5123450000000008);
  });

  it('stops at maxDepth with the marker it is given, whatever the depth of the input', () => {
    let deep: unknown = 'bottom';
    for (let level = 0; level < 10_000; level += 1) deep = { a: deep };
    let copy = redactValue(deep, { maxDepth: 3, tooDeep: (depth) => ({ cut: depth }) });
    expect(copy).toEqual({ a: { a: { a: { cut: 3 } } } });
    copy = redactValue(deep);
    expect(() => JSON.stringify(copy)).not.toThrow();
  });

  it('with stopAfter, copies no more than needed, and the copy\'s JSON text starts exactly as the whole one\'s', () => {
    const body = { a: 'SBTESTSECK_abcdefgh', list: Array.from({ length: 5000 }, (_, n) => ({ n, card: n === 3 ? 4111111111111111 : n, note: 'é"\\' })), z: 1 };
    const whole = JSON.stringify(redactValue(body));
    for (const limit of [0, 1, 50, 777, 10_000]) {
      const part = JSON.stringify(redactValue(body, { stopAfter: limit }));
      expect(part.length, String(limit)).toBeLessThan(limit + 200);
      expect(whole.startsWith(part.slice(0, limit)), String(limit)).toBe(true);
    }
    expect(JSON.stringify(redactValue(body, { stopAfter: whole.length }))).toBe(whole);
  });

  it('redacts the credential headers whole and the others by value', () => {
    expect(redactHeaders({ Authorization: 'Bearer SBTOKEN_x.y', cookie: 'a=b', 'x-note': 'SBCTK_abc 4111111111111111', accept: 'application/json' })).toEqual({
      authorization: '[redacted]',
      cookie: '[redacted]',
      'x-note': 'SBCTK_[redacted] 411111******1111',
      accept: 'application/json',
    });
  });
});

describe('what the journal keeps of a request', () => {
  let sandbox: Sandbox;
  let api: ApiClient;
  let control: ControlClient;
  let merchant: TestMerchant;

  beforeAll(async () => {
    sandbox = await sandboxForTest();
    api = await ApiClient.for(sandbox);
    control = await ControlClient.for(sandbox);
    merchant = await api.merchant();
  });
  afterAll(() => sandbox.close());

  it('holds no card number, credential, CVV or PIN, whatever field, type, header or query parameter they came in', async () => {
    const cardToken = 'SBCTK_00112233445566778899aabb';
    const body = cardPayment({
      publicKey: merchant.publicKey,
      paymentReference: 'SBREF-REDACT-1',
      cardNumber: 4111111111111111,
      productDescription: `Gift for card 5123450000000008, paid by ${merchant.secretKey}`,
      customization: { theme: { note: `token ${merchant.token}`, Cvv: '999', PIN: 4321 }, stored: cardToken },
      tags: ['x', 6011111111111117],
    });
    await inProcess(sandbox)
      .post('/api/v2/payments/initiates?debug=5123450000000008&session=' + encodeURIComponent(merchant.token))
      .set('Authorization', `Bearer ${merchant.token}`)
      .set('X-Debug-Key', `${merchant.secretKey}.${merchant.publicKey}`)
      .set('X-Card', '4111 1111 1111 1111')
      .send(body);

    const journal = await control.requests({ paymentReference: 'SBREF-REDACT-1' });
    expect(journal.body.requests).toHaveLength(1);
    const [entry] = journal.body.requests;
    const text = JSON.stringify(entry);
    for (const secret of ['4111111111111111', '4111 1111 1111 1111', '5123450000000008', '6011111111111117', merchant.secretKey, merchant.token, cardToken, '"999"', '4321']) {
      expect(text, secret).not.toContain(secret);
    }
    expect(entry.request.headers).toMatchObject({ authorization: '[redacted]', 'x-debug-key': `SBTESTSECK_[redacted].${merchant.publicKey}`, 'x-card': '4111 11** **** 1111' });
    expect(entry.request.query).toEqual({ debug: '512345******0008', session: 'SBTOKEN_[redacted]' });
    expect(entry.request.body).toMatchObject({
      publicKey: merchant.publicKey,
      cardNumber: '411111******1111',
      cvv: '***',
      pin: '***',
      productDescription: 'Gift for card 512345******0008, paid by SBTESTSECK_[redacted]',
      customization: { theme: { note: 'token SBTOKEN_[redacted]', Cvv: '***', PIN: '***' }, stored: 'SBCTK_[redacted]' },
      tags: ['x', '601111******1117'],
    });
    // The entry is still found by its merchant and its reference.
    expect(entry.publicKey).toBe(merchant.publicKey);
    expect((await control.requests({ publicKey: merchant.publicKey, paymentReference: 'SBREF-REDACT-1' })).body.requests).toHaveLength(1);
  });

  it('hides the secret key of a key exchange, and the token it answers', async () => {
    const publicKey = 'SBTESTPUBK_redactionexchange01';
    const secretKey = 'SBTESTSECK_redactionexchange01';
    const exchanged = await api.send('POST', '/encrypt/keys', { key: `${secretKey}.${publicKey}` });
    const token = exchanged.body.data.EncryptedSecKey.encryptedKey as string;
    const [entry] = (await control.requests({ publicKey })).body.requests;
    expect(entry.request.body).toEqual({ key: `***.${publicKey}` });
    expect(entry.response.body.data.EncryptedSecKey.encryptedKey).toBe('[redacted]');
    expect(JSON.stringify(entry)).not.toContain(secretKey);
    expect(JSON.stringify(entry)).not.toContain(token);
  });

  it('filters by a paymentReference that looks like a card number, and shows it masked', async () => {
    const reference = '4000000000000002';
    await inProcess(sandbox).post('/api/v2/payments/initiates').set('Authorization', `Bearer ${merchant.token}`).send(cardPayment({ publicKey: merchant.publicKey, paymentReference: reference }));
    const found = await control.requests({ paymentReference: reference });
    expect(found.body.requests.map((entry: { paymentReference: string }) => entry.paymentReference)).toEqual(['400000******0002']);
    expect(JSON.stringify(found.body)).not.toContain(reference);
  });

  it('hides the OTP of validate and momo/otp, every card field by name whatever its value, and card numbers written with any separator', async () => {
    const initiated = await api.as(merchant, 'POST', '/payments/initiates', accountPayment({ paymentReference: 'SBREF-REDACT-OTP' }));
    await api.as(merchant, 'POST', '/payments/validate', { linkingReference: initiated.body.data.payments.linkingReference, otp: '246810' });
    const momo = await api.as(merchant, 'POST', '/payments/initiates', momoPayment({ paymentReference: 'SBREF-REDACT-MOMO' }));
    await api.as(merchant, 'POST', '/payments/momo/otp', { linkingReference: momo.body.data.payments.linkingReference, otp: '135790' });
    await inProcess(sandbox)
      .post('/api/v2/payments/initiates?otp=112233')
      .set('Authorization', `Bearer ${merchant.token}`)
      .send(
        cardPayment({
          publicKey: merchant.publicKey,
          paymentReference: 'SBREF-REDACT-SEPARATORS',
          cardNumber: '5123450000000009',
          productDescription: 'cards 4111.1111.1111.1111, 5123_4500_0000_0008, 6011/1111/1111/1117, 3782\t822463\t10005, 51234500  00000008',
          customization: { card_number: 'not a number', pan: 4000000000000002 },
        }),
      );

    const entries = (await control.requests({ publicKey: merchant.publicKey })).body.requests as any[];
    const text = JSON.stringify(entries);
    for (const secret of ['246810', '135790', '112233', '5123450000000009', '4111.1111.1111.1111', '5123_4500_0000_0008', '6011/1111/1111/1117', '3782\\t822463\\t10005', '51234500  00000008', 'not a number', '4000000000000002']) {
      expect(text, secret).not.toContain(secret);
    }
    const byPath = (path: string) => entries.find((entry) => entry.path === path)!;
    expect(byPath('/payments/validate').request.body.otp).toBe('***');
    expect(byPath('/payments/momo/otp').request.body.otp).toBe('***');
    const initiate = entries.find((entry) => entry.paymentReference === 'SBREF-REDACT-SEPARATORS')!;
    expect(initiate.request.query).toEqual({ otp: '***' });
    expect(initiate.request.body).toMatchObject({
      cardNumber: '512345******0009',
      productDescription: 'cards 4111.11**.****.1111, 5123_45**_****_0008, 6011/11**/****/1117, 3782\t82****\t*0005, 512345**  ****0008',
      customization: { card_number: '***', pan: '400000******0002' },
    });
  });
});
