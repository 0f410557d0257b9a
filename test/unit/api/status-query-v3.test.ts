import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { ControlClient } from '../../support/control.js';
import { ApiClient, cardPayment, freshReference, sandboxWithMerchant, type TestMerchant } from '../../support/sandbox.js';
import { fetchOf } from '../../support/in-process.js';

/**
 * The status query under /api/v3 (docs/decisions.md#d56-status-query-v3): over the sandbox's own
 * HTTP listener, the v2 answer and the fields the documentation's v3 adds;
 * nothing else is served under /api/v3.
 */

let sandbox: Sandbox;
let api: ApiClient;
let merchant: TestMerchant;

beforeAll(async () => {
  ({ sandbox, api, merchant } = await sandboxWithMerchant());
});
afterAll(() => sandbox.close());

const get = (path: string) => fetchOf(sandbox)(`${sandbox.url}${path}`, { headers: { Authorization: `Bearer ${merchant.token}` } });

describe('GET /api/v3/payments/query/{paymentReference}', () => {
  it('answers what /api/v2 answers, with fee, businessName, paymentBreakdown, transactionProcessedTime and the customer\'s fee', async () => {
    const payment = cardPayment({ email: 'ada@example.com', callbackUrl: 'https://merchant.example.com/cb' });
    await api.as(merchant, 'POST', '/payments/initiates', payment);
    const v2 = await (await get(`/api/v2/payments/query/${payment.paymentReference}`)).json();
    const answer = await get(`/api/v3/payments/query/${payment.paymentReference}`);
    expect(answer.status).toBe(200);
    const v3 = await answer.json();
    expect(v3.data.code).toBe(v2.data.code);
    const { fee, businessName, callbackurl, paymentBreakdown, transactionProcessedTime, maskedPan, ...rest } = v3.data.payments;
    const { maskedPan: v2Pan, ...v2Rest } = v2.data.payments;
    expect(rest).toEqual(v2Rest);
    expect(maskedPan).toBe(v2Pan.replaceAll('x', 'X'));
    expect({ fee, businessName, callbackurl, paymentBreakdown }).toEqual({
      fee: '0.00', businessName: 'Sandbox Test Business', callbackurl: 'https://merchant.example.com/cb', paymentBreakdown: { amount: 1500, fee: 0, total: 1500 },
    });
    expect(transactionProcessedTime).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9}$/);
    expect(v3.data.customers).toEqual({ ...v2.data.customers, fee: '0.00' });
    // The journal names the path below /api, and the operation.
    const control = await ControlClient.for(sandbox);
    const entries = (await control.send('GET', '/requests', { query: { publicKey: merchant.publicKey, path: `/v3/payments/query/${payment.paymentReference}` } })).body.requests;
    expect(entries).toEqual([expect.objectContaining({ method: 'GET', status: 200, operation: 'queryPaymentV3' })]);
  });

  it('answers the provider\'s 500 for a reference never used, and serves nothing else under /api/v3', async () => {
    const unknown = await get(`/api/v3/payments/query/${freshReference()}`);
    expect(unknown.status).toBe(500);
    expect(await unknown.json()).toEqual({ message: 'No transaction found', error: 'PROCESSING' });
    for (const path of ['/api/v3/payments/initiates', '/api/v2/v3/payments/query/X', '/api/v3/encrypt/keys']) {
      const answer = await fetchOf(sandbox)(`${sandbox.url}${path}`, { method: 'POST', headers: { Authorization: `Bearer ${merchant.token}`, 'Content-Type': 'application/json' }, body: '{}' });
      expect(answer.status, path).toBe(404);
    }
    const missing = await fetchOf(sandbox)(`${sandbox.url}/api/v3/payments/initiates`, { method: 'POST', headers: { Authorization: `Bearer ${merchant.token}`, 'Content-Type': 'application/json' }, body: '{}' });
    expect(missing.headers.get('x-sandbox-detail')).toContain('/api/v3/payments/initiates');
  });
});
