import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { ControlClient } from '../../support/control.js';
import { ApiClient, freshReference, sandboxWithMerchant, type TestMerchant } from '../../support/sandbox.js';

/**
 * Subscriptions over raw HTTP (README, "Subscriptions"; docs/decisions.md#d59-subscriptions): the
 * first payment, the look-ups under every path shape the SDKs use, the
 * update and its methods, the authorised debit, and the refusals, each
 * answer checked against openapi/payments-api.yaml by the client.
 */

let sandbox: Sandbox;
let api: ApiClient;
let merchant: TestMerchant;
let control: ControlClient;

beforeAll(async () => {
  ({ sandbox, api, merchant } = await sandboxWithMerchant());
  control = await ControlClient.for(sandbox);
});
afterAll(() => sandbox.close());

/** A subscribes body as the provider's example sends it; fields may be replaced. */
const subscription = (fields: Record<string, unknown> = {}): Record<string, unknown> => ({
  paymentReference: freshReference(),
  planId: '',
  cardNumber: '5123450000000008',
  expiryMonth: '05',
  expiryYear: '30',
  cvv: '100',
  pin: '0999',
  callbackUrl: 'https://merchant.example.com/callback',
  amount: '1000.00',
  currency: 'NGN',
  country: 'NG',
  productDescription: 'Pilot Test Subscription',
  productId: 'Terrain',
  cardName: 'Kolade Samuel',
  billingCycle: 'WEEKLY',
  email: 'kolade@example.com',
  mobileNumber: '08033456500',
  customerId: 'CUST-A',
  type: '3DSECURE',
  billingPeriod: '1',
  subscriptionAmount: true,
  ...fields,
});

/** Starts a subscription and pays its first payment with the OTP; its billingId. */
async function paidSubscription(as: TestMerchant, fields: Record<string, unknown> = {}): Promise<string> {
  const body = subscription(fields);
  const started = await api.as(as, 'POST', '/recurring/subscribes', body);
  expect(started.body.data.code).toBe('S20');
  const paid = await api.as(as, 'POST', '/payments/validate', { linkingReference: started.body.data.payments.linkingReference, otp: '123456' });
  expect(paid.body.data.code).toBe('00');
  return String(body.paymentReference);
}

const view = (as: TestMerchant, billingId: string) => api.as(as, 'GET', `/recurring/billingId/${billingId}`);

