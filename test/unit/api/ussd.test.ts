import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { ControlClient } from '../../support/control.js';
import { ApiClient, freshReference, sandboxForTest, sandboxWithMerchant, type TestMerchant } from '../../support/sandbox.js';

/**
 * `paymentType` `USSD` on the initiate (docs/decisions.md#d61-ussd): the provider
 * documents it and the spec does not name it, so it is taken with a warning
 * (and refused with --strict); the answer gives the code to dial.
 */

let sandbox: Sandbox;
let api: ApiClient;
let merchant: TestMerchant;

beforeAll(async () => {
  ({ sandbox, api, merchant } = await sandboxWithMerchant());
});
afterAll(() => sandbox.close());

const ussd = (fields: Record<string, unknown> = {}) => ({
  paymentType: 'USSD', paymentReference: freshReference(), amount: '500.00', currency: 'NGN', country: 'NG', bankCode: '044',
  fullName: 'John Doe', email: 'johndoe@example.com', mobileNumber: '08033456500', ...fields,
});

describe('a USSD initiate', () => {
  it('answers S20 with the bank\'s code to dial, with a warning; the payment waits, and settles over the control API', async () => {
    const body = ussd();
    const started = await api.as(merchant, 'POST', '/payments/initiates', body);
    expect(started.headers['x-sandbox-warnings']).toContain('paymentType: USSD');
    expect(started.headers['x-sandbox-scenario']).toBe('ussd-code-issued');
    const { payments } = started.body.data;
    expect([started.body.data.code, payments.paymentReference]).toEqual(['S20', body.paymentReference]);
    expect(payments.ussdDailCode).toBe(`*901*000*${payments.providerreference}#`);
    expect(payments.providerreference).toMatch(/^[0-9]{4}$/);
    // The same payment gives the same code on every run: derived from its linkingReference.
    expect(sandbox.store.payment(merchant.publicKey, String(body.paymentReference))).toMatchObject({ method: 'USSD', status: 'PENDING' });
    const query = await api.as(merchant, 'GET', `/payments/query/${body.paymentReference}`);
    expect([query.body.data.code, query.body.data.payments.paymentType]).toEqual(['S20', 'USSD']);
    const control = await ControlClient.for(sandbox);
    expect((await control.send('POST', `/payments/${body.paymentReference}/complete`, { body: { outcome: 'success', publicKey: merchant.publicKey } })).status).toBe(200);
    expect(sandbox.store.payment(merchant.publicKey, String(body.paymentReference))?.status).toBe('SUCCESSFUL');
  });

  it('each bank dials its own short code; one the sandbox does not list dials *7799*', async () => {
    const gtb = (await api.as(merchant, 'POST', '/payments/initiates', ussd({ bankCode: '058' }))).body.data.payments.ussdDailCode;
    expect(gtb).toMatch(/^\*737\*000\*[0-9]{4}#$/);
    const other = (await api.as(merchant, 'POST', '/payments/initiates', ussd({ bankCode: '999' }))).body.data.payments.ussdDailCode;
    expect(other).toMatch(/^\*7799\*000\*[0-9]{4}#$/);
  });

  it('is refused without a bankCode, and OTP endpoints name what completes it; with --strict the paymentType itself is refused', async () => {
    const { bankCode: _bank, ...without } = ussd();
    const refused = await api.as(merchant, 'POST', '/payments/initiates', without);
    expect([refused.status, refused.body]).toEqual([400, { message: 'bankCode cannot be null: a USSD payment dials its bank', error: 'INPUT' }]);
    expect(sandbox.store.payment(merchant.publicKey, String(without.paymentReference))).toBeUndefined();
    const started = await api.as(merchant, 'POST', '/payments/initiates', ussd());
    const validate = await api.as(merchant, 'POST', '/payments/validate', { linkingReference: started.body.data.payments.linkingReference, otp: '123456' });
    expect([validate.status, validate.body.message]).toEqual([400, expect.stringContaining('the customer dials the code')]);
    const strict = await sandboxForTest({ strict: true });
    try {
      const client = await ApiClient.for(strict);
      const owner = await client.merchant();
      expect((await client.as(owner, 'POST', '/payments/initiates', ussd())).status).toBe(400);
    } finally {
      await strict.close();
    }
  });
});
