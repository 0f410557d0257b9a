import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { ControlClient } from '../../support/control.js';
import {
  ApiClient, accountPayment, cardPayment, checkoutLink, momoPayment, order, sandboxWithMerchant, transferPayment, type TestMerchant,
} from '../../support/sandbox.js';

/**
 * What the provider's clients send beyond the spec's types is accepted, with
 * a warning in X-Sandbox-Warnings and the journal; `strict` refuses it with
 * 400 INPUT (README, "Accepted beyond the spec").
 */

let sandbox: Sandbox;
let api: ApiClient;
let control: ControlClient;
let merchant: TestMerchant;

beforeAll(async () => {
  ({ sandbox, api, merchant } = await sandboxWithMerchant());
  control = await ControlClient.for(sandbox);
});
afterAll(() => sandbox.close());

const initiate = (body: Record<string, unknown>) => api.as(merchant, 'POST', '/payments/initiates', body);
const initiateRaw = (json: string) => api.send('POST', '/payments/initiates', undefined, `Bearer ${merchant.token}`, json);
const stored = (reference: unknown) => sandbox.store.payment(merchant.publicKey, String(reference));
const warningsOf = (response: { headers: Record<string, string> }) => response.headers['x-sandbox-warnings'] ?? '';

describe('numbers where the spec sends strings', () => {
  it('reads a number amount and paymentReference as their exact text, with a warning naming each field', async () => {
    const reference = Date.now() * 1000 + 1;
    const response = await initiate(momoPayment({ amount: 100, paymentReference: reference }));
    expect(response.status).toBe(200);
    expect(response.body.data.code).toBe('NIP');
    expect(response.body.data.payments.paymentReference).toBe(String(reference));
    expect(warningsOf(response).split('; ').sort()).toEqual(['amount: a JSON number, the spec sends a string', 'paymentReference: a JSON number, the spec sends a string']);
    expect(stored(reference)).toMatchObject({ amount: '100.00', paymentReference: String(reference) });
  });

  it('keeps every digit of a card number past 2^53, and of an amount with trailing zeros', async () => {
    const json = JSON.stringify(cardPayment({ publicKey: merchant.publicKey, paymentReference: 'SBREF-LONG-CARD', amount: 'AMOUNT', cardNumber: 'CARD-NUMBER' }))
      .replace('"AMOUNT"', '10.50')
      .replace('"CARD-NUMBER"', '4000000000000000123');
    const response = await initiateRaw(json);
    expect(response.status).toBe(200);
    expect(stored('SBREF-LONG-CARD')).toMatchObject({ amount: '10.50', card: { bin: '400000', last4: '0123' } });
  });

  it('reads card fields sent as numbers, as the provider\'s transfer example does (5 is expiry month "05")', async () => {
    const response = await initiate(cardPayment({ cardNumber: 5123450000000008, cvv: 100, expiryMonth: 5, expiryYear: 30, pin: 1234, fee: 10 }));
    expect(response.status).toBe(200);
    expect(response.body.data.code).toBe('S20');
    expect(warningsOf(response)).toContain('expiryMonth: a JSON number');
    expect(warningsOf(response)).not.toContain('fee');
  });

  it.each([
    ['10.555', 'amount must be a decimal amount with at most 2 places'],
    ['-5', 'amount must be a decimal amount with at most 2 places'],
    ['1e2', 'amount must be a decimal amount with at most 2 places'],
  ])('refuses amount %s with 400 INPUT naming it, and stores nothing', async (amount, message) => {
    const body = accountPayment({ publicKey: merchant.publicKey, amount: 'AMOUNT' });
    const response = await initiateRaw(JSON.stringify(body).replace('"AMOUNT"', amount));
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ message, error: 'INPUT' });
    expect(stored(body.paymentReference)).toBeUndefined();
  });

  it('reads a mobileNumber in exponent form as its digits, as the provider\'s tokenize and charge examples send it (docs/decisions.md#d50-exponent-numbers)', async () => {
    const body = cardPayment({ publicKey: merchant.publicKey, mobileNumber: 'MOBILE' });
    const response = await api.send('POST', '/payments/tokenize', undefined, `Bearer ${merchant.token}`, JSON.stringify({ ...body, amount: '0.00' }).replace('"MOBILE"', '8.033456599E9'));
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(warningsOf(response)).toContain('mobileNumber: a JSON number, the spec sends a string');
    expect(stored(body.paymentReference)?.mobileNumber).toBe('8033456599');
    // Not a whole number: a fraction left after the shift is no string of digits.
    const again = cardPayment({ publicKey: merchant.publicKey, mobileNumber: 'MOBILE' });
    const fraction = await api.send('POST', '/payments/tokenize', undefined, `Bearer ${merchant.token}`, JSON.stringify({ ...again, amount: '0.00' }).replace('"MOBILE"', '8.0334565991E9'));
    expect(fraction.status).toBe(400);
    expect(fraction.body).toEqual({ status: 'ERROR', data: { code: 'S12', message: 'Invalid/Missing parameters = mobileNumber' } });
    expect(stored(again.paymentReference)).toBeUndefined();
  });

  it('refuses a card number with a fraction', async () => {
    const response = await initiateRaw(JSON.stringify(cardPayment({ publicKey: merchant.publicKey, cardNumber: 'CARD-NUMBER' })).replace('"CARD-NUMBER"', '5123450000000008.5'));
    expect(response.status).toBe(400);
    expect(response.body.message).toContain('cardNumber must be a string of digits');
  });

  it('reads numbers in order items, and answers the order like any other', async () => {
    const body = order({ amount: 300, orders: [{ orderId: 'A', currency: 'NGN', amount: 300, productId: 7 }] });
    const response = await api.as(merchant, 'POST', '/payments/order', body);
    expect(response.status).toBe(200);
    expect(response.body.data.payments.amount).toBe(300);
    expect(warningsOf(response).split('; ').sort()).toEqual(['amount', 'orders.0.amount', 'orders.0.productId'].map((field) => `${field}: a JSON number, the spec sends a string`));
  });
});

