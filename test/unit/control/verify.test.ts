import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { ControlClient } from '../../support/control.js';
import { accountPayment, ApiClient, cardPayment, sandboxForTest, type TestMerchant } from '../../support/sandbox.js';

/** GET /__sandbox/requests/count: what the sandbox received, counted, as a test asserts it (WireMock's verify). */

let sandbox: Sandbox;
let api: ApiClient;
let control: ControlClient;
let merchant: TestMerchant;
let other: TestMerchant;

beforeAll(async () => {
  sandbox = await sandboxForTest({ journalSize: 20 });
  api = await ApiClient.for(sandbox);
  control = await ControlClient.for(sandbox);
  merchant = await api.merchant();
  other = await api.merchant();
});
afterAll(() => sandbox.close());

const count = (query: Record<string, string>) => control.send('GET', '/requests/count', { query });

describe('counting the requests the sandbox received', () => {
  it('counts by path, paymentReference, status and merchant, every filter together', async () => {
    const card = cardPayment();
    const reference = String(card.paymentReference);
    const initiated = await api.as(merchant, 'POST', '/payments/initiates', card);
    await api.as(merchant, 'POST', '/payments/validate', { linkingReference: initiated.body.data.payments.linkingReference, otp: '123456' });
    const refund = () => api.send('POST', '/payments/refund', { publicKey: merchant.publicKey, paymentReference: reference, amount: '100.00', currency: 'NGN', country: 'NG' }, merchant.basic);
    expect((await refund()).status).toBe(200);
    await api.as(other, 'POST', '/payments/initiates', accountPayment({ paymentReference: reference }));
    await api.send('POST', '/payments/refund', { publicKey: merchant.publicKey, paymentReference: reference, amount: 'ten', currency: 'NGN', country: 'NG' }, merchant.basic);

    expect((await count({ path: '/payments/refund', paymentReference: reference, publicKey: merchant.publicKey })).body).toEqual({ count: 2, dropped: 0 });
    expect((await count({ path: '/payments/refund', paymentReference: reference, status: '200' })).body).toEqual({ count: 1, dropped: 0 });
    expect((await count({ path: '/payments/refund', status: '400' })).body.count).toBe(1);
    expect((await count({ paymentReference: reference })).body.count).toBe(5);
    expect((await count({ paymentReference: reference, publicKey: other.publicKey })).body.count).toBe(1);
    expect((await count({ path: '/payments/cancel' })).body.count).toBe(0);
  });

  it('refuses a status that is not a number, or an unknown filter, with 400', async () => {
    for (const query of [{ status: 'ok' }, { status: '600' }, { verb: 'POST' }] as Array<Record<string, string>>) {
      const refused = await count(query);
      expect(refused.status, JSON.stringify(query)).toBe(400);
      expect(refused.body.error).toBe('INPUT');
    }
  });

  it('says how many entries the bounded journal let go of, which a count cannot see', async () => {
    for (let n = 0; n < 25; n += 1) await api.as(merchant, 'POST', '/payments/initiates', accountPayment());
    const counted = (await count({ path: '/payments/initiates' })).body;
    expect(counted.count).toBeLessThanOrEqual(20);
    expect(counted.dropped).toBeGreaterThan(0);
  });
});