describe('POST /recurring/subscribes', () => {
  it('answers S20 with the authentication page; the subscription is INACTIVE, with no authorizationCode, until its payment is paid', async () => {
    const body = subscription();
    const started = await api.as(merchant, 'POST', '/recurring/subscribes', body);
    expect(started.status).toBe(200);
    expect(started.body.data).toMatchObject({ code: 'S20', message: 'Transaction is pending', payments: { paymentReference: body.paymentReference } });
    expect(started.body.data.payments.redirectUrl).toContain(`/pages/authenticate/${started.body.data.payments.linkingReference}`);
    const before = (await view(merchant, String(body.paymentReference))).body.data.subscriptions;
    expect(before).toMatchObject({ status: 'INACTIVE', authorizationCode: '', billingId: body.paymentReference, amount: '1000.00', cardNumber: '5123-45xx-xxxx-0008', customerId: 'CUST-A', cardName: 'Kolade Samuel' });
    await api.as(merchant, 'POST', '/payments/validate', { linkingReference: started.body.data.payments.linkingReference, otp: '123456' });
    const after = (await view(merchant, String(body.paymentReference))).body.data.subscriptions;
    expect(after.status).toBe('ACTIVE');
    expect(after.authorizationCode).toMatch(/^[0-9a-f]{20}$/);
    // The status query shows the same code once the payment is paid.
    expect((await api.as(merchant, 'GET', `/payments/query/${body.paymentReference}`)).body.data.payments.authorizationCode).toBe(after.authorizationCode);
  });

  it('keeps the provider\'s startDate, read as UTC, and its createdAt in epoch milliseconds', async () => {
    const billingId = await paidSubscription(merchant, { startDate: '2020-02-25 00:00:00' });
    const found = (await view(merchant, billingId)).body.data.subscriptions;
    expect(found.startDate).toBe('2020-02-25 00:00:00');
    expect(Math.abs(found.createdAt - Date.now())).toBeLessThan(60_000);
    // A weekly subscription of a Tuesday is next charged on a Tuesday at midnight, after now.
    const clock = await control.send('GET', `/clock/${merchant.publicKey}`);
    const next = clock.body.pending.find((item: { paymentReference: string }) => item.paymentReference === `${billingId}-1`);
    expect(new Date(next.at).getUTCDay()).toBe(2);
    expect(next.at.slice(11)).toBe('00:00:00.000Z');
  });

  it('refuses a reused paymentReference with the provider\'s 409, and a declined card at once with S12', async () => {
    const billingId = await paidSubscription(merchant);
    const again = await api.as(merchant, 'POST', '/recurring/subscribes', subscription({ paymentReference: billingId }));
    expect([again.status, again.body]).toEqual([409, { message: 'Transaction with reference exists', error: 'PROCESSING' }]);
    const declined = await api.as(merchant, 'POST', '/recurring/subscribes', subscription({ cardNumber: '4000000000000002' }));
    expect(declined.body.data.code).toBe('S12');
  });

  it('refuses a body without billingCycle, with an unknown one, or with a startDate that is no calendar date (400 INPUT), and stores nothing', async () => {
    const body = subscription({ billingCycle: 'FORTNIGHTLY' });
    const refused = await api.as(merchant, 'POST', '/recurring/subscribes', body);
    expect([refused.status, refused.body.error]).toEqual([400, 'INPUT']);
    const { billingCycle: _cycle, ...without } = subscription();
    expect((await api.as(merchant, 'POST', '/recurring/subscribes', without)).status).toBe(400);
    expect(sandbox.store.payment(merchant.publicKey, String(body.paymentReference))).toBeUndefined();
    const day = subscription({ startDate: '2027-02-30 00:00:00' });
    const noDay = await api.as(merchant, 'POST', '/recurring/subscribes', day);
    expect([noDay.status, noDay.body]).toEqual([400, { message: 'startDate 2027-02-30 00:00:00 is no date: send yyyy-MM-dd HH:mm:ss', error: 'INPUT' }]);
    expect(sandbox.store.payment(merchant.publicKey, String(day.paymentReference))).toBeUndefined();
  });

  it('refuses a body without one of its five named fields, or with it null, in the provider\'s words, the first in the provider\'s order (docs/decisions.md#d64-subscription-null-messages)', async () => {
    const { paymentReference: _reference, ...withoutReference } = subscription();
    const cases: Array<[Record<string, unknown>, string]> = [
      [withoutReference, 'Payment Reference cannot be null'],
      [subscription({ amount: null }), 'Amount cannot be null'],
      [subscription({ currency: null, country: null }), 'Country cannot be null'],
      [subscription({ currency: null }), 'Currency cannot be null'],
    ];
    for (const [body, message] of cases) {
      const refused = await api.as(merchant, 'POST', '/recurring/subscribes', body);
      expect([refused.status, refused.body], message).toEqual([400, { message, error: 'INPUT' }]);
    }
    // Without publicKey (which `as` fills in), and a country left out: the publicKey comes first.
    const { country: _country, ...withoutCountry } = subscription();
    const noKey = await api.send('POST', '/recurring/subscribes', withoutCountry, `Bearer ${merchant.token}`);
    expect([noKey.status, noKey.body]).toEqual([400, { message: 'Public Key cannot be null', error: 'INPUT' }]);
    // Another refusal keeps the sandbox's words.
    const { billingCycle: _cycle, ...withoutCycle } = subscription();
    expect((await api.as(merchant, 'POST', '/recurring/subscribes', withoutCycle)).body.message).toMatch(/^billingCycle is required/);
  });
});

