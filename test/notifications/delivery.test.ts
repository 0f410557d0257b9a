import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { ControlClient } from '../support/control.js';
import { Receiver } from '../support/receiver.js';
import { accountPayment, ApiClient, cardPayment, sandboxForTest, type TestMerchant } from '../support/sandbox.js';

/**
 * Notifications over real HTTP (README, "Notifications"): a sandbox in this
 * process, real receivers on loopback, every control answer checked against
 * openapi/control-api.yaml. Retries are reached by advancing the merchant's
 * clock, never by waiting.
 */

let sandbox: Sandbox;
let api: ApiClient;
let control: ControlClient;
const receivers: Receiver[] = [];

beforeAll(async () => {
  sandbox = await sandboxForTest();
  api = await ApiClient.for(sandbox);
  control = await ControlClient.for(sandbox);
});
afterAll(async () => {
  await sandbox.close();
  await Promise.all(receivers.map((receiver) => receiver.close()));
});
afterEach(() => control.send('DELETE', '/overrides'));

/** A merchant of its own with a receiver of its own (acknowledging unless told otherwise). */
async function merchantWithReceiver(answer?: Receiver['answer'], settings: Record<string, unknown> = {}): Promise<{ merchant: TestMerchant; receiver: Receiver }> {
  const receiver = await Receiver.start(answer);
  receivers.push(receiver);
  const merchant = await api.merchant();
  const set = await control.send('PUT', `/webhooks/${merchant.publicKey}`, { body: { url: receiver.url, ...settings } });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
  return { merchant, receiver };
}

/** An account payment completed with the right OTP: one `transaction` event. */
async function paidAccountPayment(merchant: TestMerchant, paymentReference: string): Promise<void> {
  const initiated = await api.as(merchant, 'POST', '/payments/initiates', accountPayment({ paymentReference, amount: '922.63' }));
  expect(initiated.body.data.code).toBe('20');
  const validated = await api.as(merchant, 'POST', '/payments/validate', { linkingReference: initiated.body.data.payments.linkingReference, otp: '123456' });
  expect(validated.body.data.code).toBe('00');
}

const deliveriesOf = async (query: Record<string, string>) => {
  const listed = await control.send('GET', '/webhooks/deliveries', { query });
  expect(listed.status).toBe(200);
  return listed.body.deliveries as any[];
};

const advance = async (merchant: TestMerchant, by: string) => {
  const advanced = await control.send('POST', `/clock/${merchant.publicKey}/advance`, { body: { by } });
  expect(advanced.status, JSON.stringify(advanced.body)).toBe(200);
  return advanced.body;
};

/** The data fields of a `transaction` event in the provider's sample (its webhook documentation). */
const TRANSACTION_FIELDS = [
  'amount', 'mobile', 'reference', 'gatewayMessage', 'publicKey', 'businessName', 'fee', 'productId', 'channelType', 'maskedPan', 'sourceIP',
  'deviceType', 'fullname', 'email', 'gatewayReference', 'country', 'currency', 'narration', 'createdAt', 'updatedAt', 'lastFourDigits',
  'cardBin', 'reason', 'paymentType', 'gatewayCode', 'code',
];

