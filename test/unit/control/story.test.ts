import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { ControlClient, eventually } from '../../support/control.js';
import { ApiClient, cardPayment, freshReference, sandboxForTest, type TestMerchant } from '../../support/sandbox.js';
import { merchantRecord, paymentRecord } from '../../store/fixtures.js';

/**
 * GET /__sandbox/payments/{paymentReference}/story (docs/design.md, "A
 * payment's story"; docs/decisions.md#d79-payment-history): the payment, its
 * requests oldest first, the states it passed through, its deliveries with
 * their attempts and what is due, of one merchant only. Every answer is
 * checked against openapi/control-api.yaml by the ControlClient.
 */

const open: Sandbox[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((sandbox) => sandbox.close()));
});

async function started(): Promise<{ sandbox: Sandbox; api: ApiClient; control: ControlClient }> {
  const sandbox = await sandboxForTest();
  open.push(sandbox);
  return { sandbox, api: await ApiClient.for(sandbox), control: await ControlClient.for(sandbox) };
}

const story = (control: ControlClient, reference: string, publicKey?: string) =>
  control.send('GET', `/payments/${encodeURIComponent(reference)}/story`, { query: { publicKey } });

/** A card payment initiated, paid by OTP and part refunded, its notifications held back two hours by a `late` fault. */
async function paidAndPartRefunded(api: ApiClient, control: ControlClient, merchant: TestMerchant, reference: string): Promise<void> {
  // A receiver that is never reached: the fault holds every notification back longer than the test runs.
  expect((await control.send('PUT', `/webhooks/${merchant.publicKey}`, { body: { url: 'http://127.0.0.1:9/webhook' } })).status).toBe(200);
  expect((await control.send('POST', `/webhooks/${merchant.publicKey}/faults`, { body: { kind: 'late', delay: 'PT2H', times: 5 } })).status).toBe(201);
  const initiated = await api.as(merchant, 'POST', '/payments/initiates', cardPayment({ paymentReference: reference }));
  expect(initiated.body.data.code).toBe('S20');
  const validated = await api.as(merchant, 'POST', '/payments/validate', { linkingReference: initiated.body.data.payments.linkingReference, otp: '123456' });
  expect(validated.status).toBe(200);
  const refunded = await api.send('POST', '/payments/refund', { publicKey: merchant.publicKey, paymentReference: reference, amount: '500.00', currency: 'NGN', country: 'NG' }, merchant.basic);
  expect(refunded.body.data.code).toBe('00');
}

