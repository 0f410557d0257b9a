import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { sandboxWithReceiver, type Receiver } from '../support/receiver.js';
import { ApiClient, cardPayment, type TestMerchant } from '../support/sandbox.js';

/**
 * A card pre-authorisation notifies each step at a real receiver (README
 * decision 57): authorised, each capture with what was taken so far, a void,
 * and a refund.
 */

let sandbox: Sandbox;
let api: ApiClient;
let merchant: TestMerchant;
let receiver: Receiver;

let close: () => Promise<void>;

beforeAll(async () => {
  ({ sandbox, api, merchant, receiver, close } = await sandboxWithReceiver());
});
afterAll(() => close());

/** What the receiver got for one payment: each event's type, amount and gateway message. */
const told = (reference: string) => receiver.of(reference).map((item: any) => `${item.eventType} ${item.data.amount}`);

describe('the notifications of a pre-authorisation', () => {
  it('authorised, captured in two parts, refunded: four events, in order', async () => {
    const body = cardPayment({ amount: '100.00' });
    const reference = String(body.paymentReference);
    expect((await api.as(merchant, 'POST', '/payments/authorise', body)).status).toBe(201);
    const capture = (amount: string) => api.as(merchant, 'POST', '/payments/capture', { paymentReference: reference, amount, currency: 'NGN', country: 'NG', productDescription: 'part' });
    expect((await capture('40.00')).body.data.payments.status).toBe('PARTIALLY_CAPTURED');
    expect((await capture('60.00')).body.data.payments.status).toBe('CAPTURED');
    expect((await api.as(merchant, 'POST', '/payments/refund', { paymentReference: reference, amount: '25.00', currency: 'NGN', country: 'NG' })).body.data.code).toBe('00');
    await expect.poll(() => told(reference), { timeout: 5000 }).toEqual(['transaction 100', 'transaction 40', 'transaction 100', 'refund 25.00']);
  });

  it('authorised, then voided: two transaction events, the second CANCELLED', async () => {
    const body = cardPayment({ amount: '10.00' });
    const reference = String(body.paymentReference);
    await api.as(merchant, 'POST', '/payments/authorise', body);
    expect((await api.send('POST', '/payments/cancel', { publicKey: merchant.publicKey, paymentReference: reference, country: 'NG' }, merchant.basic)).body.data.code).toBe('00');
    await expect.poll(() => told(reference), { timeout: 5000 }).toEqual(['transaction 10', 'transaction 10']);
    expect(receiver.of(reference).map((item: any) => item.data.gatewayMessage)).toEqual(['APPROVED', 'APPROVED']);
    expect(sandbox.store.payment(merchant.publicKey, reference)?.status).toBe('CANCELLED');
  });
});