describe('one event per change, in the provider shape', () => {
  it('sends one transaction event when a payment succeeds, with the fields and types of the provider sample', async () => {
    const { merchant, receiver } = await merchantWithReceiver();
    await paidAccountPayment(merchant, 'NTF-SHAPE-1');
    const delivered = await sandbox.webhooks.waitFor({ paymentReference: 'NTF-SHAPE-1' }, 5000);
    expect(receiver.received).toHaveLength(1);
    const [got] = receiver.received;
    expect(Object.keys(got!.body)).toEqual(['notificationItems']);
    expect(got!.body.notificationItems).toHaveLength(1);
    const item = got!.item;
    expect(Object.keys(item)).toEqual(['eventType', 'eventDate', 'eventId', 'data']);
    expect(item.eventType).toBe('transaction');
    expect(item.eventDate).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(item.eventId).toMatch(/^[0-9a-f]{32}$/);
    expect(Object.keys(item.data)).toEqual(TRANSACTION_FIELDS);
    expect(item.data).toMatchObject({
      amount: 922.63, reference: 'NTF-SHAPE-1', publicKey: merchant.publicKey, gatewayCode: '00', code: '00', gatewayMessage: 'Successful',
      reason: 'Successful', paymentType: 'ACCOUNT', currency: 'NGN', country: 'NG', fee: '0.00',
    });
    expect(typeof item.data.amount).toBe('number');
    expect(item.data.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    // The header the receiver echoes, and the delivery's record of it.
    expect(got!.headers['x-expected-ack-reference']).toBe(delivered.ackReference);
    expect(got!.headers['content-type']).toBe('application/json');
    expect(delivered.state).toBe('delivered');
    expect(delivered.attempts).toHaveLength(1);
    expect(delivered.attempts[0]).toMatchObject({ status: 200, acknowledged: true, url: receiver.url });
    expect(delivered.attempts[0]!.reason).toBeUndefined();
    // A payment left pending causes none.
    await api.as(merchant, 'POST', '/payments/initiates', accountPayment({ paymentReference: 'NTF-SHAPE-PENDING' }));
    expect(await deliveriesOf({ paymentReference: 'NTF-SHAPE-PENDING' })).toEqual([]);
  });

  it('sends a refund event per refund, amount a string, PARTIAL_REFUND then FULL_REFUND', async () => {
    const { merchant, receiver } = await merchantWithReceiver();
    await paidAccountPayment(merchant, 'NTF-REFUND-1');
    await sandbox.webhooks.waitFor({ paymentReference: 'NTF-REFUND-1', eventType: 'transaction' }, 5000);
    const refund = (amount: string) =>
      api.send('POST', '/payments/refund', { publicKey: merchant.publicKey, paymentReference: 'NTF-REFUND-1', amount, currency: 'NGN', country: 'NG' }, merchant.basic);
    expect((await refund('22.63')).body.data.code).toBe('00');
    expect((await refund('900.00')).body.data.code).toBe('00');
    await expect.poll(() => receiver.of('NTF-REFUND-1').length, { timeout: 5000 }).toBe(3);
    const refunds = receiver.of('NTF-REFUND-1').filter((item) => item.eventType === 'refund');
    expect(refunds.map((item) => item.data)).toEqual([
      expect.objectContaining({ amount: '22.63', transactionRef: 'NTF-REFUND-1', type: 'PARTIAL_REFUND', mode: 'TEST' }),
      expect.objectContaining({ amount: '900.00', transactionRef: 'NTF-REFUND-1', type: 'FULL_REFUND', mode: 'TEST' }),
    ]);
    expect(refunds[0]!.data.createdAt).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(new Set(receiver.received.map((got) => got.item.eventId)).size).toBe(3);
  });

  it('sends a transaction event for a declined card, a cancelled payment and an OTP that fails, with their codes', async () => {
    const { merchant, receiver } = await merchantWithReceiver();
    await api.as(merchant, 'POST', '/payments/initiates', cardPayment({ paymentReference: 'NTF-DECLINED', cardNumber: '4000000000000002' }));
    const pending = await api.as(merchant, 'POST', '/payments/initiates', accountPayment({ paymentReference: 'NTF-CANCELLED' }));
    expect(pending.body.data.code).toBe('20');
    expect((await api.send('POST', '/payments/cancel', { publicKey: merchant.publicKey, paymentReference: 'NTF-CANCELLED' }, merchant.basic)).body.data.code).toBe('00');
    const wrong = await api.as(merchant, 'POST', '/payments/initiates', accountPayment({ paymentReference: 'NTF-WRONG-OTP' }));
    await api.as(merchant, 'POST', '/payments/validate', { linkingReference: wrong.body.data.payments.linkingReference, otp: '000000' });
    await expect.poll(() => receiver.received.length, { timeout: 5000 }).toBe(3);
    const byReference = Object.fromEntries(receiver.received.map((got) => [got.item.data.reference, got.item.data]));
    expect(byReference['NTF-DECLINED']).toMatchObject({ code: 'S12', gatewayMessage: 'Transaction Failed', maskedPan: '4000-00xx-xxxx-0002', cardBin: '400000', lastFourDigits: '0002', channelType: 'VISA' });
    expect(byReference['NTF-CANCELLED']).toMatchObject({ code: '00', gatewayMessage: 'APPROVED', paymentType: 'ACCOUNT' });
    expect(byReference['NTF-WRONG-OTP']).toMatchObject({ code: 'S12', gatewayMessage: 'Transaction Failed' });
    // No card number reaches a receiver beyond its BIN and last four.
    expect(JSON.stringify(receiver.received)).not.toContain('4000000000000002');
  });

  it('sends only the event types a merchant asked for', async () => {
    const { merchant, receiver } = await merchantWithReceiver(undefined, { events: ['refund'] });
    await paidAccountPayment(merchant, 'NTF-ONLY-REFUNDS');
    await api.send('POST', '/payments/refund', { publicKey: merchant.publicKey, paymentReference: 'NTF-ONLY-REFUNDS', amount: '1.00', currency: 'NGN', country: 'NG' }, merchant.basic);
    await sandbox.webhooks.waitFor({ paymentReference: 'NTF-ONLY-REFUNDS', eventType: 'refund' }, 5000);
    expect(receiver.received.map((got) => got.item.eventType)).toEqual(['refund']);
  });
});

describe('acknowledgement and retries (the provider current page)', () => {
  it('retries a receiver that answers 500 three times and records each attempt; the fourth, acknowledged, delivers', async () => {
    const { merchant, receiver } = await merchantWithReceiver((headers, count) =>
      count <= 3 ? { status: 500, body: '{"error":"database down"}' } : { status: 200, body: JSON.stringify({ ackReference: headers['x-expected-ack-reference'], status: 'received' }) },
    );
    await paidAccountPayment(merchant, 'NTF-500');
    await expect.poll(async () => (await deliveriesOf({ paymentReference: 'NTF-500' }))[0]?.attempts.length, { timeout: 5000 }).toBe(1);
    // 30 s, 2 min, 10 min after the failures: 12 min 30 s brings the fourth attempt.
    const advanced = await advance(merchant, 'PT12M30S');
    expect(advanced.fired.map((fired: { kind: string }) => fired.kind)).toEqual(['delivery', 'delivery', 'delivery']);
    const [delivery] = await deliveriesOf({ paymentReference: 'NTF-500' });
    expect(delivery.state).toBe('delivered');
    expect(delivery.attempts.map((attempt: { status: number }) => attempt.status)).toEqual([500, 500, 500, 200]);
    expect(delivery.attempts.map((attempt: { acknowledged: boolean }) => attempt.acknowledged)).toEqual([false, false, false, true]);
    expect(delivery.attempts[0].reason).toContain('HTTP 500');
    expect(delivery.attempts[0].reason).toContain('database down');
    const gaps = delivery.attempts.slice(1).map((attempt: { at: string }, index: number) => Date.parse(attempt.at) - Date.parse(delivery.attempts[index].at));
    for (const [gap, expected] of gaps.map((gap: number, index: number) => [gap, [30_000, 120_000, 600_000][index]!])) {
      expect(gap).toBeGreaterThanOrEqual(expected);
      expect(gap).toBeLessThan(expected + 1000);
    }
    expect(receiver.of('NTF-500')).toHaveLength(4);
    expect(new Set(receiver.of('NTF-500').map((item) => item.eventId)).size).toBe(1);
  });

  it('does not count a bare 200: retried after 30 s, 2, 10, 30 min and 1 h, then undelivered, each attempt with its reason', async () => {
    const { merchant, receiver } = await merchantWithReceiver(() => ({ status: 200 }));
    await paidAccountPayment(merchant, 'NTF-BARE');
    await expect.poll(async () => (await deliveriesOf({ paymentReference: 'NTF-BARE' }))[0]?.attempts.length, { timeout: 5000 }).toBe(1);
    expect((await deliveriesOf({ paymentReference: 'NTF-BARE' }))[0].state).toBe('scheduled');
    await advance(merchant, 'PT2H');
    const [delivery] = await deliveriesOf({ paymentReference: 'NTF-BARE' });
    expect(delivery.state).toBe('undelivered');
    expect(delivery.dueAt).toBeUndefined();
    expect(delivery.attempts).toHaveLength(6);
    for (const attempt of delivery.attempts) {
      expect(attempt).toMatchObject({ status: 200, acknowledged: false });
      expect(attempt.reason).toContain('empty body');
      expect(attempt.reason).toContain(delivery.ackReference);
    }
    const gaps = delivery.attempts.slice(1).map((attempt: { at: string }, index: number) => Date.parse(attempt.at) - Date.parse(delivery.attempts[index].at));
    expect(gaps.map((gap: number) => Math.round(gap / 1000))).toEqual([30, 120, 600, 1800, 3600]);
    expect(receiver.of('NTF-BARE')).toHaveLength(6);
    const counted = await control.send('GET', '/webhooks/deliveries/count', { query: { publicKey: merchant.publicKey, state: 'undelivered' } });
    expect(counted.body).toMatchObject({ count: 1, byState: { undelivered: 1 } });
  });

  it.each([
    ['{"status":"success"}, as the provider Odoo plugin answers', '{"status":"success","message":"Processed"}', 'without an ackReference'],
    ['a made-up ackReference', '{"ackReference":"my-own-ref","status":"received"}', 'not the X-Expected-Ack-Reference sent'],
    ['a status other than received', null, 'must be "received"'],
    ['a body that is not JSON', 'OK', 'not JSON'],
  ])('does not count %s', async (_what, body, reason) => {
    const { merchant } = await merchantWithReceiver((headers) => ({
      status: 200,
      body: body ?? JSON.stringify({ ackReference: headers['x-expected-ack-reference'], status: 'ok' }),
    }));
    const reference = `NTF-NOACK-${reason.length}`;
    await paidAccountPayment(merchant, reference);
    await expect.poll(async () => (await deliveriesOf({ paymentReference: reference }))[0]?.attempts.length, { timeout: 5000 }).toBe(1);
    const [delivery] = await deliveriesOf({ paymentReference: reference });
    expect(delivery.state).toBe('scheduled');
    expect(delivery.attempts[0].reason).toContain(reason);
  });

  it('counts a refused connection as a failed attempt, and never holds up the API answer', async () => {
    const { merchant, receiver } = await merchantWithReceiver();
    await receiver.close();
    const started = performance.now();
    await paidAccountPayment(merchant, 'NTF-REFUSED');
    expect(performance.now() - started).toBeLessThan(2000);
    await expect.poll(async () => (await deliveriesOf({ paymentReference: 'NTF-REFUSED' }))[0]?.attempts.length, { timeout: 5000 }).toBe(1);
    const [delivery] = await deliveriesOf({ paymentReference: 'NTF-REFUSED' });
    expect(delivery.attempts[0].reason).toContain('connection refused');
    expect(delivery.attempts[0].status).toBeUndefined();
  });

  it('counts an https URL whose server speaks no TLS as a failed attempt, with the reason', async () => {
    const { merchant, receiver } = await merchantWithReceiver();
    await control.send('PUT', `/webhooks/${merchant.publicKey}`, { body: { url: receiver.url.replace('http:', 'https:') } });
    await paidAccountPayment(merchant, 'NTF-TLS');
    await expect.poll(async () => (await deliveriesOf({ paymentReference: 'NTF-TLS' }))[0]?.attempts.length, { timeout: 5000 }).toBe(1);
    const [delivery] = await deliveriesOf({ paymentReference: 'NTF-TLS' });
    expect(delivery.state).toBe('scheduled');
    expect(delivery.attempts[0].reason).toMatch(/^the delivery failed: |closed the connection/);
  });

  it('gives up on a receiver that does not answer within 5 s', async () => {
    const { merchant } = await merchantWithReceiver((headers) => ({ status: 200, body: JSON.stringify({ ackReference: headers['x-expected-ack-reference'], status: 'received' }), delayMs: 6000 }));
    await paidAccountPayment(merchant, 'NTF-SLOW');
    await expect.poll(async () => (await deliveriesOf({ paymentReference: 'NTF-SLOW' }))[0]?.attempts.length, { timeout: 9000, interval: 250 }).toBe(1);
    const [delivery] = await deliveriesOf({ paymentReference: 'NTF-SLOW' });
    expect(delivery.attempts[0].reason).toBe('no answer within 5 s');
    expect(delivery.attempts[0].latencyMs).toBeGreaterThanOrEqual(4900);
  }, 15_000);

  it('on the older page schedule, counts any 200 and retries after 2 min first', async () => {
    const { merchant, receiver } = await merchantWithReceiver((_headers, count) => ({ status: count === 1 ? 503 : 200 }), { schedule: 'legacy' });
    await paidAccountPayment(merchant, 'NTF-LEGACY');
    await expect.poll(async () => (await deliveriesOf({ paymentReference: 'NTF-LEGACY' }))[0]?.attempts.length, { timeout: 5000 }).toBe(1);
    await advance(merchant, 'PT1M');
    expect((await deliveriesOf({ paymentReference: 'NTF-LEGACY' }))[0].attempts).toHaveLength(1);
    await advance(merchant, 'PT1M');
    const [delivery] = await deliveriesOf({ paymentReference: 'NTF-LEGACY' });
    expect(delivery).toMatchObject({ state: 'delivered', schedule: 'legacy' });
    expect(receiver.of('NTF-LEGACY')).toHaveLength(2);
  });
});

describe('faults for notifications', () => {
  const fault = async (merchant: TestMerchant, body: Record<string, unknown>) => {
    const set = await control.send('POST', `/webhooks/${merchant.publicKey}/faults`, { body });
    expect(set.status, JSON.stringify(set.body)).toBe(201);
  };

  it('duplicate: the event is delivered twice, with the same eventId', async () => {
    const { merchant, receiver } = await merchantWithReceiver();
    await fault(merchant, { kind: 'duplicate', times: 1 });
    await paidAccountPayment(merchant, 'NTF-DUP');
    await expect.poll(() => receiver.of('NTF-DUP').length, { timeout: 5000 }).toBe(2);
    const [first, second] = receiver.of('NTF-DUP');
    expect(first!.eventId).toBe(second!.eventId);
    const deliveries = await deliveriesOf({ paymentReference: 'NTF-DUP' });
    expect(deliveries).toHaveLength(2);
    // Newest first: the copy, then the first.
    expect(deliveries[0].copyOf).toBe(deliveries[1].id);
    // Used up: the next event goes once.
    await paidAccountPayment(merchant, 'NTF-DUP-AFTER');
    await sandbox.webhooks.waitFor({ paymentReference: 'NTF-DUP-AFTER' }, 5000);
    expect(await deliveriesOf({ paymentReference: 'NTF-DUP-AFTER' })).toHaveLength(1);
  });

  it('late: the first attempt waits for the delay on the merchant clock', async () => {
    const { merchant, receiver } = await merchantWithReceiver();
    await fault(merchant, { kind: 'late', delay: 'PT5M', times: 1 });
    await paidAccountPayment(merchant, 'NTF-LATE');
    const [scheduled] = await deliveriesOf({ paymentReference: 'NTF-LATE' });
    expect(scheduled.state).toBe('scheduled');
    expect(Date.parse(scheduled.dueAt) - Date.parse(scheduled.createdAt)).toBe(300_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.of('NTF-LATE')).toHaveLength(0);
    const advanced = await advance(merchant, 'PT5M');
    expect(advanced.fired).toEqual([expect.objectContaining({ kind: 'delivery', paymentReference: 'NTF-LATE' })]);
    expect(receiver.of('NTF-LATE')).toHaveLength(1);
  });

  it('out-of-order: the event arrives after the merchant next one', async () => {
    const { merchant, receiver } = await merchantWithReceiver();
    await fault(merchant, { kind: 'out-of-order', times: 1 });
    await paidAccountPayment(merchant, 'NTF-ORDER-FIRST');
    expect((await deliveriesOf({ paymentReference: 'NTF-ORDER-FIRST' }))[0].state).toBe('held');
    await paidAccountPayment(merchant, 'NTF-ORDER-SECOND');
    await expect.poll(() => receiver.received.length, { timeout: 5000 }).toBe(2);
    expect(receiver.received.map((got) => got.item.data.reference)).toEqual(['NTF-ORDER-SECOND', 'NTF-ORDER-FIRST']);
    expect(Date.parse(receiver.received[0]!.item.data.updatedAt as string)).toBeGreaterThan(Date.parse(receiver.received[1]!.item.data.updatedAt as string));
  });

  it('never: the delivery is kept as withheld and nothing is sent; a redeliver sends the same event', async () => {
    const { merchant, receiver } = await merchantWithReceiver();
    await fault(merchant, { kind: 'never', times: 1 });
    await paidAccountPayment(merchant, 'NTF-NEVER');
    const [withheld] = await deliveriesOf({ paymentReference: 'NTF-NEVER' });
    expect(withheld.state).toBe('withheld');
    await advance(merchant, 'PT3H');
    expect(receiver.of('NTF-NEVER')).toHaveLength(0);
    const again = await control.send('POST', `/webhooks/deliveries/${withheld.id}/redeliver`);
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ copyOf: withheld.id, state: 'scheduled', event: withheld.event });
    await sandbox.webhooks.waitFor({ paymentReference: 'NTF-NEVER' }, 5000);
    expect(receiver.of('NTF-NEVER').map((item) => item.eventId)).toEqual([withheld.event.eventId]);
  });

  it('receiver-error: the sandbox answers 500 in the receiver place for the first attempts, the retries visible', async () => {
    const { merchant, receiver } = await merchantWithReceiver();
    await fault(merchant, { kind: 'receiver-error', status: 500, attempts: 2, times: 1 });
    await paidAccountPayment(merchant, 'NTF-RECV-ERR');
    await expect.poll(async () => (await deliveriesOf({ paymentReference: 'NTF-RECV-ERR' }))[0]?.attempts.length, { timeout: 5000 }).toBe(1);
    await advance(merchant, 'PT3M');
    const [delivery] = await deliveriesOf({ paymentReference: 'NTF-RECV-ERR' });
    expect(delivery.attempts.map((attempt: { status: number }) => attempt.status)).toEqual([500, 500, 200]);
    expect(delivery.attempts[0].reason).toContain('fault receiver-error');
    expect(delivery.state).toBe('delivered');
    expect(receiver.of('NTF-RECV-ERR')).toHaveLength(1);
  });
});