describe("a payment's story", () => {
  it('tells its requests in order, the states it passed through, its deliveries with their attempts and what is due', async () => {
    const { api, control } = await started();
    const merchant = await api.merchant();
    const reference = freshReference();
    await paidAndPartRefunded(api, control, merchant, reference);

    const answer = await story(control, reference);
    expect(answer.status).toBe(200);
    const told = answer.body;
    // The payment as GET /payments/{paymentReference} shows it: no history there.
    expect(told.payment).toEqual((await control.payment(reference)).body);
    expect(told.payment.history).toBeUndefined();

    expect(told.requests.map((entry: { method: string; path: string }) => `${entry.method} ${entry.path}`)).toEqual([
      'POST /payments/initiates', 'POST /payments/validate', 'POST /payments/refund',
    ]);
    expect(told.requests.map((entry: { code?: string }) => entry.code)).toEqual(['S20', '00', '00']);
    const ids = told.requests.map((entry: { id: number }) => entry.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    // Bodies as the journal keeps them: the card number masked, never whole.
    expect(JSON.stringify(told.requests)).not.toContain('5123450000000008');
    expect(told.requests[0].request.body.cardNumber).toMatch(/^512345\*+0008$/);
    expect(told.requestsComplete).toBe(true);

    expect(told.states.map((state: { status: string; event: string }) => `${state.event}:${state.status}`)).toEqual([
      'create:PENDING', 'settle:SUCCESSFUL', 'refund:SUCCESSFUL',
    ]);
    expect(told.states.map((state: { code: string }) => state.code)).toEqual(['S20', '00', '00']);
    for (const state of told.states) expect(state.scenario).toEqual(expect.any(String));
    expect(told.states.at(-1).at).toBe(told.payment.updatedAt);

    // The payment's notifications (paid, then refunded), each held back: scheduled, no attempt yet, due in two hours.
    expect(told.deliveries.map((delivery: { event: { eventType: string } }) => delivery.event.eventType)).toEqual(['transaction', 'refund']);
    for (const delivery of told.deliveries) {
      expect(delivery).toMatchObject({ paymentReference: reference, state: 'scheduled', attempts: [], fault: { kind: 'late' } });
    }
    expect(told.due).toEqual(told.deliveries.map((delivery: { id: string; dueAt: string }) => ({ at: delivery.dueAt, kind: 'delivery', paymentReference: reference, deliveryId: delivery.id })));
    // What is due for the merchant and not for this payment stays out: the clock lists the same here.
    expect((await control.send('GET', `/clock/${merchant.publicKey}`)).body.pending).toEqual(told.due);
    // The history stays out of every other answer: the notifications' data, the status query, the payment lists.
    expect(JSON.stringify(told.deliveries)).not.toContain('history');
    const queried = await api.as(merchant, 'GET', `/payments/query/${reference}`);
    expect(queried.status).toBe(200);
    expect(JSON.stringify(queried.body)).not.toContain('history');
    expect(JSON.stringify((await control.payments(merchant.publicKey)).body)).not.toContain('history');
  });

  it('shows each attempt of a delivery as recorded, why it did not count, and its next try', async () => {
    const { api, control } = await started();
    const merchant = await api.merchant();
    const reference = freshReference();
    await paidAndPartRefunded(api, control, merchant, reference);
    // The sandbox answers 503 in the receiver's place: an attempt is recorded and nothing is sent.
    expect((await control.send('DELETE', `/webhooks/${merchant.publicKey}/faults`)).status).toBe(204);
    expect((await control.send('POST', `/webhooks/${merchant.publicKey}/faults`, { body: { kind: 'receiver-error', status: 503, attempts: 10, times: 1 } })).status).toBe(201);
    const second = await api.send('POST', '/payments/refund', { publicKey: merchant.publicKey, paymentReference: reference, amount: '1000.00', currency: 'NGN', country: 'NG' }, merchant.basic);
    expect(second.body.data.code).toBe('00');
    const told = await eventually('the refund notification tried once', async () => {
      const body = (await story(control, reference)).body;
      return body.deliveries[2]?.attempts.length === 1 ? body : undefined;
    });
    expect(told.states.map((state: { status: string }) => state.status)).toEqual(['PENDING', 'SUCCESSFUL', 'SUCCESSFUL', 'REFUNDED']);
    const tried = told.deliveries[2];
    expect(tried).toMatchObject({ state: 'scheduled', fault: { kind: 'receiver-error' } });
    expect(tried.attempts[0]).toMatchObject({ status: 503, acknowledged: false, reason: expect.stringContaining('nothing was sent') });
    // The next try, 30 seconds on (README, "Notifications"), is due with the two held back before it.
    expect(Date.parse(tried.dueAt) - Date.parse(tried.attempts[0].at)).toBe(30_000);
    expect(told.due.map((item: { deliveryId: string }) => item.deliveryId).sort()).toEqual(told.deliveries.map((delivery: { id: string }) => delivery.id).sort());
    const times = told.due.map((item: { at: string }) => Date.parse(item.at));
    expect(times).toEqual([...times].sort((x: number, y: number) => x - y));
  });

  it('answers 404 in the control API shape for an unknown payment', async () => {
    const { control } = await started();
    const answer = await story(control, 'SBREF-NO-SUCH-PAYMENT');
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ message: 'No payment with paymentReference SBREF-NO-SUCH-PAYMENT', error: 'NOT_FOUND' });
  });

  it("keeps to one merchant: another's payment with the same reference is not mixed in, and the reference must then name the merchant", async () => {
    const { api, control } = await started();
    const first = await api.merchant();
    const second = await api.merchant();
    const reference = freshReference();
    await paidAndPartRefunded(api, control, first, reference);
    expect((await api.as(second, 'POST', '/payments/initiates', cardPayment({ paymentReference: reference }))).body.data.code).toBe('S20');

    const ambiguous = await story(control, reference);
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.body.message).toContain('add ?publicKey=');

    const ofSecond = (await story(control, reference, second.publicKey)).body;
    expect(ofSecond.payment.publicKey).toBe(second.publicKey);
    expect(ofSecond.requests.map((entry: { path: string }) => entry.path)).toEqual(['/payments/initiates']);
    expect(ofSecond.states.map((state: { status: string }) => state.status)).toEqual(['PENDING']);
    expect(ofSecond.deliveries).toEqual([]);
    const ofFirst = (await story(control, reference, first.publicKey)).body;
    expect(ofFirst.requests).toHaveLength(3);
    expect(ofFirst.deliveries).toHaveLength(2);
  });

  it('answers no states for a record stored before the history was kept, and says its requests may be missing', async () => {
    const { sandbox, control } = await started();
    const publicKey = 'SBTESTPUBK_storyolder0001';
    // As an older store file holds it: no history, created before this sandbox started.
    sandbox.store.putMerchant(merchantRecord(publicKey));
    sandbox.store.putPayment(paymentRecord(publicKey, 'SBREF-OLDER-1'));
    await sandbox.store.commit();
    const told = (await story(control, 'SBREF-OLDER-1')).body;
    expect(told.payment.paymentReference).toBe('SBREF-OLDER-1');
    expect(told.states).toEqual([]);
    expect(told.requests).toEqual([]);
    expect(told.requestsComplete).toBe(false);
  });

  it('says the requests may be missing once the journal let some of the payment go', async () => {
    const { api, control } = await started();
    const merchant = await api.merchant();
    const reference = freshReference();
    await paidAndPartRefunded(api, control, merchant, reference);
    expect((await story(control, reference)).body.requestsComplete).toBe(true);
    expect((await control.clearRequests(merchant.publicKey)).status).toBe(204);
    const told = (await story(control, reference)).body;
    expect(told.requests).toEqual([]);
    expect(told.requestsComplete).toBe(false);
    // The states are the payment's own: a cleared journal leaves them.
    expect(told.states).toHaveLength(3);
  });
});