describe('null fields', () => {
  it('treats a null optional field as left out, with a warning', async () => {
    const body = accountPayment({ productDescription: null, email: null });
    const response = await initiate(body);
    expect(response.status).toBe(200);
    expect(warningsOf(response)).toContain('productDescription: null, the spec sends a value or leaves the field out');
    expect(warningsOf(response)).toContain('email: null, the spec sends a value or leaves the field out');
    expect(stored(body.paymentReference)).not.toHaveProperty('productDescription');
  });

  it('a null required field is missing (400 INPUT naming it)', async () => {
    const response = await initiate(accountPayment({ accountNumber: null }));
    expect(response.status).toBe(400);
    expect(response.body.message).toBe('accountNumber is required');
  });
});

describe('values kept as sent', () => {
  it('takes paymentType TRANSFER as the transfer variant', async () => {
    const body = transferPayment({ paymentType: 'TRANSFER', pocketReference: undefined, amountControl: undefined, walletDaysActive: undefined });
    const response = await initiate(body);
    expect(response.body.data).toMatchObject({ code: '00', message: 'ACCOUNT OPENED SUCCESSFULLY' });
    expect(warningsOf(response)).toBe('paymentType: TRANSFER, the spec sends CARD with transfer fields for a transfer');
    expect(stored(body.paymentReference)).toMatchObject({ method: 'TRANSFER', status: 'PENDING' });
  });

  it('keeps a callbackUrl that is not an absolute URL as sent, and still refuses a script URL', async () => {
    for (const callbackUrl of ['www.testapp.com', 'http:shop.com']) {
      const body = checkoutLink({ callbackUrl });
      const response = await api.as(merchant, 'POST', '/payments', body);
      expect(response.status, callbackUrl).toBe(200);
      expect(warningsOf(response)).toBe('callbackUrl: not an absolute http(s) URL, kept as sent and never redirected to');
      expect(stored(body.paymentReference)!.callbackUrl).toBe(callbackUrl);
    }
    for (const callbackUrl of ['javascript:alert(1)', ' JaVa\tScRiPt:alert(1)', 'data:text/html,<script>alert(1)</script>']) {
      const response = await api.as(merchant, 'POST', '/payments', checkoutLink({ callbackUrl }));
      expect(response.status, callbackUrl).toBe(400);
      expect(response.body.message).toContain('callbackUrl');
    }
  });
});

