import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { ControlClient } from '../support/control.js';
import { sandboxWithReceiver, type Receiver } from '../support/receiver.js';
import { ApiClient, cardPayment, type TestMerchant } from '../support/sandbox.js';

/**
 * A card pre-authorisation notifies each step at a real receiver
 * (docs/decisions.md#d57-preauth-notifications): authorised, each capture with what was taken so far,
 * a void, a refund, and an authorisation's expiry on the merchant's clock (docs/decisions.md#d48-card-operations).
 */

let sandbox: Sandbox;
let api: ApiClient;
let merchant: TestMerchant;
let receiver: Receiver;

let close: () => Promise<void>;

beforeAll(async () => {
  // Over real connections: the order of the events and the clock read below assume a client's own latency, during
  // which each notification reaches the receiver; a client served in process asks again before it has.
  ({ sandbox, merchant, receiver, close } = await sandboxWithReceiver({ listen: true }));
  api = await ApiClient.overHttp(sandbox);
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

  it('authorised and left uncaptured seven days on the merchant\'s clock: EXPIRED and notified; capture and cancel refused; a partial capture keeps the rest open', async () => {
    const control = await ControlClient.at(sandbox.url);
    const left = cardPayment({ amount: '30.00' });
    const reference = String(left.paymentReference);
    const part = cardPayment({ amount: '50.00' });
    const partReference = String(part.paymentReference);
    await api.as(merchant, 'POST', '/payments/authorise', left);
    await api.as(merchant, 'POST', '/payments/authorise', part);
    const capture = (of: string, amount: string) => api.as(merchant, 'POST', '/payments/capture', { paymentReference: of, amount, currency: 'NGN', country: 'NG', productDescription: 'late' });
    expect((await capture(partReference, '20.00')).body.data.payments.status).toBe('PARTIALLY_CAPTURED');
    const clock = (await control.send('GET', `/clock/${merchant.publicKey}`)).body;
    const expiry = clock.pending.find((item: { paymentReference: string }) => item.paymentReference === reference);
    expect(expiry).toMatchObject({ kind: 'expiry' });
    expect(Date.parse(expiry.at) - Date.parse(clock.now)).toBeGreaterThan(7 * 86_400_000 - 60_000);
    expect(clock.pending.some((item: { paymentReference: string }) => item.paymentReference === partReference)).toBe(false);

    expect((await control.send('POST', `/clock/${merchant.publicKey}/advance`, { body: { by: 'P6DT23H' } })).body.fired).toEqual([]);
    expect(sandbox.store.payment(merchant.publicKey, reference)?.status).toBe('AUTHORIZED');
    const advanced = await control.send('POST', `/clock/${merchant.publicKey}/advance`, { body: { by: 'PT1H' } });
    expect(advanced.body.fired).toContainEqual(expect.objectContaining({ kind: 'expiry', paymentReference: reference }));
    expect(sandbox.store.payment(merchant.publicKey, reference)).toMatchObject({ status: 'EXPIRED', scenario: 'authorisation-expired', code: 'S12', message: 'Transaction Expired' });
    await expect.poll(() => told(reference), { timeout: 5000 }).toEqual(['transaction 30', 'transaction 30']);
    expect(receiver.of(reference).at(-1)).toMatchObject({ data: { gatewayMessage: 'Transaction Expired' } });

    const late = await capture(reference, '30.00');
    expect(late.status).toBe(400);
    expect(late.body).toEqual({ status: 'ERROR', data: { code: 'S12', message: 'No authorised transaction found for this reference' } });
    const voided = await api.send('POST', '/payments/cancel', { publicKey: merchant.publicKey, paymentReference: reference, country: 'NG' }, merchant.basic);
    // As for any payment no longer open to a cancel (docs/decisions.md#d35-refusal-reasons): S12
    // Transaction Failed, and why.
    expect(voided.status).toBe(200);
    expect(voided.body.data).toMatchObject({ code: 'S12', message: 'Transaction Failed' });
    expect(voided.headers['x-sandbox-reason']).toBe(`payment ${reference} is EXPIRED; only a PENDING or AUTHORIZED payment can be cancelled`);
    expect(sandbox.store.payment(merchant.publicKey, reference)?.status).toBe('EXPIRED');
    // What was captured in part stays captured, and the rest can still be taken.
    expect((await capture(partReference, '30.00')).body.data.payments.status).toBe('CAPTURED');
  });
});
