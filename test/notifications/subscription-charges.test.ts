import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { ControlClient } from '../support/control.js';
import { sandboxWithReceiver, type Receiver } from '../support/receiver.js';
import { ApiClient, freshReference, type TestMerchant } from '../support/sandbox.js';

/**
 * A subscription's charges fall due on its merchant's clock, and each is
 * notified at a real receiver as `transaction.recurrent`, in the provider's
 * shape (its webhook page, 7.5); an authorised debit as
 * `transaction.recurring.debit` (7.6). README, "Subscriptions"; docs/decisions.md#d59-subscriptions.
 */

let sandbox: Sandbox;
let api: ApiClient;
let merchant: TestMerchant;
let receiver: Receiver;
let control: ControlClient;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ sandbox, api, merchant, receiver, close } = await sandboxWithReceiver());
  control = await ControlClient.for(sandbox);
});
afterAll(() => close());

/** Starts a subscription and pays its first payment; its billingId. */
async function paidSubscription(fields: Record<string, unknown>): Promise<string> {
  const paymentReference = freshReference();
  const started = await api.as(merchant, 'POST', '/recurring/subscribes', {
    paymentReference, amount: '1000.00', currency: 'NGN', country: 'NG', cardNumber: '5123450000000008', cvv: '100', expiryMonth: '05', expiryYear: '30',
    productDescription: 'Pilot Test Subscription', productId: 'Terrain', email: 'kolade@example.com', mobileNumber: '08033456500', ...fields,
  });
  expect(started.body.data.code).toBe('S20');
  expect((await api.as(merchant, 'POST', '/payments/validate', { linkingReference: started.body.data.payments.linkingReference, otp: '123456' })).body.data.code).toBe('00');
  return paymentReference;
}

const advance = async (by: string) => (await control.send('POST', `/clock/${merchant.publicKey}/advance`, { body: { by } })).body;

/** The recurrent events the receiver got for one subscription's charges, in arrival order. */
const chargesOf = (billingId: string) =>
  receiver.events().map(({ event }) => event).filter((event) => event.eventType === 'transaction.recurrent' && String(event.data.reference).startsWith(`${billingId}-`));

describe('a subscription charged on its merchant\'s clock', () => {
  it('a monthly subscription from 31 January: a year of the clock makes twelve charges, in order, each notified once, on the months\' last days when shorter', async () => {
    const now = new Date(Date.parse((await control.send('GET', `/clock/${merchant.publicKey}`)).body.now));
    const year = now.getUTCFullYear() + 1;
    const billingId = await paidSubscription({ billingCycle: 'MONTHLY', startDate: `${year}-01-31 09:00:00` });
    // Up to the start date, then a year on: the start date's charge and eleven more.
    const fired = [...(await advance('P420D')).fired].filter((item: { kind: string; paymentReference: string }) => item.kind === 'charge' && item.paymentReference.startsWith(`${billingId}-`));
    expect(fired.map((item: { paymentReference: string }) => item.paymentReference)).toEqual(Array.from({ length: fired.length }, (_, n) => `${billingId}-${n + 1}`));
    expect(fired.length).toBeGreaterThanOrEqual(12);
    const days = fired.slice(0, 3).map((item: { at: string }) => item.at.slice(5, 16));
    const february = new Date(Date.UTC(year, 2, 0)).getUTCDate();
    expect(days).toEqual(['01-31T09:00', `02-${february}T09:00`, '03-31T09:00']);
    await expect.poll(() => chargesOf(billingId).length, { timeout: 10_000 }).toBe(fired.length);
    const events = chargesOf(billingId);
    expect(events.map((event) => event.data.reference)).toEqual(fired.map((item: { paymentReference: string }) => item.paymentReference));
    // The provider's sample's fields: amount a string, no currency, gatewayCode or code; the card masked.
    expect(events[0].data).toMatchObject({
      amount: '1000.00', reference: `${billingId}-1`, publicKey: merchant.publicKey, description: 'Pilot Test Subscription', productId: 'Terrain',
      maskedPan: '5123-45xx-xxxx-0008', email: 'kolade@example.com', mobile: '08033456500', country: 'NG', narration: 'Reccurrent', lastFourDigits: '0008', cardBin: '512345',
      gatewayMessage: 'Successful',
    });
    for (const absent of ['currency', 'gatewayCode', 'code']) expect(events[0].data).not.toHaveProperty(absent);
    expect(events.map((event) => event.eventDate)).toEqual(fired.map((item: { at: string }) => `${item.at.slice(0, 10)} ${item.at.slice(11, 19)}`));
    // Each charge is a payment the status query answers.
    const query = await api.as(merchant, 'GET', `/payments/query/${billingId}-2`);
    expect([query.body.data.code, query.body.data.payments.amount]).toEqual(['00', 1000]);
  });

  it('a declining card\'s charges fail, are notified with their gatewayMessage, and the subscription stays ACTIVE', async () => {
    const billingId = await paidSubscription({ billingCycle: 'WEEKLY', cardNumber: '4000000000000341' });
    const fired = (await advance('P15D')).fired.filter((item: { kind: string; paymentReference: string }) => item.kind === 'charge' && item.paymentReference.startsWith(`${billingId}-`));
    expect(fired.map((item: { paymentReference: string }) => item.paymentReference)).toEqual([`${billingId}-1`, `${billingId}-2`]);
    await expect.poll(() => chargesOf(billingId).map((event) => event.data.gatewayMessage), { timeout: 10_000 }).toEqual(['Transaction Failed', 'Transaction Failed']);
    expect(sandbox.store.payment(merchant.publicKey, `${billingId}-1`)?.status).toBe('FAILED');
    expect(sandbox.store.payment(merchant.publicKey, billingId)?.subscription).toMatchObject({ status: 'ACTIVE', charges: 2 });
  });

  it('an authorised debit is notified as transaction.recurring.debit, in the provider\'s shape', async () => {
    const billingId = await paidSubscription({ billingCycle: 'ANNUALLY', fullName: 'Frank Gboyega' });
    const code = (await api.as(merchant, 'GET', `/recurring/billingId/${billingId}`)).body.data.subscriptions.authorizationCode;
    const reference = freshReference();
    expect((await api.as(merchant, 'POST', '/recurring/charge', { amount: '2000', authorizationCode: code, paymentReference: reference, currency: 'NGN', email: 'gboyega@example.com' })).body.data.code).toBe('00');
    await expect.poll(() => receiver.of(reference).length, { timeout: 5000 }).toBe(1);
    const event = receiver.of(reference)[0]!;
    expect(event.eventType).toBe('transaction.recurring.debit');
    expect(event.data).toMatchObject({
      amount: '2000.00', reference, gatewayMessage: 'Successful', publicKey: merchant.publicKey, description: 'Authorised charge', channelType: 'Recurring Debit',
      maskedPan: '5123-45xx-xxxx-0008', type: 'TOKEN', fullname: 'Frank Gboyega', email: 'gboyega@example.com', currency: 'NGN', narration: 'Authorised charge', paymentType: 'card',
    });
  });
});
