import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { ApiClient, cardPayment, momoPayment, sandboxWithMerchant, type TestMerchant } from '../../support/sandbox.js';

/**
 * POST /payments/otp, the provider's card OTP endpoint (docs/decisions.md#d51-card-otp;
 * the provider's card payment documentation; of its SDKs, the Python and
 * Java SDKs send a nested `transaction`, the PHP SDK's card service a flat
 * body): both shapes complete a pending card payment, and the answer carries
 * the provider's keys.
 */

let sandbox: Sandbox;
let api: ApiClient;
let merchant: TestMerchant;

beforeAll(async () => {
  ({ sandbox, api, merchant } = await sandboxWithMerchant());
});
afterAll(() => sandbox.close());

/** A pending card payment's paymentReference and linkingReference. */
async function pendingCard(): Promise<{ paymentReference: string; linkingReference: string }> {
  const body = cardPayment();
  const answer = await api.as(merchant, 'POST', '/payments/initiates', body);
  expect(answer.body.data.code).toBe('S20');
  return { paymentReference: String(body.paymentReference), linkingReference: answer.body.data.payments.linkingReference };
}

const otp = (body: Record<string, unknown>) => api.send('POST', '/payments/otp', body, `Bearer ${merchant.token}`);
const stored = (paymentReference: string) => sandbox.store.payment(merchant.publicKey, paymentReference);

describe('POST /payments/otp', () => {
  it('the nested shape (Python, Java): 00 Successful with reference and linkingreference; the payment is SUCCESSFUL', async () => {
    const { paymentReference, linkingReference } = await pendingCard();
    const answer = await otp({ transaction: { linkingreference: linkingReference, otp: '123456' } });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: 'SUCCESS', data: { code: '00', message: 'Successful', payments: { reference: paymentReference, linkingreference: linkingReference } } });
    expect(stored(paymentReference)?.status).toBe('SUCCESSFUL');
    // A second completion changes nothing: the provider's RR.
    const again = await otp({ transaction: { linkingreference: linkingReference, otp: '123456' } });
    expect(again.body.data).toMatchObject({ code: 'RR', message: 'Sorry payment already processed' });
    expect(again.headers['x-sandbox-reason']).toContain('is SUCCESSFUL');
  });

  it('the flat shape (PHP, with publicKey): a wrong OTP fails the payment (S12)', async () => {
    const { paymentReference, linkingReference } = await pendingCard();
    const answer = await otp({ linkingReference, otp: '000000', publicKey: merchant.publicKey });
    expect(answer.body.data).toMatchObject({ code: 'S12', message: 'Transaction Failed' });
    expect(stored(paymentReference)?.status).toBe('FAILED');
  });

  it('completes a 3-D Secure pre-authorisation: AUTHORIZED, not paid', async () => {
    const body = cardPayment();
    const pending = await api.as(merchant, 'POST', '/payments/authorise3ds', body);
    expect(pending.body.data.payments.status).toBe('AUTHORISATION PENDING');
    const answer = await otp({ transaction: { linkingreference: pending.body.data.payments.linkingReference, otp: '123456' } });
    expect(answer.body.data.code).toBe('00');
    expect(stored(String(body.paymentReference))).toMatchObject({ status: 'AUTHORIZED', capturedAmount: '0.00' });
  });

  it('refuses what it cannot complete: a MOMO payment (400 naming momo/otp), an unknown reference (404), a body with neither shape (400)', async () => {
    const momo = await api.as(merchant, 'POST', '/payments/initiates', momoPayment());
    const wrongKind = await otp({ transaction: { linkingreference: momo.body.data.payments.linkingReference, otp: '123456' } });
    expect(wrongKind.status).toBe(400);
    expect(wrongKind.body.message).toContain('POST /payments/momo/otp');
    const unknown = await otp({ transaction: { linkingreference: 'SBLNK_00000000000000000000', otp: '123456' } });
    expect(unknown.status).toBe(404);
    const neither = await otp({ otp: '123456' });
    expect(neither.status).toBe(400);
    expect(neither.body.error).toBe('INPUT');
  });
});

describe('the status query of a card operation', () => {
  it('has no authentication page and no 3DSECURE type when the card went through without its customer (authorise, charge); a 3-D Secure authorisation has both', async () => {
    const query = async (reference: unknown) => (await api.send('GET', `/payments/query/${String(reference)}`, undefined, `Bearer ${merchant.token}`)).body.data.payments;
    const authorised = cardPayment();
    await api.as(merchant, 'POST', '/payments/authorise', authorised);
    const charged = cardPayment();
    await api.as(merchant, 'POST', '/payments/charge', charged);
    for (const reference of [authorised.paymentReference, charged.paymentReference]) {
      const payments = await query(reference);
      expect(payments.redirectLink, String(reference)).toBeUndefined();
      expect(payments.type, String(reference)).toBeUndefined();
      expect(payments.maskedPan).toBe('5123-45xx-xxxx-0008');
    }
    const pending = cardPayment();
    await api.as(merchant, 'POST', '/payments/authorise3ds', pending);
    const payments = await query(pending.paymentReference);
    expect(payments).toMatchObject({ type: '3DSECURE', redirectLink: expect.stringContaining('/pages/authenticate/') });
  });
});
