import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { Receiver } from '../support/receiver.js';
import { EXIT_WITHIN, run, within } from '../support/process.js';
import { accountPayment, ApiClient, listeningSandbox, type TestMerchant } from '../support/sandbox.js';

/**
 * `payments-sandbox trigger <eventType> --reference <paymentReference>`
 * (README, "Redeliver and trigger"): the built CLI, as a process, against a
 * sandbox in this process, and a receiver on loopback.
 */

let sandbox: Sandbox;
let api: ApiClient;
let receiver: Receiver;
let merchant: TestMerchant;

beforeAll(async () => {
  receiver = await Receiver.start();
  sandbox = await listeningSandbox({ webhookUrl: receiver.url });
  api = await ApiClient.for(sandbox);
  merchant = await api.merchant();
  const initiated = await api.as(merchant, 'POST', '/payments/initiates', accountPayment({ paymentReference: 'CLI-TRIGGER-1' }));
  await api.as(merchant, 'POST', '/payments/validate', { linkingReference: initiated.body.data.payments.linkingReference, otp: '123456' });
  await sandbox.webhooks.waitFor({ paymentReference: 'CLI-TRIGGER-1' }, 5000);
});
afterAll(async () => {
  await sandbox.close();
  await receiver.close();
});

const trigger = async (...args: string[]) => {
  const started = run(['trigger', ...args, '--url', sandbox.url]);
  const { code } = await within(started.closed, EXIT_WITHIN, 'payments-sandbox trigger to exit');
  return { exit: { code, stdout: started.stdout(), stderr: started.stderr() } };
};

describe('payments-sandbox trigger', () => {
  it('sends a new transaction event of the payment, found by its reference alone', async () => {
    const { exit } = await trigger('transaction', '--reference', 'CLI-TRIGGER-1');
    expect(exit.code, exit.stderr).toBe(0);
    expect(exit.stdout).toMatch(/^dlv_[0-9a-f]{20} transaction eventId [0-9a-f]{32} scheduled/);
    await expect.poll(() => receiver.of('CLI-TRIGGER-1').length, { timeout: 5000 }).toBe(2);
    const [first, second] = receiver.of('CLI-TRIGGER-1');
    expect(second!.eventId).not.toBe(first!.eventId);
    expect(exit.stdout).toContain(second!.eventId);
  });

  it('says in one line what is wrong: an unknown event type, an unknown payment, a refund of a payment never refunded', async () => {
    const wrongType = await trigger('chargeback', '--reference', 'CLI-TRIGGER-1');
    expect(wrongType.exit.code).toBe(1);
    expect(wrongType.exit.stderr).toContain('unknown event type chargeback');
    const unknown = await trigger('transaction', '--reference', 'CLI-NO-SUCH');
    expect(unknown.exit.code).toBe(1);
    expect(unknown.exit.stderr).toContain('answered 404');
    const refund = await trigger('refund', '--reference', 'CLI-TRIGGER-1', '--public-key', merchant.publicKey);
    expect(refund.exit.code).toBe(1);
    expect(refund.exit.stderr).toContain('no refund to notify');
  });
});
