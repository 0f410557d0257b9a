import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { ApiClient, accountPayment, cardPayment, checkoutLink, sandboxWithMerchant, type TestMerchant } from '../../support/sandbox.js';

/**
 * GET /payments/query/{paymentReference}: where a payment stands, in the
 * provider's CheckStatus shape (docs/decisions.md#d33-status-query).
 */

let sandbox: Sandbox;
let api: ApiClient;
let merchant: TestMerchant;

beforeAll(async () => {
  ({ sandbox, api, merchant } = await sandboxWithMerchant());
});
afterAll(() => sandbox.close());

const query = (reference: unknown, who = merchant, headers: Record<string, string> = {}) =>
  api.send('GET', `/payments/query/${encodeURIComponent(String(reference))}`, undefined, `Bearer ${who.token}`, undefined, { headers });

describe('GET /payments/query/{paymentReference}', () => {
  it('follows a card payment from pending to paid, the card masked and never whole', async () => {
    const body = cardPayment({ fullName: 'Ada Obi', email: 'ada@example.com', channelType: 'Mastercard', sourceIP: '127.0.0.1:3456', deviceType: 'Apple Laptop' });
    const initiated = await api.as(merchant, 'POST', '/payments/initiates', body);
    const pending = await query(body.paymentReference);
    expect(pending.status).toBe(200);
    expect(pending.headers['x-sandbox-scenario']).toBe('payment-status');
    expect(pending.body.data).toMatchObject({ code: 'S20', message: 'Transaction is pending' });
    expect(pending.body.data.payments).toMatchObject({
      paymentReference: body.paymentReference, paymentType: 'CARD', amount: 1500, currency: 'NGN', country: 'NG', mode: 'test',
      maskedPan: '5123-45xx-xxxx-0008', cardBin: '512345', lastFourDigits: '0008', gatewayCode: 'S20',
      gatewayref: initiated.body.data.payments.linkingReference, redirectLink: initiated.body.data.payments.redirectUrl,
      redirecturl: body.redirectUrl, channelType: 'Mastercard', sourceIP: '127.0.0.1:3456', deviceType: 'Apple Laptop',
    });
    expect(pending.body.data.customers).toMatchObject({ customerName: 'Ada Obi', customerEmail: 'ada@example.com' });
    expect(JSON.stringify(pending.body)).not.toContain('5123450000000008');

    await api.as(merchant, 'POST', '/payments/validate', { linkingReference: initiated.body.data.payments.linkingReference, otp: '123456' });
    const paid = await query(body.paymentReference);
    expect(paid.body.data).toMatchObject({ code: '00', message: 'Successful', payments: { gatewayCode: '00', processorMessage: 'Successful' } });
  });

  it('answers a declined card with its failure, and a hosted checkout link before the customer pays', async () => {
    const declined = cardPayment({ cardNumber: '4000000000000002' });
    await api.as(merchant, 'POST', '/payments/initiates', declined);
    expect((await query(declined.paymentReference)).body.data).toMatchObject({ code: 'S12', message: 'Transaction Failed' });
    const link = checkoutLink();
    const created = await api.as(merchant, 'POST', '/payments', link);
    const status = await query(link.paymentReference);
    expect(status.body.data.code).toBe('00');
    expect(status.body.data.payments).toMatchObject({ paymentType: 'CHECKOUT', redirectLink: created.body.data.payments.redirectLink });
    expect(status.body.data.payments).not.toHaveProperty('maskedPan');
  });

  it('answers the provider\'s 500 No transaction found for a reference the merchant never used, even another merchant\'s', async () => {
    const body = accountPayment();
    await api.as(merchant, 'POST', '/payments/initiates', body);
    const other = await api.merchant();
    for (const [reference, who] of [['SBREF-NEVER-USED', merchant], [body.paymentReference, other]] as const) {
      const response = await query(reference, who);
      expect(response.status).toBe(500);
      expect(response.body).toEqual({ message: 'No transaction found', error: 'PROCESSING' });
    }
  });

  it('can be forced by header: S12 Transaction Failed, or a 500', async () => {
    const body = accountPayment();
    await api.as(merchant, 'POST', '/payments/initiates', body);
    const failed = await query(body.paymentReference, merchant, { 'X-Sandbox-Scenario': 'transaction-failed' });
    expect(failed.body.data).toEqual({ code: 'S12', message: 'Transaction Failed', payments: {} });
    const broken = await query(body.paymentReference, merchant, { 'X-Sandbox-Scenario': 'internal-error' });
    expect(broken.status).toBe(500);
    expect((await query(body.paymentReference)).body.data.code).toBe('20');
  });

  it('needs a token, as the provider\'s does', async () => {
    const response = await api.send('GET', '/payments/query/ANY');
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ message: 'Header Token Missing', error: 'PERMISSION' });
  });
});
