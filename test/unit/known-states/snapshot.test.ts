import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { ControlClient } from '../../support/control.js';
import { accountPayment, ApiClient, cardPayment, freshReference, momoPayment, order, sandboxForTest, type TestMerchant } from '../../support/sandbox.js';

/**
 * Snapshots (docs/known-states.md; docs/decisions.md#d78-snapshot-document):
 * taken, reset to empty and loaded again, or loaded into a second sandbox,
 * every status query, list and look-up answers as before, deliveries due are
 * still due, clocks keep their offset and overrides their count; a snapshot
 * that cannot be loaded changes nothing.
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

/** A merchant's day, made over the API: paid, refunded, pending, an order, a subscription charged on a moved clock, a delivery due later, an override part used, a fault. */
async function richState(api: ApiClient, control: ControlClient): Promise<TestMerchant> {
  const merchant = await api.merchant();
  const card = freshReference();
  const initiated = await api.as(merchant, 'POST', '/payments/initiates', cardPayment({ paymentReference: card }));
  expect(initiated.body.data.code).toBe('S20');
  await api.as(merchant, 'POST', '/payments/validate', { linkingReference: initiated.body.data.payments.linkingReference, otp: '123456' });
  const account = freshReference();
  const pending = await api.as(merchant, 'POST', '/payments/initiates', accountPayment({ paymentReference: account }));
  await api.as(merchant, 'POST', '/payments/validate', { linkingReference: pending.body.data.payments.linkingReference, otp: '123456' });
  expect((await api.send('POST', '/payments/refund', { publicKey: merchant.publicKey, paymentReference: account, amount: '10.00', currency: 'NGN', country: 'NG' }, merchant.basic)).body.data.code).toBe('00');
  await api.as(merchant, 'POST', '/payments/initiates', momoPayment({ paymentReference: freshReference() }));
  await api.as(merchant, 'POST', '/payments/order', order({ paymentReference: freshReference() }));
  const subscription = freshReference();
  const subscribed = await api.as(merchant, 'POST', '/recurring/subscribes', {
    paymentReference: subscription, amount: '1000.00', currency: 'NGN', country: 'NG', cardNumber: '5123450000000008', cvv: '100',
    expiryMonth: '05', expiryYear: '30', billingCycle: 'DAILY', customerId: 'CUST-SNAP',
  });
  await api.as(merchant, 'POST', '/payments/validate', { linkingReference: subscribed.body.data.payments.linkingReference, otp: '123456' });
  expect((await control.send('POST', `/clock/${merchant.publicKey}/advance`, { body: { by: 'P2D' } })).status).toBe(200);
  // A notification held back two hours on the merchant's clock: due, and never sent while the test runs.
  expect((await control.send('PUT', `/webhooks/${merchant.publicKey}`, { body: { url: 'http://127.0.0.1:9/webhook' } })).status).toBe(200);
  expect((await control.send('POST', `/webhooks/${merchant.publicKey}/faults`, { body: { kind: 'late', delay: 'PT2H', times: 5 } })).status).toBe(201);
  const override = await control.override({ scenario: 'account-pending', publicKey: merchant.publicKey, times: 3 });
  expect(override.times).toBe(3);
  const last = await api.as(merchant, 'POST', '/payments/initiates', accountPayment({ paymentReference: freshReference() }));
  await api.as(merchant, 'POST', '/payments/validate', { linkingReference: last.body.data.payments.linkingReference, otp: '123456' });
  return merchant;
}