describe('the subscription look-ups', () => {
  it('GET /recurring/billingId/{id} of an unknown id answers the provider\'s 404 Subscription Not Found; another merchant\'s too', async () => {
    const unknown = await view(merchant, 'SBREF-NO-SUCH');
    expect([unknown.status, unknown.body]).toEqual([404, { message: 'Subscription Not Found', error: 'NOT_FOUND' }]);
    const billingId = await paidSubscription(merchant);
    const other = await api.merchant();
    expect((await view(other, billingId)).status).toBe(404);
    // A payment that is no subscription is no subscription either.
    expect((await view(merchant, `${billingId}-1`)).status).toBe(404);
  });

  it('lists the merchant\'s subscriptions, and a customer\'s under each of the three path shapes', async () => {
    const owner = await api.merchant();
    const first = await paidSubscription(owner, { customerId: 'CUST-1' });
    const second = await paidSubscription(owner, { customerId: 'CUST-2' });
    const third = await paidSubscription(owner, { customerId: 'CUST-1', billingCycle: 'MONTHLY' });
    const billingIds = (response: { body: any }) => response.body.data.subscriptions.map((item: { billingId: string }) => item.billingId);
    const all = await api.as(owner, 'GET', `/recurring/publicKey/${owner.publicKey}`);
    expect([all.body.data.code, all.body.data.message]).toEqual(['00', 'successful']);
    expect(billingIds(all)).toEqual([first, second, third]);
    for (const path of [`/recurring/${owner.publicKey}/customerId/CUST-1`, `/recurring/publicKey/${owner.publicKey}/customerId/CUST-1`, '/recurring/customerId/CUST-1']) {
      expect(billingIds(await api.as(owner, 'GET', path)), path).toEqual([first, third]);
    }
    expect(billingIds(await api.as(owner, 'GET', '/recurring/customerId/NOBODY'))).toEqual([]);
  });

  it('refuses another merchant\'s publicKey in the path (401 Invalid Authentication Token), as the other look-ups do', async () => {
    const other = await api.merchant();
    for (const path of [`/recurring/publicKey/${other.publicKey}`, `/recurring/${other.publicKey}/customerId/CUST-A`, `/recurring/publicKey/${other.publicKey}/customerId/CUST-A`]) {
      const refused = await api.as(merchant, 'GET', path);
      expect([refused.status, refused.body], path).toEqual([401, { message: 'Invalid Authentication Token', error: 'INPUT' }]);
    }
  });
});

describe('PUT /recurring/updates', () => {
  it('pauses a subscription (no charge falls due) and resumes it at its next charge time still to come, with a new amount', async () => {
    const owner = await api.merchant();
    const billingId = await paidSubscription(owner, { billingCycle: 'DAILY' });
    const paused = await api.as(owner, 'PUT', '/recurring/updates', { billingId, status: 'INACTIVE', amount: '20000', currency: 'NGN', country: 'NG', mobileNumber: '08033456500' });
    expect(paused.body.data).toMatchObject({ code: '00', message: 'Successful', subscriptions: { status: 'INACTIVE', amount: '20000.00' } });
    const idle = await control.send('POST', `/clock/${owner.publicKey}/advance`, { body: { by: 'P3D' } });
    expect(idle.body.fired).toEqual([]);
    expect((await api.as(owner, 'PUT', '/recurring/updates', { billingId, status: 'ACTIVE' })).body.data.subscriptions.status).toBe('ACTIVE');
    const charged = await control.send('POST', `/clock/${owner.publicKey}/advance`, { body: { by: 'P1D' } });
    // What fell due while it was paused is not made up: one charge, the first.
    expect(charged.body.fired.map((item: { paymentReference: string }) => item.paymentReference)).toEqual([`${billingId}-1`]);
    expect(sandbox.store.payment(owner.publicKey, `${billingId}-1`)).toMatchObject({ status: 'SUCCESSFUL', amount: '20000.00' });
  });

  it('answers 405 with Allow: PUT to the Node SDK\'s GET and the PHP SDK\'s POST, changing nothing', async () => {
    const billingId = await paidSubscription(merchant);
    for (const method of ['GET', 'POST'] as const) {
      const refused = await api.as(merchant, method, '/recurring/updates', { billingId, status: 'INACTIVE' });
      expect([refused.status, refused.headers.allow], method).toEqual([405, 'PUT']);
    }
    expect((await view(merchant, billingId)).body.data.subscriptions.status).toBe('ACTIVE');
  });

  it('refuses an unknown billingId (404) and a subscription whose first payment is not paid (S12, nothing changed)', async () => {
    expect((await api.as(merchant, 'PUT', '/recurring/updates', { billingId: 'SBREF-NO-SUCH', status: 'INACTIVE' })).status).toBe(404);
    const body = subscription();
    await api.as(merchant, 'POST', '/recurring/subscribes', body);
    const refused = await api.as(merchant, 'PUT', '/recurring/updates', { billingId: body.paymentReference, status: 'ACTIVE' });
    expect(refused.body.data.code).toBe('S12');
    expect(refused.headers['x-sandbox-reason']).toContain('is PENDING');
    expect((await view(merchant, String(body.paymentReference))).body.data.subscriptions.status).toBe('INACTIVE');
  });
});

