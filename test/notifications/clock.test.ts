import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { ControlClient } from '../support/control.js';
import { Receiver } from '../support/receiver.js';
import { accountPayment, ApiClient, momoPayment, sandboxForTest, transferPayment, type TestMerchant } from '../support/sandbox.js';

/**
 * Each merchant's clock, and what falls due on it (README, "Time"):
 * settlements a rule promised, expiries of pending payments, delivery
 * retries. Advancing a clock carries them out in time order, at once.
 * Here, what a merchant is notified of, on a receiver on loopback; a clock
 * moved and what no notification shows: test/unit/clock/merchant-clocks.test.ts.
 */

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

const clockOf = async (merchant: TestMerchant) => (await control.send('GET', `/clock/${merchant.publicKey}`)).body;
const advance = async (merchant: TestMerchant, body: Record<string, unknown>) => control.send('POST', `/clock/${merchant.publicKey}/advance`, { body });
const statusOf = async (merchant: TestMerchant, reference: string) =>
  (await api.send('GET', `/payments/query/${reference}`, undefined, `Bearer ${merchant.token}`)).body.data;

async function merchantWithUrl(): Promise<TestMerchant> {
  const merchant = await api.merchant();
  expect((await control.send('PUT', `/webhooks/${merchant.publicKey}`, { body: { url: receiver.url } })).status).toBe(200);
  return merchant;
}

describe('outcomes that arrive later', () => {
  it('a mobile money approval arrives ten seconds after the answer: pending until the clock gets there, then paid and notified', async () => {
    const merchant = await merchantWithUrl();
    const answered = await api.as(merchant, 'POST', '/payments/initiates', momoPayment({ paymentReference: 'CLK-MOMO', mobileNumber: '233200000010' }));
    expect(answered.body.data.code).toBe('20');
    expect(answered.headers['x-sandbox-scenario']).toBe('momo-approved-later');
    expect(await statusOf(merchant, 'CLK-MOMO')).toMatchObject({ code: '20' });
    const clock = await clockOf(merchant);
    expect(clock.pending).toEqual([expect.objectContaining({ kind: 'settlement', paymentReference: 'CLK-MOMO' })]);
    expect(Date.parse(clock.pending[0].at) - Date.parse(clock.now)).toBeGreaterThan(9000);
    const early = await advance(merchant, { by: 'PT9S' });
    expect(early.body.fired).toEqual([]);
    expect(await statusOf(merchant, 'CLK-MOMO')).toMatchObject({ code: '20' });
    const later = await advance(merchant, { by: 'PT2S' });
    expect(later.body.fired.map((fired: { kind: string }) => fired.kind)).toEqual(['settlement', 'delivery']);
    expect(await statusOf(merchant, 'CLK-MOMO')).toMatchObject({ code: '00', message: 'Successful' });
    const delivered = await sandbox.webhooks.waitFor({ paymentReference: 'CLK-MOMO' }, 5000);
    expect(delivered.event.data).toMatchObject({ code: '00', reference: 'CLK-MOMO' });
    // The event carries the merchant's time, the settlement's: ten seconds after the answer, whole seconds, ahead of real time.
    expect(Date.parse(`${delivered.event.eventDate.replace(' ', 'T')}Z`)).toBeGreaterThan(Date.now() + 5000);
  });

  it('a mobile money decline and a transfer that lands two minutes later settle as their rules say', async () => {
    const merchant = await merchantWithUrl();
    await api.as(merchant, 'POST', '/payments/initiates', momoPayment({ paymentReference: 'CLK-MOMO-NO', mobileNumber: '233200000011' }));
    const transfer = await api.as(merchant, 'POST', '/payments/initiates', transferPayment({ paymentReference: 'CLK-TRF', amount: '4000.00' }));
    expect(transfer.headers['x-sandbox-scenario']).toBe('transfer-arrives-later');
    const advanced = await advance(merchant, { by: 'PT2M' });
    expect(advanced.body.fired.filter((fired: { kind: string }) => fired.kind === 'settlement').map((fired: { paymentReference: string }) => fired.paymentReference)).toEqual(['CLK-MOMO-NO', 'CLK-TRF']);
    expect(await statusOf(merchant, 'CLK-MOMO-NO')).toMatchObject({ code: 'S12' });
    expect(await statusOf(merchant, 'CLK-TRF')).toMatchObject({ code: '00' });
    const transferEvent = await sandbox.webhooks.waitFor({ paymentReference: 'CLK-TRF' }, 5000);
    expect(transferEvent.event.data).toMatchObject({ paymentType: 'TRANSFER', creditAccountNumber: expect.stringMatching(/^\d{10}$/) });
  });

  it('a pending payment expires at the end of its lifetime: half an hour for an OTP, walletDaysActive days for a transfer', async () => {
    const merchant = await merchantWithUrl();
    await api.as(merchant, 'POST', '/payments/initiates', accountPayment({ paymentReference: 'CLK-EXPIRE-OTP' }));
    await api.as(merchant, 'POST', '/payments/initiates', transferPayment({ paymentReference: 'CLK-EXPIRE-TRF', walletDaysActive: '2' }));
    await advance(merchant, { by: 'PT29M' });
    expect(await statusOf(merchant, 'CLK-EXPIRE-OTP')).toMatchObject({ code: '20' });
    await advance(merchant, { by: 'PT1M' });
    expect(await statusOf(merchant, 'CLK-EXPIRE-OTP')).toMatchObject({ code: 'S12', message: 'Transaction Expired' });
    const stored = await control.send('GET', '/payments/CLK-EXPIRE-OTP', { query: { publicKey: merchant.publicKey } });
    expect(stored.body).toMatchObject({ status: 'EXPIRED', scenario: 'pending-payment-expired' });
    expect(stored.body.due).toBeUndefined();
    // A day on, the two-day transfer is still waiting; two days on, it has expired.
    await advance(merchant, { by: 'P1D' });
    expect(await statusOf(merchant, 'CLK-EXPIRE-TRF')).toMatchObject({ code: '00', message: 'ACCOUNT OPENED SUCCESSFULLY' });
    await advance(merchant, { by: 'P1D' });
    expect(await statusOf(merchant, 'CLK-EXPIRE-TRF')).toMatchObject({ code: 'S12', message: 'Transaction Expired' });
    const expired = await sandbox.webhooks.waitFor({ paymentReference: 'CLK-EXPIRE-TRF' }, 5000);
    expect(expired.event.data).toMatchObject({ code: 'S12', gatewayMessage: 'Transaction Expired' });
    // An expired payment is no longer pending: the OTP comes too late.
    const otp = await api.as(merchant, 'POST', '/payments/initiates', accountPayment({ paymentReference: 'CLK-EXPIRE-LATE-OTP' }));
    await advance(merchant, { by: 'PT31M' });
    const late = await api.as(merchant, 'POST', '/payments/validate', { linkingReference: otp.body.data.payments.linkingReference, otp: '123456' });
    expect(late.body.data).toMatchObject({ code: 'RR' });
  });
});

