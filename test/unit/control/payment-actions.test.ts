import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { ControlClient } from '../../support/control.js';
import { ApiClient, cardPayment, freshReference, sandboxForTest, transferPayment, type TestMerchant } from '../../support/sandbox.js';

/**
 * POST /__sandbox/payments/{paymentReference}/refund, /cancel and /capture
 * (docs/decisions.md#d81-control-actions-as-the-merchant): the merchant's
 * own refund, cancel and capture run from the control API, served in process
 * by `sandbox.handle()`. Every answer is checked against
 * openapi/control-api.yaml by the ControlClient.
 */

// One sandbox for the file, a new merchant for each test: the merchants see nothing of each other.
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await sandboxForTest();
});
afterAll(async () => {
  await sandbox.close();
});

async function started(): Promise<{ api: ApiClient; control: ControlClient; merchant: TestMerchant }> {
  const api = await ApiClient.for(sandbox);
  return { api, control: await ControlClient.for(sandbox), merchant: await api.merchant() };
}

type Action = 'refund' | 'cancel' | 'capture';
const act = (control: ControlClient, action: Action, reference: string, body?: Record<string, unknown>) =>
  control.send('POST', `/payments/${encodeURIComponent(reference)}/${action}`, body === undefined ? {} : { body });

/** A 1500.00 NGN card payment, paid by its OTP. */
async function paidCard(api: ApiClient, merchant: TestMerchant): Promise<string> {
  const reference = freshReference();
  const initiated = await api.as(merchant, 'POST', '/payments/initiates', cardPayment({ paymentReference: reference }));
  const validated = await api.as(merchant, 'POST', '/payments/validate', { linkingReference: initiated.body.data.payments.linkingReference, otp: '123456' });
  expect(validated.body.data.code).toBe('00');
  return reference;
}

/** A 100.00 NGN card pre-authorisation, AUTHORIZED. */
async function authorised(api: ApiClient, merchant: TestMerchant): Promise<string> {
  const reference = freshReference();
  const answer = await api.as(merchant, 'POST', '/payments/authorise', cardPayment({ paymentReference: reference, amount: '100.00' }));
  expect(answer.body.data.payments.status).toBe('AUTHORIZED');
  return reference;
}

describe('refund over the control API', () => {
  it('refunds all that is left when no amount is given, as the merchant\'s refund does: 00 APPROVED, REFUNDED, its notification made', async () => {
    const { api, control, merchant } = await started();
    // A notification URL, and a fault that keeps every notification unsent: a unit test opens no socket.
    expect((await control.send('PUT', `/webhooks/${merchant.publicKey}`, { body: { url: 'http://127.0.0.1:9/webhook' } })).status).toBe(200);
    expect((await control.send('POST', `/webhooks/${merchant.publicKey}/faults`, { body: { kind: 'never', times: 5 } })).status).toBe(201);
    const reference = await paidCard(api, merchant);
    const refunded = await act(control, 'refund', reference, { publicKey: merchant.publicKey });
    expect(refunded.status).toBe(200);
    expect(refunded.body).toMatchObject({ code: '00', message: 'APPROVED', payment: { paymentReference: reference, status: 'REFUNDED', refundedAmount: '1500.00', scenario: 'refund-approved' } });
    expect((await control.payment(reference)).body).toEqual(refunded.body.payment);
    // The outbox made the refund's notification, as it does for the merchant's request.
    const deliveries = await control.send('GET', '/webhooks/deliveries', { query: { publicKey: merchant.publicKey, paymentReference: reference } });
    expect(deliveries.body.deliveries.map((delivery: { event: { eventType: string } }) => delivery.event.eventType).sort()).toEqual(['refund', 'transaction']);
  });

  it('refunds in parts that add up ("500" is 500.00), and refuses one past what is left with 409, changing nothing', async () => {
    const { api, control, merchant } = await started();
    const reference = await paidCard(api, merchant);
    const part = await act(control, 'refund', reference, { amount: '500' });
    expect(part.status).toBe(200);
    expect(part.body.payment).toMatchObject({ status: 'SUCCESSFUL', refundedAmount: '500.00' });
    const before = (await control.payment(reference)).body;

    const tooMuch = await act(control, 'refund', reference, { amount: '1000.01' });
    expect(tooMuch.status).toBe(409);
    expect(tooMuch.body).toEqual({ message: `a refund of 1000.01 is more than the 1000.00 NGN left of payment ${reference}`, error: 'CONFLICT' });
    expect((await control.payment(reference)).body).toEqual(before);

    const rest = await act(control, 'refund', reference, { amount: '1000.00' });
    expect(rest.body.payment).toMatchObject({ status: 'REFUNDED', refundedAmount: '1500.00' });
    const again = await act(control, 'refund', reference);
    expect(again.status).toBe(409);
    expect(again.body.message).toBe(`payment ${reference} is already refunded in full (1500.00 NGN)`);
  });

  it('shows in the payment\'s story: a refund among its states, and no request of the merchant\'s journal', async () => {
    const { api, control, merchant } = await started();
    const reference = await paidCard(api, merchant);
    expect((await act(control, 'refund', reference, { amount: '200.00' })).status).toBe(200);
    const story = (await control.send('GET', `/payments/${reference}/story`)).body;
    expect(story.states.map((state: { event: string; status: string }) => `${state.event}:${state.status}`)).toEqual(['create:PENDING', 'settle:SUCCESSFUL', 'refund:SUCCESSFUL']);
    expect(story.states.at(-1)).toMatchObject({ code: '00', message: 'APPROVED', scenario: 'refund-approved' });
    expect(story.requests.map((entry: { path: string }) => entry.path)).toEqual(['/payments/initiates', '/payments/validate']);
    expect(story.payment.refundedAmount).toBe('200.00');
  });

  it('refuses a payment never paid, and a refund of nothing, with 409: the state machine\'s reasons, nothing changed', async () => {
    const { api, control, merchant } = await started();
    const reference = freshReference();
    await api.as(merchant, 'POST', '/payments/initiates', transferPayment({ paymentReference: reference }));
    const before = (await control.payment(reference)).body;
    const pending = await act(control, 'refund', reference);
    expect(pending.status).toBe(409);
    expect(pending.body).toEqual({ message: `payment ${reference} is PENDING; only a SUCCESSFUL, CAPTURED or PARTIALLY_CAPTURED payment can be refunded`, error: 'CONFLICT' });
    const paid = await paidCard(api, merchant);
    const nothing = await act(control, 'refund', paid, { amount: '0.00' });
    expect(nothing.status).toBe(409);
    expect(nothing.body.message).toBe('a refund of 0.00 refunds nothing');
    expect((await control.payment(reference)).body).toEqual(before);
  });

  it('leaves the merchant\'s overrides to its own requests: an override for its next request is neither used nor used up', async () => {
    const { api, control, merchant } = await started();
    const reference = await paidCard(api, merchant);
    const override = await control.override({ scenario: 'transaction-failed', publicKey: merchant.publicKey, times: 1 });
    const refunded = await act(control, 'refund', reference, { amount: '100.00' });
    expect(refunded.body.code).toBe('00');
    expect((await control.overrides(merchant.publicKey)).body.overrides.map((each: { id: string }) => each.id)).toEqual([override.id]);
    // The merchant's next refund meets it.
    const merchants = await api.send('POST', '/payments/refund', { publicKey: merchant.publicKey, paymentReference: reference, amount: '100.00', currency: 'NGN', country: 'NG' }, merchant.basic);
    expect(merchants.body.data.code).toBe('S12');
  });
});

