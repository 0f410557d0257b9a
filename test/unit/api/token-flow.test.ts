import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { ApiClient, cardPayment, freshReference, sandboxWithMerchant, type TestMerchant } from '../../support/sandbox.js';

/**
 * The documentation's card tokenisation (docs/decisions.md#d58-token-flow): create-token,
 * the customer's OTP, the authorizationCode on the status query, then
 * charge-token with it, for this merchant only and once paid only.
 */

let sandbox: Sandbox;
let api: ApiClient;
let merchant: TestMerchant;

beforeAll(async () => {
  ({ sandbox, api, merchant } = await sandboxWithMerchant());
});
afterAll(() => sandbox.close());

const chargeToken = (who: TestMerchant, authorizationCode: string, fields: Record<string, unknown> = {}) =>
  api.as(who, 'POST', '/payments/charge-token', { paymentReference: freshReference(), amount: '110.00', authorizationCode, ...fields });

describe('create-token, then charge-token', () => {
  it('the code appears on the status query once the first charge is paid, and charges the card again; not before, not for another merchant', async () => {
    const first = cardPayment({ amount: '100.00', redirectUrl: 'https://merchant.example.com/return' });
    const created = await api.as(merchant, 'POST', '/payments/create-token', first);
    expect(created.body.data).toMatchObject({ code: 'S20', message: 'Transaction is pending', payments: { paymentReference: first.paymentReference, redirectUrl: expect.stringContaining('/pages/authenticate/') } });
    const query = async (base: '' | '/v3') => (await api.send('GET', `${base}/payments/query/${String(first.paymentReference)}`, undefined, `Bearer ${merchant.token}`)).body.data.payments;
    expect((await query('')).authorizationCode).toBeUndefined();
    const stored = sandbox.store.payment(merchant.publicKey, String(first.paymentReference))!;
    // Not paid yet: the code charges nothing.
    const early = await chargeToken(merchant, stored.authorizationCode!);
    expect(early.status).toBe(400);
    expect(early.body).toEqual({ status: 'ERROR', data: { code: 'S12', message: 'Invalid/Missing parameters = authorizationCode' } });

    await api.as(merchant, 'POST', '/payments/otp', { transaction: { linkingreference: created.body.data.payments.linkingReference, otp: '123456' } });
    const code = (await query('')).authorizationCode;
    expect(code).toMatch(/^[0-9a-f]{20}$/);
    expect((await query('/v3')).authorizationCode).toBe(code);

    const charged = await chargeToken(merchant, code, { paymentReference: 'SBREF-CHARGED-BY-TOKEN' });
    expect(charged.status).toBe(200);
    expect(charged.body.data).toMatchObject({ code: '00', message: 'APPROVED', payments: { paymentReference: 'SBREF-CHARGED-BY-TOKEN' } });
    expect(sandbox.store.payment(merchant.publicKey, 'SBREF-CHARGED-BY-TOKEN')).toMatchObject({ status: 'SUCCESSFUL', amount: '110.00', card: { bin: '512345', last4: '0008' } });

    const other = await api.merchant();
    const theirs = await chargeToken(other, code);
    expect(theirs.status).toBe(400);
    expect(theirs.headers['x-sandbox-reason']).toContain('is no paid card tokenisation of merchant');
  });

  it('a declining card is declined at its first charge (S12): no code comes of it', async () => {
    const declining = cardPayment({ cardNumber: '4000000000000002', redirectUrl: 'https://merchant.example.com/return' });
    const created = await api.as(merchant, 'POST', '/payments/create-token', declining);
    expect(created.body.data.code).toBe('S12');
    const stored = sandbox.store.payment(merchant.publicKey, String(declining.paymentReference))!;
    expect(stored.status).toBe('FAILED');
    expect((await chargeToken(merchant, stored.authorizationCode!)).status).toBe(400);
  });
});

describe('the minimum first charge of create-token', () => {
  it('stores nothing below NGN 50.00, GHS and KES 1, USD 0.50 (S7), and takes the minimum itself and any amount in another currency', async () => {
    const below = [['NGN', '49.99', '50.0'], ['GHS', '0.99', '1.0'], ['KES', '0.50', '1.0'], ['USD', '0.49', '0.5']] as const;
    for (const [currency, amount, minimum] of below) {
      const body = cardPayment({ amount, currency, redirectUrl: 'https://merchant.example.com/return' });
      const refused = await api.as(merchant, 'POST', '/payments/create-token', body);
      expect(refused.body.data, currency).toMatchObject({ code: 'S7', message: `Cant process at this moment, please try again Invalid Amount = Amount cannot be less than ${minimum}` });
      expect(sandbox.store.payment(merchant.publicKey, String(body.paymentReference)), currency).toBeUndefined();
    }
    for (const [currency, amount] of [['NGN', '50.00'], ['GHS', '1.00'], ['USD', '0.50'], ['ZAR', '0.01']] as const) {
      const body = cardPayment({ amount, currency, redirectUrl: 'https://merchant.example.com/return' });
      const taken = await api.as(merchant, 'POST', '/payments/create-token', body);
      expect(taken.body.data, currency).toMatchObject({ code: 'S20', message: 'Transaction is pending' });
    }
  });
});