describe('a restart', () => {
  it('keeps clocks, settlements and delivery retries due, and carries them out after it', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'sandbox-clock-'));
    const dataFile = join(folder, 'sandbox.json');
    const down = await Receiver.start(() => ({ status: 503 }));
    try {
      let first = await sandboxForTest({ dataFile });
      const firstApi = await ApiClient.for(first);
      const firstControl = await ControlClient.for(first);
      const merchant = await firstApi.merchant();
      await firstControl.send('PUT', `/webhooks/${merchant.publicKey}`, { body: { url: down.url } });
      const initiated = await firstApi.as(merchant, 'POST', '/payments/initiates', accountPayment({ paymentReference: 'CLK-RESTART-PAID' }));
      await firstApi.as(merchant, 'POST', '/payments/validate', { linkingReference: initiated.body.data.payments.linkingReference, otp: '123456' });
      await firstApi.as(merchant, 'POST', '/payments/initiates', momoPayment({ paymentReference: 'CLK-RESTART-LATER', mobileNumber: '233200000010' }));
      await expect.poll(async () => (await firstControl.send('GET', '/webhooks/deliveries', { query: { publicKey: merchant.publicKey } })).body.deliveries[0]?.attempts.length, { timeout: 5000 }).toBe(1);
      await firstControl.send('POST', `/clock/${merchant.publicKey}/advance`, { body: { by: 'PT5S' } });
      const before = (await firstControl.send('GET', `/clock/${merchant.publicKey}`)).body;
      await first.close();

      first = await sandboxForTest({ dataFile });
      const again = await ControlClient.for(first);
      try {
        const after = (await again.send('GET', `/clock/${merchant.publicKey}`)).body;
        expect(after.offsetMs).toBe(before.offsetMs);
        expect(after.pending.map((item: { kind: string; paymentReference: string }) => `${item.kind} ${item.paymentReference}`)).toEqual(
          before.pending.map((item: { kind: string; paymentReference: string }) => `${item.kind} ${item.paymentReference}`),
        );
        expect(after.pending.map((item: { kind: string }) => item.kind).sort()).toEqual(['delivery', 'settlement']);
        // The receiver is up now: the retry 30 s after the first attempt reaches it, and the settlement is carried out.
        await again.send('PUT', `/webhooks/${merchant.publicKey}`, { body: { url: receiver.url } });
        const advanced = await again.send('POST', `/clock/${merchant.publicKey}/advance`, { body: { by: 'PT30S' } });
        expect(advanced.body.fired.map((fired: { kind: string }) => fired.kind).sort()).toEqual(['delivery', 'delivery', 'settlement']);
        expect(receiver.of('CLK-RESTART-PAID')).toHaveLength(1);
        expect(receiver.of('CLK-RESTART-LATER')).toHaveLength(1);
        const counted = await again.send('GET', '/webhooks/deliveries/count', { query: { publicKey: merchant.publicKey } });
        expect(counted.body).toMatchObject({ count: 2, byState: { delivered: 2 } });
      } finally {
        await first.close();
      }
    } finally {
      await down.close();
      await rm(folder, { recursive: true, force: true });
    }
  });
});