describe('POST /recurring/charge', () => {
  it('takes an authorised debit with the subscription\'s authorizationCode, as the documentation answers it', async () => {
    const billingId = await paidSubscription(merchant);
    const code = (await view(merchant, billingId)).body.data.subscriptions.authorizationCode;
    const reference = freshReference();
    const debit = await api.as(merchant, 'POST', '/recurring/charge', { amount: '200', email: 'js@example.com', allowPartialDebit: 'true', authorizationCode: code, paymentReference: reference, currency: 'NGN' });
    expect(debit.body.data).toEqual({
      code: '00',
      message: 'Successful',
      payments: { code: '00', message: 'Successful', paymentReference: reference, publicKey: merchant.publicKey, amount: '200.00', currency: 'NGN', country: 'NG', email: 'js@example.com', productDescription: 'Authorised charge' },
    });
    expect(sandbox.store.payment(merchant.publicKey, reference)).toMatchObject({ status: 'SUCCESSFUL', card: { bin: '512345', last4: '0008' }, recurring: { billingId, kind: 'debit' } });
    const again = await api.as(merchant, 'POST', '/recurring/charge', { amount: '200', authorizationCode: code, paymentReference: reference, currency: 'NGN' });
    expect(again.status).toBe(409);
  });

  it('declines every charge of card 4000000000000341, and refuses a code of another merchant or of an unpaid subscription', async () => {
    const billingId = await paidSubscription(merchant, { cardNumber: '4000000000000341' });
    const code = (await view(merchant, billingId)).body.data.subscriptions.authorizationCode;
    const declined = await api.as(merchant, 'POST', '/recurring/charge', { amount: '200', authorizationCode: code, paymentReference: freshReference(), currency: 'NGN' });
    expect([declined.body.data.code, declined.body.data.message]).toEqual(['S12', 'Transaction Failed']);
    const other = await api.merchant();
    const foreign = await api.as(other, 'POST', '/recurring/charge', { amount: '200', authorizationCode: code, paymentReference: freshReference(), currency: 'NGN' });
    expect([foreign.status, foreign.body]).toEqual([400, { status: 'ERROR', data: { code: 'S12', message: 'Invalid/Missing parameters = authorizationCode' } }]);
    const unpaid = subscription();
    const started = await api.as(merchant, 'POST', '/recurring/subscribes', unpaid);
    const { authorizationCodeOf } = await import('../../../src/domain/card-operations.js');
    const early = await api.as(merchant, 'POST', '/recurring/charge', { amount: '200', authorizationCode: authorizationCodeOf(started.body.data.payments.linkingReference), paymentReference: freshReference(), currency: 'NGN' });
    expect(early.status).toBe(400);
  });
});
