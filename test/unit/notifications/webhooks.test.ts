import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { ControlClient } from '../../support/control.js';
import { accountPayment, ApiClient, sandboxForTest, type TestMerchant } from '../../support/sandbox.js';

/**
 * A merchant's notification URL and faults over the control API (README,
 * "Notifications"), where nothing is sent: a URL refused, the faults listed
 * and removed, and no delivery made once the URL is gone (the project's
 * guard fails the test if one were sent). What a receiver on a port gets:
 * test/notifications/delivery.test.ts.
 */

/** A URL where nothing listens: no test here makes a delivery to it. */
const NOWHERE = 'http://127.0.0.1:9/webhook';

let sandbox: Sandbox;
let api: ApiClient;
let control: ControlClient;

beforeAll(async () => {
  sandbox = await sandboxForTest();
  api = await ApiClient.for(sandbox);
  control = await ControlClient.for(sandbox);
});
afterAll(() => sandbox.close());

/** A merchant of its own whose notification URL is set. */
async function merchantWithUrl(): Promise<TestMerchant> {
  const merchant = await api.merchant();
  const set = await control.send('PUT', `/webhooks/${merchant.publicKey}`, { body: { url: NOWHERE } });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
  return merchant;
}

describe('faults for notifications', () => {
  it('lists a merchant faults with what is left of them, and removes them', async () => {
    const merchant = await merchantWithUrl();
    const set = await control.send('POST', `/webhooks/${merchant.publicKey}/faults`, { body: { kind: 'duplicate', times: 2 } });
    expect(set.status, JSON.stringify(set.body)).toBe(201);
    const shown = await control.send('GET', `/webhooks/${merchant.publicKey}`);
    expect(shown.body.faults).toEqual([expect.objectContaining({ kind: 'duplicate', times: 2, publicKey: merchant.publicKey })]);
    expect((await control.send('DELETE', `/webhooks/${merchant.publicKey}/faults`)).status).toBe(204);
    expect((await control.send('GET', `/webhooks/${merchant.publicKey}`)).body.faults).toEqual([]);
  });
});

describe('notification URLs', () => {
  it('refuses a URL that is not http or https, and changes nothing', async () => {
    const merchant = await api.merchant();
    for (const url of ['ftp://example.com/hook', 'localhost:3000', 'javascript:alert(1)']) {
      const refused = await control.send('PUT', `/webhooks/${merchant.publicKey}`, { body: { url } });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toBe('INPUT');
    }
    expect((await control.send('GET', `/webhooks/${merchant.publicKey}`)).body).toMatchObject({ url: null, source: 'none' });
  });

  it('makes no delivery for a merchant without a URL, and stops making them once the URL is removed', async () => {
    const merchant = await merchantWithUrl();
    expect((await control.send('DELETE', `/webhooks/${merchant.publicKey}`)).status).toBe(204);
    // An account payment completed with the right OTP: a `transaction` event, were there a URL.
    const initiated = await api.as(merchant, 'POST', '/payments/initiates', accountPayment({ paymentReference: 'NTF-NO-URL', amount: '922.63' }));
    expect(initiated.body.data.code).toBe('20');
    const validated = await api.as(merchant, 'POST', '/payments/validate', { linkingReference: initiated.body.data.payments.linkingReference, otp: '123456' });
    expect(validated.body.data.code).toBe('00');
    const listed = await control.send('GET', '/webhooks/deliveries', { query: { paymentReference: 'NTF-NO-URL' } });
    expect(listed.status).toBe(200);
    expect(listed.body.deliveries).toEqual([]);
    expect(sandbox.webhooks.deliveries({ publicKey: merchant.publicKey })).toEqual([]);
  });
});