describe('cancel over the control API', () => {
  it('cancels a pending payment, and refuses a paid one with 409', async () => {
    const { api, control, merchant } = await started();
    const reference = freshReference();
    await api.as(merchant, 'POST', '/payments/initiates', transferPayment({ paymentReference: reference }));
    const cancelled = await act(control, 'cancel', reference);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ code: '00', message: 'APPROVED', payment: { status: 'CANCELLED', scenario: 'cancel-approved' } });

    const paid = await paidCard(api, merchant);
    const refused = await act(control, 'cancel', paid, { publicKey: merchant.publicKey });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ message: `payment ${paid} is SUCCESSFUL; only a PENDING or AUTHORIZED payment can be cancelled`, error: 'CONFLICT' });
  });
});

describe('capture over the control API', () => {
  it('captures a pre-authorisation in parts (PARTIALLY_CAPTURED, then CAPTURED with no amount), and refuses past what is left', async () => {
    const { api, control, merchant } = await started();
    const reference = await authorised(api, merchant);
    const part = await act(control, 'capture', reference, { amount: '40.00' });
    expect(part.status).toBe(200);
    expect(part.body).toMatchObject({ code: '00', message: 'APPROVED', payment: { status: 'PARTIALLY_CAPTURED', capturedAmount: '40.00' } });
    const tooMuch = await act(control, 'capture', reference, { amount: '60.01' });
    expect(tooMuch.status).toBe(409);
    expect(tooMuch.body.message).toBe(`a capture of 60.01 is more than the 60.00 NGN authorised and not yet captured of payment ${reference}`);
    const rest = await act(control, 'capture', reference);
    expect(rest.body.payment).toMatchObject({ status: 'CAPTURED', capturedAmount: '100.00' });
    // Captured, it is paid: the control API refunds what was captured.
    const refunded = await act(control, 'refund', reference);
    expect(refunded.body.payment).toMatchObject({ status: 'REFUNDED', refundedAmount: '100.00' });
  });

  it('refuses a payment that is no pre-authorisation with 409, nothing changed', async () => {
    const { api, control, merchant } = await started();
    const paid = await paidCard(api, merchant);
    const before = (await control.payment(paid)).body;
    const refused = await act(control, 'capture', paid);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(`payment ${paid} is SUCCESSFUL; only an AUTHORIZED or PARTIALLY_CAPTURED payment can be captured`);
    expect((await control.payment(paid)).body).toEqual(before);
  });
});

describe('the actions refuse what they cannot read', () => {
  it('an unknown reference (404), an amount that is no decimal amount or an unknown field (400), a reference of two merchants without publicKey (400)', async () => {
    const { api, control, merchant } = await started();
    for (const action of ['refund', 'cancel', 'capture'] as const) {
      const unknown = await act(control, action, 'SBREF-NO-SUCH-PAYMENT');
      expect(unknown.status).toBe(404);
      expect(unknown.body.error).toBe('NOT_FOUND');
    }
    const reference = await paidCard(api, merchant);
    for (const body of [{ amount: '10.005' }, { amount: 'ten' }, { amount: 10 }, { reason: 'x' }]) {
      const refused = await act(control, 'refund', reference, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error).toBe('INPUT');
    }
    expect((await act(control, 'cancel', reference, { amount: '1.00' })).status).toBe(400);
    // A second merchant with the same reference: the action must name one.
    const other = await api.merchant();
    await api.as(other, 'POST', '/payments/initiates', cardPayment({ paymentReference: reference }));
    const ambiguous = await act(control, 'refund', reference);
    expect(ambiguous.status).toBe(400);
    const named = await act(control, 'refund', reference, { publicKey: merchant.publicKey, amount: '1.00' });
    expect(named.body.payment).toMatchObject({ publicKey: merchant.publicKey, refundedAmount: '1.00' });
  });
});
