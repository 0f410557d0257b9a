import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { ApiClient, accountPayment, cardPayment, sandboxWithMerchant, type TestMerchant } from '../../support/sandbox.js';
import { fetchOf } from '../../support/in-process.js';

/**
 * A state-machine refusal keeps the spec's code and message for clients and
 * says why in X-Sandbox-Reason and the journal (docs/decisions.md#d35-refusal-reasons).
 */

let sandbox: Sandbox;
let api: ApiClient;
let merchant: TestMerchant;

beforeAll(async () => {
  ({ sandbox, api, merchant } = await sandboxWithMerchant());
});
afterAll(() => sandbox.close());

const refund = (paymentReference: string, amount: string) =>
  api.send('POST', '/payments/refund', { publicKey: merchant.publicKey, paymentReference, amount, currency: 'NGN', country: 'NG' }, merchant.basic);
const cancel = (paymentReference: string) => api.send('POST', '/payments/cancel', { publicKey: merchant.publicKey, paymentReference, country: 'NG' }, merchant.basic);

async function journalReason(paymentReference: string, path: string): Promise<string | undefined> {
  const listed = await fetchOf(sandbox)(`${sandbox.url}/__sandbox/requests?publicKey=${merchant.publicKey}&paymentReference=${encodeURIComponent(paymentReference)}&path=${encodeURIComponent(path)}`);
  const body = (await listed.json()) as { requests: Array<{ reason?: string }> };
  return body.requests[0]?.reason;
}

async function paidCard(): Promise<{ reference: string; linkingReference: string }> {
  const body = cardPayment();
  const initiated = await api.as(merchant, 'POST', '/payments/initiates', body);
  const linkingReference = initiated.body.data.payments.linkingReference as string;
  const validated = await api.as(merchant, 'POST', '/payments/validate', { linkingReference, otp: '123456' });
  expect(validated.body.data.code).toBe('00');
  expect(validated.headers['x-sandbox-reason']).toBeUndefined();
  return { reference: String(body.paymentReference), linkingReference };
}

describe('refusals that say why', () => {
  it('a second validate: RR for the client, the reason for the developer, in the header and the journal', async () => {
    const { reference, linkingReference } = await paidCard();
    const again = await api.as(merchant, 'POST', '/payments/validate', { linkingReference, otp: '123456' });
    expect(again.body.data).toMatchObject({ code: 'RR', message: 'Sorry payment already processed' });
    const reason = `payment ${reference} is SUCCESSFUL; only a PENDING payment can be validated`;
    expect(again.headers['x-sandbox-reason']).toBe(reason);
    expect(await journalReason(reference, '/payments/validate')).toBe(reason);
  });

  it('a refund of a pending payment: the provider\'s 400, and why', async () => {
    const body = accountPayment();
    await api.as(merchant, 'POST', '/payments/initiates', body);
    const refused = await refund(String(body.paymentReference), '150.00');
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ status: 'ERROR', data: { code: 'S12', message: 'No authorised transaction found for this reference' } });
    expect(refused.headers['x-sandbox-reason']).toBe(`payment ${body.paymentReference} is PENDING; only a SUCCESSFUL, CAPTURED or PARTIALLY_CAPTURED payment can be refunded`);
  });

  it('a refund beyond what is left, then of a payment refunded in full, and a cancel of a paid one: S12, each with its reason', async () => {
    const { reference } = await paidCard();
    const tooMuch = await refund(reference, '2000.00');
    expect(tooMuch.body.data).toMatchObject({ code: 'S12', message: 'Transaction Failed' });
    expect(tooMuch.headers['x-sandbox-reason']).toBe(`a refund of 2000.00 is more than the 1500.00 NGN left of payment ${reference}`);
    expect((await refund(reference, '1500.00')).body.data.code).toBe('00');
    const twice = await refund(reference, '1.00');
    expect(twice.headers['x-sandbox-reason']).toBe(`payment ${reference} is already refunded in full (1500.00 NGN)`);
    const cancelled = await cancel(reference);
    expect(cancelled.body.data).toMatchObject({ code: 'S12', message: 'Transaction Failed' });
    expect(cancelled.headers['x-sandbox-reason']).toBe(`payment ${reference} is REFUNDED; only a PENDING or AUTHORIZED payment can be cancelled`);
    expect(await journalReason(reference, '/payments/cancel')).toBe(cancelled.headers['x-sandbox-reason']);
  });

  it('a reference that is not header-safe is kept readable, never breaking the answer', async () => {
    const body = accountPayment({ paymentReference: 'SBREF-ÉTÉ-1' });
    await api.as(merchant, 'POST', '/payments/initiates', body);
    const refused = await refund('SBREF-ÉTÉ-1', '150.00');
    expect(refused.status).toBe(400);
    expect(refused.headers['x-sandbox-reason']).toBe('payment SBREF-?T?-1 is PENDING; only a SUCCESSFUL, CAPTURED or PARTIALLY_CAPTURED payment can be refunded');
  });
});