describe('the Node SDK\'s README checkout sample', () => {
  it('gets its redirect link: number amount and reference, null product fields, a bare callbackUrl, and its own hash', async () => {
    // The payload and hash exactly as the SDK builds them (seerbit-nodejs 0.3.0, StandardCheckout.Initialize).
    const payload: Record<string, unknown> = { amount: 100, callbackUrl: 'www.testapp.com', country: 'NG', currency: 'NGN', email: 'testmerchant@mail.com', paymentReference: Date.now() };
    payload.productDescription = null;
    payload.productId = null;
    payload.publicKey = merchant.publicKey;
    const joined = Object.entries(payload).map(([name, value]) => `${name}=${value}`).join('&');
    payload.hash = createHash('sha256').update(joined + merchant.secretKey).digest('hex');
    payload.hashType = 'sha256';
    const response = await api.send('POST', '/payments', payload, `Bearer ${merchant.token}`);
    expect(response.status).toBe(200);
    expect(response.body.data.payments.redirectLink).toMatch(new RegExp(`^${sandbox.publicUrl}/pages/checkout/SBLNK_`));
    for (const field of ['amount', 'paymentReference', 'productDescription', 'productId', 'callbackUrl']) expect(warningsOf(response)).toContain(`${field}:`);
  });

  it('a hash over the fields in the order of the JSON text, not sorted, makes the link, with a warning naming the checkout hash', async () => {
    const payload: Record<string, unknown> = { publicKey: merchant.publicKey, paymentReference: `SBREF-ORDER-${Date.now()}`, amount: '250.00', currency: 'NGN', country: 'NG', callbackUrl: 'https://merchant.example.com/cb' };
    const joined = Object.entries(payload).map(([name, value]) => `${name}=${value}`).join('&');
    const hash = createHash('sha256').update(joined + merchant.secretKey).digest('hex');
    // The raw text, so that the order hashed is the order of the bytes sent (docs/decisions.md#d66-checkout-hash-forms):
    // the same fields in another order do not verify, and store nothing.
    const text = JSON.stringify({ ...payload, hash });
    const swapped = text.replace('"currency":"NGN","country":"NG"', '"country":"NG","currency":"NGN"');
    expect(swapped).not.toBe(text);
    const refused = await api.send('POST', '/payments', undefined, `Bearer ${merchant.token}`, swapped);
    expect(refused.status).toBe(500);
    expect(refused.body).toEqual({ message: 'INVALID HASH', error: 'PROCESSING' });
    const response = await api.send('POST', '/payments', undefined, `Bearer ${merchant.token}`, text);
    expect(response.status).toBe(200);
    expect(warningsOf(response)).toContain('hash: over every field sent but hash and hashType, in the order sent; the checkout hash is over amount,');
  });
});

describe('the journal', () => {
  it('lists the warnings and the body as sent, the card number masked even when sent as a number', async () => {
    const body = cardPayment({ cardNumber: 5123450000000008, amount: 1500 });
    const response = await initiate(body);
    expect(response.status).toBe(200);
    const [entry] = (await control.requests({ paymentReference: String(body.paymentReference) })).body.requests;
    expect([...entry.warnings].sort()).toEqual(['amount: a JSON number, the spec sends a string', 'cardNumber: a JSON number, the spec sends a string']);
    expect(entry.request.body.amount).toBe(1500);
    expect(entry.request.body.cardNumber).toBe('512345******0008');
    expect(JSON.stringify(entry)).not.toContain('5123450000000008');
  });

  it('finds a request by a paymentReference sent as a number, and a 405 by the merchant whose token it carried', async () => {
    const reference = Date.now() * 1000 + 7;
    await initiate(momoPayment({ paymentReference: reference }));
    expect((await control.requests({ paymentReference: String(reference) })).body.requests).toHaveLength(1);
    await api.send('GET', '/payments/refund', undefined, `Bearer ${merchant.token}`);
    const [latest] = (await control.requests({ publicKey: merchant.publicKey, limit: 1 })).body.requests;
    expect(latest).toMatchObject({ method: 'GET', path: '/payments/refund', status: 405 });
  });
});

