import { describe, expect, it } from 'vitest';
import { exchangeKeys } from '../../../src/domain/authentication.js';
import { issueToken } from '../../../src/domain/merchants.js';
import { queryPayment } from '../../../src/domain/status-query.js';
import { answer, rule } from '../scenarios/rules.js';
import { ENV, MERCHANT, factsFor, newStore, payment, scenario, selection, summary, thrown, untouched } from './fixtures.js';

/** The status query, GET /payments/query/{paymentReference} (docs/decisions.md#d33-status-query), and the key exchange, without HTTP. */

const REF = 'SBREF-QRY-1';
const query = (store: Awaited<ReturnType<typeof newStore>>, paymentReference = REF) => factsFor(store, 'queryPayment', {}, { params: { paymentReference } });

describe('queryPayment', () => {
  it('a card payment: the stored code and message ($payment), its fields, the card masked, and the customer', async () => {
    const store = await newStore();
    const card = payment({
      paymentReference: REF, status: 'PENDING', code: 'S20', message: 'Transaction is pending', amount: '1500.00',
      fullName: 'Ada Obi', email: 'ada@example.com', redirectUrl: 'https://merchant.example.com/back', productId: 'P-1',
    }, store);
    const done = untouched(store, () => queryPayment(query(store), selection(scenario('payment-status')), ENV));
    expect(summary(done)).toEqual({ code: 'S20', message: 'Transaction is pending', scenario: 'payment-status', reason: undefined, writes: 0 });
    const { payments, customers } = done.body.data as unknown as { payments: Record<string, unknown>; customers: Record<string, unknown> };
    expect(payments).toMatchObject({
      paymentReference: REF, publicKey: MERCHANT.publicKey, paymentType: 'CARD', amount: 1500, internationalChargedAmount: 1500,
      currency: 'NGN', country: 'NG', mode: 'test', gatewayref: card.linkingReference, gatewayCode: 'S20', gatewayMessage: 'Transaction is pending',
      productId: 'P-1', type: '3DSECURE', redirectLink: `http://sb/pages/authenticate/${card.linkingReference}`, redirecturl: 'https://merchant.example.com/back',
      maskedPan: '5123-45xx-xxxx-0008', cardBin: '512345', lastFourDigits: '0008',
    });
    // Never the card's token, and no field the payment does not have.
    expect(JSON.stringify(done.body)).not.toContain('SBCTK_');
    expect(payments).not.toHaveProperty('mobilenumber');
    expect(customers).toEqual({ customerId: expect.stringMatching(/^SBCUS_[0-9a-f]{20}$/), customerName: 'Ada Obi', customerEmail: 'ada@example.com' });
  });

  it('the code and message follow the stored payment; the same customer has the same id', async () => {
    const store = await newStore();
    payment({ paymentReference: REF, status: 'SUCCESSFUL', code: '00', message: 'Successful', email: 'ada@example.com' }, store);
    payment({ paymentReference: 'SBREF-QRY-2', status: 'FAILED', code: 'S12', message: 'Transaction Failed', email: 'ada@example.com' }, store);
    const first = queryPayment(query(store), selection(scenario('payment-status')), ENV);
    const second = queryPayment(query(store, 'SBREF-QRY-2'), selection(scenario('payment-status')), ENV);
    expect([first.body.data.code, first.body.data.message]).toEqual(['00', 'Successful']);
    expect([second.body.data.code, second.body.data.message]).toEqual(['S12', 'Transaction Failed']);
    expect((first.body.data.customers as { customerId: string }).customerId).toBe((second.body.data.customers as { customerId: string }).customerId);
  });

  it('a hosted checkout paid by account: the channel as paymentType, the checkout page, no card fields', async () => {
    const store = await newStore();
    const link = payment({ paymentReference: REF, method: 'CHECKOUT', channel: 'ACCOUNT', card: undefined, callbackUrl: 'https://merchant.example.com/cb' }, store);
    const { payments } = queryPayment(query(store), selection(scenario('payment-status')), ENV).body.data as unknown as { payments: Record<string, unknown> };
    expect(payments).toMatchObject({ paymentType: 'ACCOUNT', redirectLink: `http://sb/pages/checkout/${link.linkingReference}`, redirecturl: 'https://merchant.example.com/cb' });
    expect(payments).not.toHaveProperty('maskedPan');
    expect(payments).not.toHaveProperty('cardBin');
    expect(payments).not.toHaveProperty('type');
  });

  it('a rule with its own code answers it instead of the stored one', async () => {
    const store = await newStore();
    payment({ paymentReference: REF, code: '00', message: 'Successful' }, store);
    const own = rule('made-up-status', { operation: 'queryPayment' }, answer('S99'));
    const done = queryPayment(query(store), selection(own, { forced: true }), ENV);
    expect(summary(done)).toMatchObject({ code: 'S99', message: 'answer S99', scenario: 'made-up-status' });
    expect(done.body.data.payments).toMatchObject({ paymentReference: REF, gatewayCode: '00' });
  });

  it('a reference the merchant never used (or another merchant\'s): ApiError 500 No transaction found', async () => {
    const store = await newStore();
    payment({ paymentReference: 'SBREF-THEIRS', publicKey: 'SBTESTPUBK_unitdomain02' }, store);
    for (const reference of [REF, 'SBREF-THEIRS']) {
      const error = untouched(store, () => thrown(() => queryPayment(query(store, reference), selection(scenario('payment-status')), ENV)));
      expect([error.status, error.body, error.scenario]).toEqual([500, { message: 'No transaction found', error: 'PROCESSING' }, 'no-transaction-found']);
    }
  });
});

describe('exchangeKeys', () => {
  const key = `${MERCHANT.secretKey}.${MERCHANT.publicKey}`;

  it('answers the merchant\'s token under data.EncryptedSecKey.encryptedKey, and writes only the merchant with the exchange counted', async () => {
    const store = await newStore();
    const done = untouched(store, () => exchangeKeys(factsFor(store, 'exchangeKeys', { key }), selection(scenario('keys-exchanged')), ENV));
    expect(done.body).toEqual({ status: 'SUCCESS', data: { code: '00', message: 'Successful', EncryptedSecKey: { encryptedKey: issueToken(MERCHANT) } } });
    expect(issueToken(MERCHANT)).toMatch(/^SBTOKEN_[A-Za-z0-9_-]+\.[0-9a-f]{32}$/);
    expect(summary(done)).toMatchObject({ scenario: 'keys-exchanged', writes: 1 });
    // The go-live report's token-reused counts exchanges (docs/decisions.md#d87-go-live-report).
    const [write] = done.writes;
    expect(write).toMatchObject({ kind: 'merchant', merchant: { publicKey: MERCHANT.publicKey, goLive: { exchanges: { count: 1 } } } });
  });

  it('keys-exchanged-misspelt: the same token under EncrytedSecKey', async () => {
    const store = await newStore();
    const done = exchangeKeys(factsFor(store, 'exchangeKeys', { key }), selection(scenario('keys-exchanged-misspelt'), { forced: true }), ENV);
    expect(done.body.data).toEqual({ code: '00', message: 'Successful', EncrytedSecKey: { encryptedKey: issueToken(MERCHANT) } });
  });

  it('keys-not-found: ApiError 404 with `error` only', async () => {
    const store = await newStore();
    const error = thrown(() => exchangeKeys(factsFor(store, 'exchangeKeys', { key }), selection(scenario('keys-not-found'), { forced: true }), ENV));
    expect([error.status, error.body]).toEqual([404, { error: 'Not Found' }]);
  });
});
