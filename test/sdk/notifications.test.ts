import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { redactText } from '../../src/redaction/redact.js';
import { ControlClient, eventually } from '../support/control.js';
import { TIMEOUT } from '../support/process.js';
import { accountPayment, type ApiClient, type TestMerchant } from '../support/sandbox.js';
import { acknowledge, odooAnswer, Receiver } from '../support/receiver.js';
import { SAMPLE_KEYS, sandboxForSamples, SdkSamples, type SamplesSandbox } from './sdk-samples.js';

/**
 * The provider's Node SDK flow of the README (seerbit-nodejs 0.3.0, run
 * unchanged in its own process through HTTPS_PROXY, as
 * seerbit-nodejs.test.ts runs it), with the merchant's notification
 * receiver beside it: a real HTTP server on 127.0.0.1 that acknowledges as
 * the provider's webhook page asks. The receiver gets the payment's
 * `transaction` event, and the refund's `refund` event, in the provider's
 * shape; a receiver answering as the provider's Odoo plugin does is not
 * counted as having acknowledged.
 */

/** How long any one notification may take to arrive. */
const ARRIVES_WITHIN_MS = 5_000;

const EVENT_DATE = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;
const EVENT_ID = /^[0-9a-f]{32}$/;

let setup: SamplesSandbox;
let sandbox: Sandbox;
let api: ApiClient;
let control: ControlClient;
let samples: SdkSamples;
let merchant: TestMerchant;
let receiver: Receiver;
let odoo: Receiver;

beforeAll(async () => {
  setup = await sandboxForSamples();
  ({ sandbox, api, control, samples, merchant } = setup);
  receiver = await Receiver.start(acknowledge);
  odoo = await Receiver.start(odooAnswer);
}, TIMEOUT);

afterAll(async () => {
  await setup?.dispose();
  await receiver?.close();
  await odoo?.close();
});

/** Sets the merchant's notification URL over the control API, as a merchant's test setup would. */
async function setWebhook(publicKey: string, url: string): Promise<void> {
  const response = await control.send('PUT', `/webhooks/${encodeURIComponent(publicKey)}`, { body: { url } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect(response.body).toMatchObject({ publicKey, url, source: 'merchant', schedule: 'current' });
}

/** The deliveries of a payment as `GET /__sandbox/webhooks/deliveries?paymentReference=` lists them. */
async function deliveriesOf(paymentReference: string): Promise<any[]> {
  const response = await control.send('GET', '/webhooks/deliveries', { query: { paymentReference } });
  expect(response.status).toBe(200);
  return response.body.deliveries;
}

/** `source` with `from` replaced by `to`, failing when the sample no longer contains `from`. */
function edited(source: string, from: string, to: string): string {
  expect(source, `the sample contains ${from}`).toContain(from);
  return source.replace(from, to);
}

/** A form POST of the hosted pages, as the customer's browser sends it; the answer's redirect is not followed. */
async function submit(url: string, fields: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
    signal: AbortSignal.timeout(ARRIVES_WITHIN_MS),
  });
}