/** What a client and a tester can read of a merchant: every status query, list and look-up, the clock, the deliveries and their due times, the overrides. */
async function answers(api: ApiClient, control: ControlClient, merchant: TestMerchant): Promise<unknown> {
  const payments = (await control.send('GET', '/payments', { query: { publicKey: merchant.publicKey, limit: 1000 } })).body.payments as Array<{ paymentReference: string }>;
  const queries: Record<string, unknown> = {};
  for (const { paymentReference } of payments) queries[paymentReference] = (await api.as(merchant, 'GET', `/payments/query/${paymentReference}`)).body;
  const clock = (await control.send('GET', `/clock/${merchant.publicKey}`)).body;
  return {
    payments,
    queries,
    orders: (await api.as(merchant, 'GET', `/products/orders/publicKey/${merchant.publicKey}`)).body,
    subscriptions: (await api.as(merchant, 'GET', `/recurring/publicKey/${merchant.publicKey}`)).body,
    deliveries: (await control.send('GET', '/webhooks/deliveries', { query: { publicKey: merchant.publicKey, limit: 1000 } })).body,
    webhook: (await control.send('GET', `/webhooks/${merchant.publicKey}`)).body,
    overrides: (await control.send('GET', '/overrides', { query: { publicKey: merchant.publicKey } })).body,
    // The clock's offset is kept, not its reading: a reading moves with real time.
    offset: clock.offset,
    offsetMinutes: Math.round((Date.parse(clock.now) - Date.now()) / 60_000),
    pending: clock.pending,
  };
}

const withoutTime = (snapshot: Record<string, unknown>) => ({ ...snapshot, takenAt: undefined });

