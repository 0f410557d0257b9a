import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { ControlClient } from '../support/control.js';
import { Receiver } from '../support/receiver.js';
import { ApiClient, momoPayment, sandboxForTest, type TestMerchant } from '../support/sandbox.js';
import { ProviderDocument } from './provider-document.js';

/**
 * The provider's OTPMomo example (OTP 81015) beyond its answer, which
 * test/unit/api/provider-replay.test.ts compares: the payment it leaves pending waits for the
 * network, then settles on the merchant's clock or over the control API,
 * and its merchant is notified (docs/decisions.md#d62-momo-otp-pending).
 */

const provider = ProviderDocument.load();
const [example] = provider.requestExamples(provider.operation('OTPMomo'));

let sandbox: Sandbox;
let api: ApiClient;
let control: ControlClient;
let receiver: Receiver;

beforeAll(async () => {
  sandbox = await sandboxForTest();
  api = await ApiClient.for(sandbox);
  control = await ControlClient.for(sandbox);
  receiver = await Receiver.start();
});
afterAll(async () => {
  await sandbox.close();
  await receiver.close();
});

const statusOf = async (merchant: TestMerchant, reference: string) =>
  (await api.send('GET', `/payments/query/${reference}`, undefined, `Bearer ${merchant.token}`)).body.data;

// A merchant with a notification URL and a MOMO payment waiting for its OTP; the provider's example completes it.
async function otpSent(reference: string): Promise<TestMerchant> {
  const merchant = await api.merchant();
  expect((await control.send('PUT', `/webhooks/${merchant.publicKey}`, { body: { url: receiver.url } })).status).toBe(200);
  const initiated = await api.as(merchant, 'POST', '/payments/initiates', momoPayment({ paymentReference: reference }));
  expect(initiated.body.data.code).toBe('NIP');
  const linkingReference = initiated.body.data.payments.linkingReference;
  const answered = await api.as(merchant, 'POST', '/payments/momo/otp', { ...example!.body, linkingReference });
  expect(answered.status).toBe(200);
  expect(answered.headers['x-sandbox-scenario']).toBe('momo-otp-pending');
  expect(answered.body).toEqual({
    status: 'SUCCESS',
    data: { code: 'S20', message: 'Transaction is pending', payments: { paymentReference: reference, linkingReference } },
  });
  return merchant;
}

describe("the provider's OTPMomo example: OTP 81015", () => {
  it('leaves the payment PENDING; advancing the merchant\'s clock ten seconds pays it, and the merchant is notified', async () => {
    const merchant = await otpSent('SBREF-OTPMOMO-CLOCK');
    expect(await statusOf(merchant, 'SBREF-OTPMOMO-CLOCK')).toMatchObject({ code: 'S20', message: 'Transaction is pending' });
    const clock = (await control.send('GET', `/clock/${merchant.publicKey}`)).body;
    expect(clock.pending).toEqual([expect.objectContaining({ kind: 'settlement', paymentReference: 'SBREF-OTPMOMO-CLOCK' })]);
    expect((await control.send('POST', `/clock/${merchant.publicKey}/advance`, { body: { by: 'PT9S' } })).body.fired).toEqual([]);
    const advanced = await control.send('POST', `/clock/${merchant.publicKey}/advance`, { body: { by: 'PT2S' } });
    expect(advanced.body.fired.map((fired: { kind: string }) => fired.kind)).toEqual(['settlement', 'delivery']);
    expect(await statusOf(merchant, 'SBREF-OTPMOMO-CLOCK')).toMatchObject({ code: '00', message: 'Successful' });
    const delivered = await sandbox.webhooks.waitFor({ paymentReference: 'SBREF-OTPMOMO-CLOCK' }, 5000);
    expect(delivered.event).toMatchObject({ eventType: 'transaction', data: { code: '00', reference: 'SBREF-OTPMOMO-CLOCK' } });
  });

  it('settled over the control API first, it takes that outcome at once, nothing stays due, and the merchant is notified', async () => {
    const merchant = await otpSent('SBREF-OTPMOMO-CONTROL');
    const settled = await control.send('POST', '/payments/SBREF-OTPMOMO-CONTROL/complete', { body: { outcome: 'failure', publicKey: merchant.publicKey } });
    expect(settled.body).toMatchObject({ status: 'FAILED' });
    expect(settled.body.due).toBeUndefined();
    expect(await statusOf(merchant, 'SBREF-OTPMOMO-CONTROL')).toMatchObject({ code: 'S12', message: 'Transaction Failed' });
    const delivered = await sandbox.webhooks.waitFor({ paymentReference: 'SBREF-OTPMOMO-CONTROL' }, 5000);
    expect(delivered.event).toMatchObject({ eventType: 'transaction', data: { code: 'S12', reference: 'SBREF-OTPMOMO-CONTROL' } });
    const advanced = await control.send('POST', `/clock/${merchant.publicKey}/advance`, { body: { by: 'PT1M' } });
    expect(advanced.body.fired.filter((fired: { kind: string }) => fired.kind === 'settlement')).toEqual([]);
  });
});
