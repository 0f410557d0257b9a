import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactText } from '../../src/redaction/redact.js';
import { ControlClient } from '../support/control.js';
import { TIMEOUT } from '../support/process.js';
import { freshReference, type ApiClient, type TestMerchant } from '../support/sandbox.js';
import { SAMPLE_KEYS, sandboxForSamples, SdkSamples, type SampleRun, type SamplesSandbox } from './sdk-samples.js';

/**
 * The subscription calls of the provider's Node SDK (seerbit-nodejs,
 * RecurrentCheckout) against the sandbox, run as its samples/recurrent/*.js
 * are, through HTTPS_PROXY (README, "Subscriptions: charged on the
 * merchant's clock"; docs/decisions.md#d59-subscriptions). The SDK has no OTP call, so the first
 * payment of a subscription is paid over raw HTTP, as a customer's page would.
 */

let setup: SamplesSandbox;
let api: ApiClient;
let control: ControlClient;
let samples: SdkSamples;
let merchant: TestMerchant;

beforeAll(async () => {
  setup = await sandboxForSamples();
  ({ api, control, samples, merchant } = setup);
}, TIMEOUT);

afterAll(async () => {
  await setup?.dispose();
});

/** `source` with `from` replaced by `to`, failing when the sample no longer contains `from`. */
function edited(source: string, from: string, to: string): string {
  expect(source, `the sample contains ${from}`).toContain(from);
  return source.replace(from, to);
}

/** `samples/<path>` as shipped, each `[from, to]` edit made. */
async function sample(path: string, ...edits: Array<[string, string]>): Promise<string> {
  let source = await SdkSamples.sample(path);
  for (const [from, to] of edits) source = edited(source, from, to);
  return source;
}

/** What the SDK resolved with, failing with everything the sample printed when it rejected or printed nothing. */
function resolved(run: SampleRun): any {
  expect(run.printed?.status, run.stdout + run.stderr).toBe('SUCCESS');
  return run.printed;
}

/** The samples' merchant's journal entries for `path` below /api/v2; a reference in it that passes Luhn is kept masked, so the filter is masked alike. */
async function journal(path: string): Promise<any[]> {
  return (await control.send('GET', '/requests', { query: { publicKey: SAMPLE_KEYS.publicKey, path: redactText(path) } })).body.requests;
}

/** The samples' merchant's stored payment of `paymentReference`, as the control API shows it, if any. */
async function storedPayment(paymentReference: string): Promise<any | undefined> {
  const found = await control.send('GET', `/payments/${encodeURIComponent(paymentReference)}`, { query: { publicKey: SAMPLE_KEYS.publicKey } });
  return found.status === 200 ? found.body : undefined;
}

/** The merchant's clock now, epoch ms (it runs ahead of real time once a test advanced it). */
async function clockNow(): Promise<number> {
  return Date.parse((await control.send('GET', `/clock/${SAMPLE_KEYS.publicKey}`)).body.now);
}

/**
 * Runs samples/recurrent/create.js (its paymentReference a Date.now() number,
 * as shipped) with `edits`; its S20 answer.
 */
async function created(name: string, ...edits: Array<[string, string]>): Promise<{ billingId: string; linkingReference: string; redirectUrl: string }> {
  const run = await samples.run(name, await sample('recurrent/create.js', ...edits));
  const answer = resolved(run);
  expect(answer.data, run.stdout).toMatchObject({ code: 'S20', message: 'Transaction is pending' });
  const { paymentReference, linkingReference, redirectUrl } = answer.data.payments;
  return { billingId: paymentReference, linkingReference, redirectUrl };
}

/** Pays a subscription's first payment with the OTP, as the customer does on the page; the SDK has no such call. */
async function paid(linkingReference: string): Promise<void> {
  const answer = await api.as(merchant, 'POST', '/payments/validate', { linkingReference, otp: '123456' });
  expect(answer.body.data.code, JSON.stringify(answer.body)).toBe('00');
}

/** A subscription started by create.js with `edits` and paid; its billingId. */
async function activeSubscription(name: string, ...edits: Array<[string, string]>): Promise<string> {
  const { billingId, linkingReference } = await created(name, ...edits);
  await paid(linkingReference);
  return billingId;
}