describe('a strict sandbox', () => {
  let strict: Sandbox;
  let strictApi: ApiClient;
  let strictMerchant: TestMerchant;

  beforeAll(async () => {
    ({ sandbox: strict, api: strictApi, merchant: strictMerchant } = await sandboxWithMerchant({ strict: true }));
  });
  afterAll(() => strict.close());

  it.each([
    ['a number amount', { amount: 100 }, 'amount must be string'],
    ['a null field', { email: null }, 'email must be string'],
    ['paymentType TRANSFER', { paymentType: 'TRANSFER' }, 'paymentType must be equal to one of the allowed values'],
    ['a bare callbackUrl', { callbackUrl: 'www.testapp.com' }, 'callbackUrl must match pattern'],
  ])('refuses %s with 400 INPUT naming the field, and stores nothing', async (_what, fields, message) => {
    const body = momoPayment(fields);
    const response = await strictApi.as(strictMerchant, 'POST', '/payments/initiates', body);
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('INPUT');
    expect(response.body.message).toContain(message);
    expect(response.headers['x-sandbox-warnings']).toBeUndefined();
    expect(strict.store.payment(strictMerchant.publicKey, String(body.paymentReference))).toBeUndefined();
  });

  it('accepts what the spec allows', async () => {
    expect((await strictApi.as(strictMerchant, 'POST', '/payments/initiates', momoPayment())).body.data.code).toBe('NIP');
  });
});