describe('a snapshot', () => {
  it('taken, reset to empty and loaded again, answers every query, list and look-up as before; deliveries, clocks and overrides too', async () => {
    const { api, control } = await started();
    const merchant = await richState(api, control);
    const before = await answers(api, control, merchant);
    const taken = await control.send('GET', '/snapshot');
    expect(taken.status).toBe(200);
    expect(taken.body.version).toBe(3);
    expect(taken.body.overrides).toHaveLength(1);
    expect(taken.body.overrides[0].times).toBe(2);
    expect(taken.body.faults).toHaveLength(1);
    expect(taken.body.faults[0].times).toBe(4);
    expect(taken.body.deliveries.some((delivery: { state: string }) => delivery.state === 'scheduled')).toBe(true);

    expect((await control.send('POST', '/reset', { query: { to: 'empty' } })).body).toEqual({ reset: 'all', to: 'empty' });
    expect((await control.send('GET', '/payments', { query: { publicKey: merchant.publicKey } })).body.total).toBe(0);

    const loaded = await control.send('PUT', '/snapshot', { body: taken.body });
    expect(loaded.status).toBe(200);
    expect(loaded.body.loaded).toBe('all');
    const after = await answers(api, control, merchant);
    expect(after).toEqual(before);
    expect(withoutTime((await control.send('GET', '/snapshot')).body)).toEqual(withoutTime(taken.body));
  });

  it('loads into a second sandbox, which answers as the first', async () => {
    const first = await started();
    const merchant = await richState(first.api, first.control);
    const taken = await first.control.send('GET', '/snapshot');
    const second = await started();
    expect((await second.control.send('PUT', '/snapshot', { body: taken.body })).status).toBe(200);
    expect(await answers(second.api, second.control, merchant)).toEqual(await answers(first.api, first.control, merchant));
    // A delivery due on the first is due on the second, and goes out when its time comes.
    const due = (await second.control.send('GET', `/clock/${merchant.publicKey}`)).body.pending as Array<{ kind: string }>;
    expect(due.some((item) => item.kind === 'delivery')).toBe(true);
  });

  it('loaded into a new sandbox, makes its next deliveries after those it brought', async () => {
    const first = await started();
    await richState(first.api, first.control);
    const taken = await first.control.send('GET', '/snapshot');
    const second = await started();
    expect((await second.control.send('PUT', '/snapshot', { body: taken.body })).status).toBe(200);
    const other = await second.api.merchant();
    expect((await second.control.send('PUT', `/webhooks/${other.publicKey}`, { body: { url: 'http://127.0.0.1:9/webhook' } })).status).toBe(200);
    expect((await second.control.send('POST', `/webhooks/${other.publicKey}/faults`, { body: { kind: 'late', delay: 'PT2H' } })).status).toBe(201);
    const made = await second.api.as(other, 'POST', '/payments/initiates', accountPayment({ paymentReference: freshReference() }));
    await second.api.as(other, 'POST', '/payments/validate', { linkingReference: made.body.data.payments.linkingReference, otp: '123456' });
    // The sequence orders deliveries across merchants (GET /webhooks/deliveries): the one made now comes after every one the snapshot brought.
    const brought = (taken.body.deliveries as Array<{ sequence: number }>).map((delivery) => delivery.sequence);
    expect(brought.length).toBeGreaterThan(0);
    const mine = (await second.control.send('GET', '/webhooks/deliveries', { query: { publicKey: other.publicKey } })).body.deliveries as Array<{ sequence: number }>;
    expect(mine).toHaveLength(1);
    expect(mine[0]!.sequence).toBeGreaterThan(Math.max(...brought));
  });

  it('of one merchant holds that merchant alone, and loads over that merchant without touching another', async () => {
    const { api, control } = await started();
    const a = await richState(api, control);
    const b = await api.merchant();
    await api.as(b, 'POST', '/payments/initiates', accountPayment({ paymentReference: freshReference() }));
    const ofA = await control.send('GET', '/snapshot', { query: { publicKey: a.publicKey } });
    expect(ofA.body.publicKey).toBe(a.publicKey);
    for (const list of ['merchants', 'payments', 'orders', 'webhooks', 'clocks', 'deliveries', 'overrides', 'faults']) {
      for (const row of ofA.body[list] as Array<{ publicKey?: string }>) expect(row.publicKey).toBe(a.publicKey);
    }
    const beforeA = await answers(api, control, a);
    const beforeB = await answers(api, control, b);
    await control.send('POST', '/reset', { query: { publicKey: a.publicKey, to: 'empty' } });
    expect((await control.send('PUT', '/snapshot', { query: { publicKey: a.publicKey }, body: ofA.body })).status).toBe(200);
    expect(await answers(api, control, a)).toEqual(beforeA);
    expect(await answers(api, control, b)).toEqual(beforeB);
    // Another merchant's snapshot cannot be loaded over this one.
    const wrong = await control.send('PUT', '/snapshot', { query: { publicKey: b.publicKey }, body: ofA.body });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toMatch(/\/\w+\/0\/publicKey/);
  });

  it('that cannot be loaded is refused with 400 naming the field, and changes nothing', async () => {
    const { api, control } = await started();
    await richState(api, control);
    const taken = (await control.send('GET', '/snapshot')).body;
    const broken: Array<[string, Record<string, unknown>, RegExp]> = [
      ['another version', { ...taken, version: 2 }, /version/],
      ['an amount that is no decimal string', { ...taken, payments: [{ ...taken.payments[0], amount: 12 }, ...taken.payments.slice(1)] }, /\/payments\/0\/amount/],
      ['a payment held twice', { ...taken, payments: [...taken.payments, taken.payments[0]] }, new RegExp(`/payments/${taken.payments.length} repeats`)],
      ['a list missing', { ...taken, deliveries: undefined }, /deliveries/],
      ['an override of an unknown scenario', { ...taken, overrides: [{ ...taken.overrides[0], scenario: 'no-such-rule' }] }, /\/overrides\/0\/scenario/],
    ];
    for (const [what, body, field] of broken) {
      const answer = await control.send('PUT', '/snapshot', { body });
      expect(answer.status, what).toBe(400);
      expect(answer.body.error, what).toBe('INPUT');
      expect(answer.body.message, what).toMatch(field);
      expect(withoutTime((await control.send('GET', '/snapshot')).body), what).toEqual(withoutTime(taken));
    }
  });

  it('holds masked card data only: never the card number, CVV, PIN or a bearer token', async () => {
    const { api, control } = await started();
    const merchant = await richState(api, control);
    const text = JSON.stringify((await control.send('GET', '/snapshot')).body);
    expect(text).not.toContain('5123450000000008');
    expect(text).not.toMatch(/"(cvv|pin)"/i);
    expect(text).not.toContain(merchant.token);
    // The test secret key is there, as in the store file (README, "Known states").
    expect(text).toContain(merchant.secretKey);
  });
});