describe('the README SDK flow with a receiver beside it', () => {
  let paymentReference: string;
  let transactionDelivery: any;

  it(
    'StandardCheckout.Initialize, the customer pays by card on the checkout page with OTP 123456: the receiver gets one transaction event, in the provider\'s shape, acknowledged',
    async () => {
      await setWebhook(SAMPLE_KEYS.publicKey, receiver.url);

      // The SDK README's Standard Checkout, unchanged.
      const run = await samples.run('standard-checkout', await SdkSamples.readmeStandardCheckout());
      expect(run.printed, run.stdout + run.stderr).toMatchObject({ status: 'SUCCESS', data: { code: '00' } });
      const redirectLink: string = run.printed.data.payments.redirectLink;
      const payments = (await control.send('GET', '/payments', { query: { publicKey: SAMPLE_KEYS.publicKey } })).body.payments as any[];
      const stored = payments.find((payment) => redirectLink.endsWith(`/${encodeURIComponent(payment.linkingReference)}`));
      expect(stored, `the payment behind ${redirectLink}`).toMatchObject({ status: 'PENDING', method: 'CHECKOUT' });
      // The reference as the SDK sent it: the control API shows one that looks like a card number masked (docs/decisions.md#d86-one-redaction-rule),
      // and the sample's reference is the time in milliseconds, which passes the Luhn check one time in ten.
      paymentReference = sandbox.store.records(SAMPLE_KEYS.publicKey).payments.find((payment) => payment.linkingReference === stored.linkingReference)!.paymentReference;
      // A payment still pending causes no notification.
      expect(await deliveriesOf(paymentReference)).toEqual([]);

      // The customer follows the redirectLink: pays by card, then approves with the OTP.
      const paid = await submit(redirectLink, { action: 'card', cardNumber: '5123 4500 0000 0008', expiry: '09/30', cvv: '123' });
      expect(paid.status).toBe(303);
      const authenticate = new URL(paid.headers.get('location')!, redirectLink).toString();
      expect(authenticate).toContain('/pages/authenticate/');
      const approved = await submit(authenticate, { action: 'approve', otp: '123456' });
      expect([200, 303]).toContain(approved.status);

      const delivered = await sandbox.webhooks.waitFor({ paymentReference, eventType: 'transaction' }, ARRIVES_WITHIN_MS);

      // The merchant checks the payment with the SDK's VerificationService, as the SDK's sample does.
      const verified = await samples.run('verify', edited(await SdkSamples.sample('verifyTransaction.js'), '"1614510868673"', JSON.stringify(paymentReference)));
      expect(verified.printed, verified.stdout + verified.stderr).toMatchObject({ data: { code: '00', payments: { paymentReference } } });

      // What the receiver got: one transaction event for the payment.
      const transactions = receiver.events().filter(({ event }) => event?.eventType === 'transaction' && event?.data?.reference === paymentReference);
      expect(transactions, JSON.stringify(receiver.received.map((request) => request.body))).toHaveLength(1);
      const { event, request } = transactions[0]!;
      expect(request.method).toBe('POST');
      expect(request.path).toBe('/webhook');
      expect(request.headers['content-type']).toMatch(/^application\/json/);
      expect(Object.keys(request.body)).toEqual(['notificationItems']);
      expect(request.body.notificationItems).toHaveLength(1);
      expect(Object.keys(request.body.notificationItems[0])).toEqual(['notificationRequestItem']);
      expect(event).toMatchObject({ eventType: 'transaction', eventDate: expect.stringMatching(EVENT_DATE), eventId: expect.stringMatching(EVENT_ID) });
      expect(typeof event.data.amount).toBe('number');
      expect(event.data.amount).toBe(100);
      expect(event.data).toMatchObject({
        reference: paymentReference,
        publicKey: SAMPLE_KEYS.publicKey,
        gatewayCode: '00',
        code: '00',
        currency: 'NGN',
        country: 'NG',
        email: 'testmerchant@mail.com',
        maskedPan: '5123-45xx-xxxx-0008',
        cardBin: '512345',
        lastFourDigits: '0008',
        paymentType: 'CARD',
      });
      expect(typeof event.data.gatewayMessage).toBe('string');
      expect(event.data.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
      // The header to echo came with it, and is the delivery's.
      const ackReference = request.headers['x-expected-ack-reference'];
      expect(typeof ackReference).toBe('string');
      expect(ackReference).not.toBe('');
      expect(ackReference).toBe(delivered.ackReference);
      expect(event.eventId).toBe(delivered.event.eventId);

      // The control API: the payment's one delivery, delivered at the first attempt, acknowledged.
      const deliveries = await deliveriesOf(paymentReference);
      expect(deliveries).toHaveLength(1);
      transactionDelivery = deliveries[0];
      // The SDK's reference is a Date.now() number, which can pass Luhn: the control API shows it as a card number is shown (docs/decisions.md#d86-one-redaction-rule).
      expect(transactionDelivery).toMatchObject({ id: delivered.id, publicKey: SAMPLE_KEYS.publicKey, paymentReference: redactText(paymentReference), state: 'delivered', ackReference, event: { eventType: 'transaction', eventId: event.eventId } });
      expect(transactionDelivery.attempts).toHaveLength(1);
      expect(transactionDelivery.attempts[0]).toMatchObject({ url: receiver.url, ackReference, status: 200, acknowledged: true });
      expect(transactionDelivery.attempts[0]).not.toHaveProperty('reason');
    },
    TIMEOUT,
  );

  it(
    'a refund: the SDK\'s RefundPreAuth goes as GET and refunds nothing; the README\'s POST /payments/refund does, and the receiver gets one refund event',
    async () => {
      expect(paymentReference, 'the payment of the previous test').toBeDefined();

      // The SDK's only refund call (its sample calls a method it does not have; RefundPreAuth is what it has): sent as GET, refused.
      const shipped = await SdkSamples.sample('card/refundPayment.js');
      const sdkRefund = await samples.run(
        'refund-pre-auth',
        edited(edited(shipped, 'checkout.Refund(payload)', 'checkout.RefundPreAuth(payload)'), 'paymentReference: ""', `paymentReference: ${JSON.stringify(paymentReference)}`),
      );
      expect(sdkRefund.printed, sdkRefund.stdout + sdkRefund.stderr).toMatchObject({ name: 'HttpClientException', statusCode: 405 });
      expect((await deliveriesOf(paymentReference)).filter((delivery) => delivery.event.eventType === 'refund')).toEqual([]);

      // The refund as the README sends it, with the merchant's Basic credentials.
      const refunded = await api.send(
        'POST',
        '/payments/refund',
        { publicKey: SAMPLE_KEYS.publicKey, paymentReference, amount: '40.00', currency: 'NGN', country: 'NG' },
        merchant.basic,
      );
      expect(refunded.status, JSON.stringify(refunded.body)).toBe(200);
      expect(refunded.body.data).toMatchObject({ code: '00' });

      const delivered = await sandbox.webhooks.waitFor({ paymentReference, eventType: 'refund' }, ARRIVES_WITHIN_MS);

      const refunds = receiver.events().filter(({ event }) => event?.eventType === 'refund' && event?.data?.transactionRef === paymentReference);
      expect(refunds, JSON.stringify(receiver.received.map((request) => request.body))).toHaveLength(1);
      const { event, request } = refunds[0]!;
      expect(event).toMatchObject({ eventType: 'refund', eventDate: expect.stringMatching(EVENT_DATE), eventId: expect.stringMatching(EVENT_ID) });
      expect(event.eventId).not.toBe(transactionDelivery.event.eventId);
      expect(typeof event.data.amount).toBe('string');
      expect(event.data).toMatchObject({ amount: '40.00', transactionRef: paymentReference, type: 'PARTIAL_REFUND', mode: 'TEST' });
      expect(request.headers['x-expected-ack-reference']).toBe(delivered.ackReference);

      // Still exactly one transaction event: the refund made no second one.
      expect(receiver.events().filter(({ event: other }) => other?.eventType === 'transaction' && other?.data?.reference === paymentReference)).toHaveLength(1);

      const deliveries = await deliveriesOf(paymentReference);
      // Newest first: the refund, then the transaction.
      expect(deliveries.map((delivery) => [delivery.event.eventType, delivery.state, delivery.attempts.length])).toEqual([
        ['refund', 'delivered', 1],
        ['transaction', 'delivered', 1],
      ]);
      expect(deliveries[0].attempts[0]).toMatchObject({ url: receiver.url, ackReference: delivered.ackReference, status: 200, acknowledged: true });
    },
    TIMEOUT,
  );
});

describe('a receiver answering as the provider\'s Odoo plugin does', () => {
  it(
    '200 {"status":"success"} without the ackReference does not acknowledge: the delivery stays scheduled, its attempt says why',
    async () => {
      const shop = await api.merchant();
      await setWebhook(shop.publicKey, odoo.url);
      const initiated = await api.as(shop, 'POST', '/payments/initiates', accountPayment());
      expect(initiated.status, JSON.stringify(initiated.body)).toBe(200);
      const { paymentReference, linkingReference } = initiated.body.data.payments;
      const validated = await api.as(shop, 'POST', '/payments/validate', { linkingReference, otp: '123456' });
      expect(validated.body.data, JSON.stringify(validated.body)).toMatchObject({ code: '00' });

      const delivery = await eventually(
        `the first attempt of ${paymentReference}'s notification`,
        async () => (await deliveriesOf(paymentReference)).find((candidate) => candidate.attempts.length > 0),
        ARRIVES_WITHIN_MS / 50,
        50,
      );
      expect(odoo.received).toHaveLength(1);
      const sent = odoo.received[0]!;
      expect(sent.body.notificationItems[0].notificationRequestItem).toMatchObject({ eventType: 'transaction', data: { reference: paymentReference, publicKey: shop.publicKey } });
      expect(sent.headers['x-expected-ack-reference']).toBe(delivery.ackReference);

      expect(delivery).toMatchObject({ state: 'scheduled', event: { eventType: 'transaction' } });
      expect(typeof delivery.dueAt).toBe('string');
      expect(delivery.attempts).toHaveLength(1);
      expect(delivery.attempts[0]).toMatchObject({ url: odoo.url, status: 200, acknowledged: false });
      expect(delivery.attempts[0].reason).toMatch(/ackReference/);
      await expect(sandbox.webhooks.waitFor({ paymentReference }, 200)).rejects.toThrow(/no delivered delivery/);
    },
    TIMEOUT,
  );
});