/** RecurrentCheckout.CheckSubscriptionStatus through samples/recurrent/checkStatus.js; what it resolved with. */
async function subscriptionStatus(name: string, billingId: string): Promise<any> {
  return resolved(await samples.run(name, await sample('recurrent/checkStatus.js', ['"1614510868673"', JSON.stringify(billingId)])));
}

describe('seerbit-nodejs 0.3.0 RecurrentCheckout through HTTPS_PROXY', () => {
  it(
    'CreateRecurringSubscription (samples/recurrent/create.js, paymentReference a Date.now() number): S20 with the reference as a string, linkingReference and the authentication page; accepted with a warning',
    async () => {
      const { billingId, linkingReference, redirectUrl } = await created('create');
      expect(billingId).toMatch(/^\d{13}$/);
      expect(redirectUrl).toBe(`${setup.sandbox.publicUrl}/pages/authenticate/${linkingReference}`);
      const entries = await journal('/recurring/subscribes');
      const entry = entries.find((item) => item.paymentReference === redactText(billingId));
      expect(entry, JSON.stringify(entries)).toMatchObject({ method: 'POST', status: 200, warnings: ['paymentReference: a JSON number, the spec sends a string'] });
      // Until the OTP the subscription waits, with no authorizationCode to charge.
      expect((await subscriptionStatus('status-before-otp', billingId)).data.subscriptions).toMatchObject({ status: 'INACTIVE', authorizationCode: '' });
    },
    TIMEOUT,
  );

  it(
    'CheckSubscriptionStatus (samples/recurrent/checkStatus.js, sent as GET with a body) once the OTP is given: 00 ACTIVE with an authorizationCode, the card masked, startDate as sent, createdAt in epoch ms',
    async () => {
      const { billingId, linkingReference } = await created('create-for-status');
      const startedAt = await clockNow();
      await paid(linkingReference);
      const answer = await subscriptionStatus('status', billingId);
      expect(answer.data).toMatchObject({
        code: '00',
        message: 'Successful',
        subscriptions: {
          publicKey: SAMPLE_KEYS.publicKey,
          billingId,
          status: 'ACTIVE',
          amount: '1000.00',
          cardNumber: '5123-45xx-xxxx-0008',
          cardName: 'Kolade Samuel',
          customerId: '12345678901234',
          startDate: '2020-02-25 00:00:00',
        },
      });
      const { authorizationCode, createdAt } = answer.data.subscriptions;
      expect(authorizationCode).toMatch(/^[0-9a-f]{20}$/);
      expect(Number.isInteger(createdAt)).toBe(true);
      expect(Math.abs(createdAt - startedAt)).toBeLessThan(60_000);
      expect((await journal(`/recurring/billingId/${billingId}`)).some((entry) => entry.method === 'GET' && entry.status === 200)).toBe(true);
    },
    TIMEOUT,
  );

  it(
    'GetSubscriptions (samples/recurrent/subscriptions.js): 00 successful with the merchant\'s subscriptions, oldest first',
    async () => {
      const first = await activeSubscription('create-for-list-1');
      const second = await activeSubscription('create-for-list-2', ['"customerId":"12345678901234"', '"customerId":"LIST-OTHER"']);
      const answer = resolved(await samples.run('subscriptions', await sample('recurrent/subscriptions.js')));
      expect([answer.data.code, answer.data.message]).toEqual(['00', 'successful']);
      const listed: any[] = answer.data.subscriptions;
      expect(Array.isArray(listed)).toBe(true);
      expect(new Set(listed.map((item) => item.publicKey))).toEqual(new Set([SAMPLE_KEYS.publicKey]));
      const billingIds = listed.map((item) => item.billingId);
      expect(billingIds).toEqual(expect.arrayContaining([first, second]));
      expect(billingIds.indexOf(first)).toBeLessThan(billingIds.indexOf(second));
      expect(listed.find((item) => item.billingId === second)).toMatchObject({ customerId: 'LIST-OTHER', status: 'ACTIVE' });
      expect((await journal(`/recurring/publicKey/${SAMPLE_KEYS.publicKey}`)).some((entry) => entry.method === 'GET' && entry.status === 200)).toBe(true);
    },
    TIMEOUT,
  );

  it(
    'GetCustomerSubscriptions (samples/recurrent/customerSubscriptions.js calling it): that customer\'s subscriptions only; the sample as shipped calls GetSubscriptions and lists every customer\'s',
    async () => {
      const customer = `CUST-${Date.now()}`;
      const mine = await activeSubscription('create-for-customer', ['"customerId":"12345678901234"', `"customerId":"${customer}"`]);
      const other = await activeSubscription('create-for-another-customer', ['"customerId":"12345678901234"', `"customerId":"${customer}-OTHER"`]);
      const run = await samples.run(
        'customer-subscriptions',
        await sample('recurrent/customerSubscriptions.js', ['checkout.GetSubscriptions({customerId: ""})', `checkout.GetCustomerSubscriptions({customerId: ${JSON.stringify(customer)}})`]),
      );
      const answer = resolved(run);
      expect([answer.data.code, answer.data.message]).toEqual(['00', 'successful']);
      expect(answer.data.subscriptions.map((item: { billingId: string; customerId: string }) => [item.billingId, item.customerId])).toEqual([[mine, customer]]);
      const entries = await journal(`/recurring/publicKey/${SAMPLE_KEYS.publicKey}/customerId/${customer}`);
      expect(entries.some((entry) => entry.method === 'GET' && entry.status === 200), JSON.stringify(entries)).toBe(true);
      const shipped = resolved(await samples.run('customer-subscriptions-as-shipped', await sample('recurrent/customerSubscriptions.js')));
      expect(shipped.data.subscriptions.map((item: { billingId: string }) => item.billingId)).toEqual(expect.arrayContaining([mine, other]));
    },
    TIMEOUT,
  );

  it(
    'ChargeRecurringSubscription (samples/recurrent/charge.js with the subscription\'s authorizationCode): 00 Successful with the documentation\'s payments; the charge is a paid payment',
    async () => {
      const billingId = await activeSubscription('create-for-charge');
      const { authorizationCode } = (await subscriptionStatus('status-for-charge', billingId)).data.subscriptions;
      const paymentReference = freshReference();
      const run = await samples.run(
        'charge',
        await sample('recurrent/charge.js', ['"authorizationCode": ""', `"authorizationCode": ${JSON.stringify(authorizationCode)}`], ['"1614546392466"', JSON.stringify(paymentReference)]),
      );
      expect(resolved(run).data).toEqual({
        code: '00',
        message: 'Successful',
        payments: {
          code: '00',
          message: 'Successful',
          paymentReference,
          publicKey: SAMPLE_KEYS.publicKey,
          amount: '1000.00',
          currency: 'NGN',
          country: 'NG',
          email: 'akintoyekolawole@gmail.com',
          productDescription: 'Authorised charge',
        },
      });
      expect(await storedPayment(paymentReference), paymentReference).toMatchObject({ status: 'SUCCESSFUL', code: '00', amount: '1000.00' });
      expect((await journal('/recurring/charge')).some((entry) => entry.method === 'POST' && entry.status === 200 && entry.paymentReference === paymentReference)).toBe(true);
    },
    TIMEOUT,
  );

  it(
    'ChargeRecurringSubscription of a subscription on card 4000000000000341: the SDK resolves with S12, the charge is declined',
    async () => {
      const billingId = await activeSubscription('create-declining', ['"cardNumber":"5123450000000008"', '"cardNumber":"4000000000000341"']);
      const { authorizationCode } = (await subscriptionStatus('status-declining', billingId)).data.subscriptions;
      expect(authorizationCode).toMatch(/^[0-9a-f]{20}$/);
      const paymentReference = freshReference();
      const run = await samples.run(
        'charge-declined',
        await sample('recurrent/charge.js', ['"authorizationCode": ""', `"authorizationCode": ${JSON.stringify(authorizationCode)}`], ['"1614546392466"', JSON.stringify(paymentReference)]),
      );
      expect(run.printed, run.stdout + run.stderr).toMatchObject({ data: { code: 'S12' } });
      expect(await storedPayment(paymentReference), paymentReference).toMatchObject({ status: 'FAILED', code: 'S12' });
    },
    TIMEOUT,
  );

  it(
    'ChargeRecurringSubscription as shipped (authorizationCode "") and with an unknown code: HTTP 400 S12; the SDK rejects with an HttpClientException whose statusCode is the body\'s "ERROR", and nothing is charged',
    async () => {
      const providerBody = { status: 'ERROR', data: { code: 'S12', message: 'Invalid/Missing parameters = authorizationCode' } };
      const unknownReference = freshReference();
      const runs = [
        await samples.run('charge-as-shipped', await sample('recurrent/charge.js')),
        await samples.run(
          'charge-unknown-code',
          await sample('recurrent/charge.js', ['"authorizationCode": ""', '"authorizationCode": "0123456789abcdef0123"'], ['"1614546392466"', JSON.stringify(unknownReference)]),
        ),
      ];
      for (const run of runs) {
        // The SDK takes the `status` of a failed answer's JSON body for its statusCode: the caller never sees the HTTP status.
        expect(run.printed, run.stdout + run.stderr).toMatchObject({ name: 'HttpClientException', statusCode: 'ERROR', message: 'HTTP Exception: ERROR. Bad Request: undefined' });
        expect(JSON.parse(run.printed.responseBody)).toEqual(providerBody);
      }
      expect(await storedPayment('1614546392466')).toBeUndefined();
      expect(await storedPayment(unknownReference)).toBeUndefined();
      const refused = (await journal('/recurring/charge')).filter((entry) => entry.method === 'POST' && entry.status === 400);
      expect(refused.map((entry) => entry.paymentReference)).toEqual(expect.arrayContaining([redactText('1614546392466'), unknownReference]));
    },
    TIMEOUT,
  );

  it(
    'UpdateRecurringSubscription (samples/recurrent/update.js on a subscription of its own) is sent as GET: the SDK rejects with 405, Allow: PUT and a body naming PUT; the subscription stays ACTIVE',
    async () => {
      const billingId = await activeSubscription('create-for-update');
      const run = await samples.run('update', await sample('recurrent/update.js', ['"billingId":"0999"', `"billingId":${JSON.stringify(billingId)}`]));
      expect(run.printed, run.stdout + run.stderr).toMatchObject({ name: 'HttpClientException', statusCode: 405, responseHeaders: { allow: 'PUT' } });
      expect(JSON.parse(run.printed.responseBody)).toEqual({ message: 'Method Not Allowed', error: 'GET is not supported by /api/v2/recurring/updates: send PUT' });
      // The sample asks INACTIVE; nothing of it was carried out.
      expect((await subscriptionStatus('status-after-update', billingId)).data.subscriptions.status).toBe('ACTIVE');
      expect((await journal('/recurring/updates')).some((entry) => entry.method === 'GET' && entry.status === 405)).toBe(true);
    },
    TIMEOUT,
  );

  it(
    'a WEEKLY subscription (create.js) and the merchant\'s clock advanced by P21D: charges <billingId>-1..3 fall due, CheckSubscriptionStatus still ACTIVE, and VerificationService.Verify answers each charge paid',
    async () => {
      const billingId = await activeSubscription('create-weekly');
      const authorizationCode = (await subscriptionStatus('status-weekly-before', billingId)).data.subscriptions.authorizationCode;
      const advanced = await control.send('POST', `/clock/${SAMPLE_KEYS.publicKey}/advance`, { body: { by: 'P21D' } });
      expect(advanced.status, JSON.stringify(advanced.body)).toBe(200);
      const charges = [1, 2, 3].map((n) => `${billingId}-${n}`);
      const fired = (advanced.body.fired as Array<{ kind: string; paymentReference: string }>).filter((item) => item.kind === 'charge' && item.paymentReference.startsWith(`${billingId}-`));
      expect(fired.map((item) => item.paymentReference)).toEqual(charges);
      expect((await subscriptionStatus('status-weekly-after', billingId)).data.subscriptions).toMatchObject({ status: 'ACTIVE', authorizationCode });
      for (const charge of charges) {
        const run = await samples.run(`verify-${charge}`, await sample('verifyTransaction.js', ['"1614510868673"', JSON.stringify(charge)]));
        expect(run.printed, run.stdout + run.stderr).toMatchObject({ status: 'SUCCESS', data: { code: '00', payments: { paymentReference: charge } } });
        expect(Number(run.printed.data.payments.amount), charge).toBe(1000);
        expect(await storedPayment(charge), charge).toMatchObject({ status: 'SUCCESSFUL', code: '00' });
      }
    },
    TIMEOUT,
  );
});