describe('empty strings', () => {
  it('takes an empty callbackUrl and redirectUrl of an initiate as left out, as a Go client sends them, with a warning each', async () => {
    const body = cardPayment({ callbackUrl: '', redirectUrl: '' });
    const response = await initiate(body);
    expect(response.status).toBe(200);
    expect(response.body.data.code).toBe('S20');
    expect(warningsOf(response).split('; ').sort()).toEqual(['callbackUrl: an empty string, taken as left out', 'redirectUrl: an empty string, taken as left out']);
    const payment = stored(body.paymentReference);
    expect(payment).toBeDefined();
    expect(payment).not.toHaveProperty('callbackUrl');
    expect(payment).not.toHaveProperty('redirectUrl');
  });

  it('leaves an empty string the document takes as it is, with no warning (the provider\'s examples send source and scheduleId empty)', async () => {
    const body = cardPayment({ source: '', scheduleId: '', deviceType: '' });
    const response = await initiate(body);
    expect(response.status).toBe(200);
    expect(response.headers['x-sandbox-warnings']).toBeUndefined();
    expect(stored(body.paymentReference)).toMatchObject({ deviceType: '' });
  });

  it('takes as left out whatever rule the empty string breaks: a fee\'s anyOf, the card fields\' patterns in a transfer, a hash\'s pattern and hashType\'s enum', async () => {
    const transfer = transferPayment({ fee: '', cardNumber: '', cvv: '', expiryMonth: '', expiryYear: '' });
    const answered = await initiate(transfer);
    expect(answered.body.data).toMatchObject({ code: '00', message: 'ACCOUNT OPENED SUCCESSFULLY' });
    expect(warningsOf(answered).split('; ').sort()).toEqual(['cardNumber', 'cvv', 'expiryMonth', 'expiryYear', 'fee'].map((field) => `${field}: an empty string, taken as left out`));
    expect(stored(transfer.paymentReference)).toMatchObject({ method: 'TRANSFER', status: 'PENDING' });
    // A link whose hash is empty is a link without one: no INVALID HASH.
    const link = await api.as(merchant, 'POST', '/payments', checkoutLink({ hash: '', hashType: '' }));
    expect(link.status).toBe(200);
    expect(warningsOf(link).split('; ').sort()).toEqual(['hash: an empty string, taken as left out', 'hashType: an empty string, taken as left out']);
  });

  it('refuses an empty required field as empty, not as missing: callbackUrl of a checkout link or an order, paymentReference, a card\'s cvv, an item\'s productId', async () => {
    const urlRefused = 'callbackUrl must match pattern "^https?://"; callbackUrl must match format "uri"';
    const link = checkoutLink({ callbackUrl: '' });
    expect(await api.as(merchant, 'POST', '/payments', link)).toMatchObject({ status: 400, body: { message: urlRefused, error: 'INPUT' } });
    expect(stored(link.paymentReference)).toBeUndefined();
    const anOrder = order({ callbackUrl: '' });
    expect(await api.as(merchant, 'POST', '/payments/order', anOrder)).toMatchObject({ status: 400, body: { message: urlRefused, error: 'INPUT' } });
    expect(stored(anOrder.paymentReference)).toBeUndefined();
    // The optional empty callbackUrl beside it is left out; the empty reference alone is named.
    const noReference = await initiate(cardPayment({ paymentReference: '', callbackUrl: '' }));
    expect(noReference).toMatchObject({ status: 400, body: { message: 'paymentReference must NOT have fewer than 1 characters', error: 'INPUT' } });
    const card = cardPayment({ cvv: '' });
    expect(await initiate(card)).toMatchObject({ status: 400, body: { message: 'cvv must match pattern "^[0-9]{3,4}$"', error: 'INPUT' } });
    expect(stored(card.paymentReference)).toBeUndefined();
    const item = order({ orders: [{ orderId: 'ORD-1', currency: 'NGN', amount: '4500.00', productId: '' }] });
    expect(await api.as(merchant, 'POST', '/payments/order', item)).toMatchObject({ status: 400, body: { message: 'orders.0.productId must NOT have fewer than 1 characters', error: 'INPUT' } });
  });

  it('refuses an empty required field of a refund in the provider\'s body', async () => {
    const response = await api.send('POST', '/payments/refund', { publicKey: merchant.publicKey, paymentReference: '', amount: '10.00', currency: 'NGN', country: 'NG' }, merchant.basic);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ status: 'ERROR', data: { code: 'S12', message: 'Invalid/Missing parameters = paymentReference' } });
  });

  it('a strict sandbox refuses an empty callbackUrl of an initiate with 400 INPUT naming it, and stores nothing', async () => {
    const { sandbox: strict, api: strictApi, merchant: strictMerchant } = await sandboxWithMerchant({ strict: true });
    try {
      const body = cardPayment({ callbackUrl: '' });
      const response = await strictApi.as(strictMerchant, 'POST', '/payments/initiates', body);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ message: 'callbackUrl must match pattern "^https?://"; callbackUrl must match format "uri"', error: 'INPUT' });
      expect(response.headers['x-sandbox-warnings']).toBeUndefined();
      expect(strict.store.payment(strictMerchant.publicKey, String(body.paymentReference))).toBeUndefined();
    } finally {
      await strict.close();
    }
  });
});

describe('a body on a GET', () => {
  // The provider's Node SDK sends its GETs with a JSON body (docs/decisions.md#d21-json-bodies); unframed, on a socket: test/http/get-bodies.test.ts.
  it('is ignored, even when it is not JSON', async () => {
    await api.as(merchant, 'POST', '/payments/order', order());
    const response = await api.send('GET', `/products/orders/publicKey/${merchant.publicKey}`, undefined, `Bearer ${merchant.token}`, '{"not json');
    expect(response.status).toBe(200);
    expect(response.body.data.code).toBe('00');
  });
});
