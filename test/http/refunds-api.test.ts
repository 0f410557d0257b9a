import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { sandboxWithReceiver, type Receiver } from '../support/receiver.js';
import { accountPayment, ApiClient, type TestMerchant } from '../support/sandbox.js';

/**
 * POST /payments/refunds, the refunds API of the provider's current
 * documentation (docs/decisions.md#d55-refunds-api): full or partial refunds through the
 * one state machine, `07` for a reference never used, a `refund` event for
 * each refund made. Here the events, sent to a receiver on loopback; what
 * is refused and changes nothing: test/unit/api/refunds-api.test.ts.
 */

let sandbox: Sandbox;
let api: ApiClient;
let merchant: TestMerchant;
let receiver: Receiver;

let close: () => Promise<void>;

beforeAll(async () => {
  ({ sandbox, api, merchant, receiver, close } = await sandboxWithReceiver());
});
afterAll(() => close());

/** A paid account payment of 150.00. */
async function paid(): Promise<string> {
  const payment = accountPayment({ amount: '150.00' });
  const initiated = await api.as(merchant, 'POST', '/payments/initiates', payment);
  await api.as(merchant, 'POST', '/payments/validate', { linkingReference: initiated.body.data.payments.linkingReference, otp: '123456' });
  return String(payment.paymentReference);
}

const refunds = (paymentReference: string, amount: string) => api.as(merchant, 'POST', '/payments/refunds', { paymentReference, amount, productDescription: 'returned' });

describe('POST /payments/refunds', () => {
  it('refunds in parts, adding up with the spec\'s refund, until the payment is REFUNDED; then refuses with why; each refund made is a refund event', async () => {
    const reference = await paid();
    const first = await refunds(reference, '50.00');
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({ code: '00', message: 'APPROVED', payments: { paymentReference: reference, amount: '50.00', status: 'SUCCESSFUL' } });
    const spec = await api.send('POST', '/payments/refund', { publicKey: merchant.publicKey, paymentReference: reference, amount: '60.00', currency: 'NGN', country: 'NG' }, merchant.basic);
    expect(spec.body.data.code).toBe('00');
    const beyond = await refunds(reference, '40.01');
    expect(beyond.body.data).toMatchObject({ code: 'S12', message: 'Transaction Failed' });
    expect(beyond.headers['x-sandbox-reason']).toBe(`a refund of 40.01 is more than the 40.00 NGN left of payment ${reference}`);
    const rest = await refunds(reference, '40.00');
    expect(rest.body.data.payments).toMatchObject({ amount: '40.00', status: 'REFUNDED' });
    expect(sandbox.store.payment(merchant.publicKey, reference)).toMatchObject({ status: 'REFUNDED', refundedAmount: '150.00' });
    const again = await refunds(reference, '1.00');
    expect(again.body.data.code).toBe('S12');
    expect(again.headers['x-sandbox-reason']).toContain('already refunded in full');
    await expect.poll(() => receiver.of(reference).filter((item: { eventType?: string }) => item.eventType === 'refund').length, { timeout: 5000 }).toBe(3);
  });
});
