import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { accountPayment, ApiClient, freshReference, sandboxWithMerchant, type TestMerchant } from '../../support/sandbox.js';

/**
 * POST /payments/refunds, the refunds API of the provider's current
 * documentation (docs/decisions.md#d55-refunds-api): what it refuses, and
 * that a refusal changes nothing. Refunds made, and their events:
 * test/http/refunds-api.test.ts.
 */

let sandbox: Sandbox;
let api: ApiClient;
let merchant: TestMerchant;

beforeAll(async () => {
  ({ sandbox, api, merchant } = await sandboxWithMerchant());
});
afterAll(() => sandbox.close());

const refunds = (paymentReference: string, amount: string) => api.as(merchant, 'POST', '/payments/refunds', { paymentReference, amount, productDescription: 'returned' });

describe('POST /payments/refunds', () => {
  it('answers 07 in HTTP 200 for a reference the merchant never used, and S12 for a payment never paid; nothing changes', async () => {
    const unknown = freshReference();
    const answer = await refunds(unknown, '1500.00');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: 'SUCCESS', data: { code: '07', message: `Transaction with transaction reference ${unknown} not found` } });
    expect(answer.headers['x-sandbox-scenario']).toBe('refund-transaction-not-found');
    const pending = accountPayment();
    await api.as(merchant, 'POST', '/payments/initiates', pending);
    const unpaid = await refunds(String(pending.paymentReference), '10.00');
    expect(unpaid.body.data.code).toBe('S12');
    expect(unpaid.headers['x-sandbox-reason']).toContain('is PENDING');
    expect(sandbox.store.payment(merchant.publicKey, String(pending.paymentReference))).toMatchObject({ status: 'PENDING', refundedAmount: '0.00' });
  });
});