describe('redeliver and trigger', () => {
  it('redeliver sends the same event again as a new delivery', async () => {
    const { merchant, receiver } = await merchantWithReceiver();
    await paidAccountPayment(merchant, 'NTF-REDELIVER');
    const first = await sandbox.webhooks.waitFor({ paymentReference: 'NTF-REDELIVER' }, 5000);
    const again = await control.send('POST', `/webhooks/deliveries/${first.id}/redeliver`);
    expect(again.status).toBe(201);
    await expect.poll(() => receiver.of('NTF-REDELIVER').length, { timeout: 5000 }).toBe(2);
    const [one, two] = receiver.of('NTF-REDELIVER');
    expect(two).toEqual(one);
    expect(receiver.received[1]!.headers['x-expected-ack-reference']).not.toBe(receiver.received[0]!.headers['x-expected-ack-reference']);
  });

  it('trigger makes a new event of a stored payment, and refuses a refund event of a payment never refunded', async () => {
    const { merchant, receiver } = await merchantWithReceiver();
    await paidAccountPayment(merchant, 'NTF-TRIGGER');
    await sandbox.webhooks.waitFor({ paymentReference: 'NTF-TRIGGER' }, 5000);
    const triggered = await control.send('POST', `/webhooks/${merchant.publicKey}/trigger`, { body: { eventType: 'transaction', paymentReference: 'NTF-TRIGGER' } });
    expect(triggered.status).toBe(201);
    await expect.poll(() => receiver.of('NTF-TRIGGER').length, { timeout: 5000 }).toBe(2);
    const [original, repeat] = receiver.of('NTF-TRIGGER');
    expect(repeat!.eventId).not.toBe(original!.eventId);
    expect(repeat!.data).toEqual(original!.data);
    const refused = await control.send('POST', `/webhooks/${merchant.publicKey}/trigger`, { body: { eventType: 'refund', paymentReference: 'NTF-TRIGGER' } });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('no refund');
    const unknown = await control.send('POST', `/webhooks/${merchant.publicKey}/trigger`, { body: { eventType: 'transaction', paymentReference: 'NTF-NO-SUCH' } });
    expect(unknown.status).toBe(404);
  });
});
