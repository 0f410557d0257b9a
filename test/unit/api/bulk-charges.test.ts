import { inProcess } from '../../support/in-process.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { ApiClient, freshReference, sandboxWithMerchant, type TestMerchant } from '../../support/sandbox.js';

/**
 * The documentation's bulk token charge and its search (docs/decisions.md#d60-bulk-token-charge),
 * over raw HTTP: a batch is checked whole before anything is charged, each
 * item is charged as a charge-token of its card, and the search shows them.
 */

let sandbox: Sandbox;
let api: ApiClient;
let merchant: TestMerchant;

beforeAll(async () => {
  ({ sandbox, api, merchant } = await sandboxWithMerchant());
});
afterAll(() => sandbox.close());

/** A paid create-token of the card; its authorizationCode. */
async function codeOf(cardNumber: string): Promise<string> {
  const paymentReference = freshReference();
  const made = await api.as(merchant, 'POST', '/payments/create-token', {
    paymentType: 'CARD', paymentReference, amount: '100.00', currency: 'NGN', country: 'NG', cardNumber, cvv: '100', expiryMonth: '05', expiryYear: '30', pin: '1234', redirectUrl: 'https://merchant.example.com/return',
  });
  await api.as(merchant, 'POST', '/payments/otp', { linkingReference: made.body.data.payments.linkingReference, otp: '123456' });
  return (await api.as(merchant, 'GET', `/payments/query/${paymentReference}`)).body.data.payments.authorizationCode;
}

/** Sends a batch (a JSON array) as the merchant. */
const charge = (items: Array<Record<string, unknown>>) =>
  inProcess(sandbox).post('/api/v2/payments/bulk-tokenize-charge').set('Authorization', `Bearer ${merchant.token}`).send(items.map((item) => ({ publicKey: merchant.publicKey, ...item })));

const search = (batchId: string) => api.as(merchant, 'GET', `/payments/bulk-tokenize-charge-search?batchId=${batchId}`);

describe('POST /payments/bulk-tokenize-charge', () => {
  it('charges each item as a charge-token of its card, answers the batchId in the documentation\'s envelope, and the search shows each item', async () => {
    const good = await codeOf('5123450000000008');
    const declining = await codeOf('4000000000000341');
    const references = [freshReference(), freshReference()];
    const taken = await charge([
      { amount: '11', paymentReference: references[0], authorizationCode: good },
      { amount: '15.50', paymentReference: references[1], authorizationCode: declining },
    ]);
    expect(taken.status).toBe(200);
    expect(taken.body).toEqual({ code: '00', message: 'Successful', payload: { batchId: expect.stringMatching(/^[0-9a-z]{7}$/) } });
    const found = await search(taken.body.payload.batchId);
    expect(found.body.code).toBe('00');
    const items = found.body.payload.content.map((item: any) => [item.id, item.paymentReference, item.statusCode, item.message, item.amount, item.cardBin, item.cardLastFourDigits, item.cardType, item.authorizationCode]);
    expect(items).toEqual([
      [1, references[0], '00', 'APPROVED', '11.00', '512345', '0008', 'MASTERCARD', good],
      [2, references[1], 'S12', 'Transaction Failed', '15.50', '400000', '0341', 'VISA', declining],
    ]);
    expect(found.body.payload.totalElements).toBe(2);
    // Each item is a payment the status query answers.
    expect((await api.as(merchant, 'GET', `/payments/query/${references[0]}`)).body.data.code).toBe('00');
  });

  it('refuses the whole batch, storing nothing, for one unknown code, one reused reference or one foreign publicKey', async () => {
    const good = await codeOf('5123450000000008');
    const fresh = freshReference();
    const unknown = await charge([{ amount: '10', paymentReference: fresh, authorizationCode: good }, { amount: '10', paymentReference: freshReference(), authorizationCode: '00000000000000000000' }]);
    expect([unknown.status, unknown.body]).toEqual([400, { status: 'ERROR', data: { code: 'S12', message: 'Invalid/Missing parameters = authorizationCode' } }]);
    expect(unknown.headers['x-sandbox-reason']).toMatch(/^item 2: /);
    const twice = await charge([{ amount: '10', paymentReference: fresh, authorizationCode: good }, { amount: '12', paymentReference: fresh, authorizationCode: good }]);
    expect([twice.status, twice.body.data.message]).toEqual([400, 'Duplicate transaction reference']);
    const foreign = await charge([{ amount: '10', paymentReference: fresh, authorizationCode: good, publicKey: 'SBTESTPUBK_someoneelse' }]);
    expect(foreign.status).toBe(401);
    expect(sandbox.store.payment(merchant.publicKey, fresh)).toBeUndefined();
    const empty = await inProcess(sandbox).post('/api/v2/payments/bulk-tokenize-charge').set('Authorization', `Bearer ${merchant.token}`).send([]);
    expect([empty.status, empty.body.status, empty.body.data.code]).toEqual([400, 'ERROR', 'S12']);
  });

  it('the search of a batchId that is none of the merchant\'s is an empty page; without batchId it is refused', async () => {
    const none = await search('nosuchb');
    expect([none.body.code, none.body.payload.content, none.body.payload.empty]).toEqual(['00', [], true]);
    const missing = await inProcess(sandbox).get('/api/v2/payments/bulk-tokenize-charge-search').set('Authorization', `Bearer ${merchant.token}`);
    expect([missing.status, missing.body.error]).toEqual([400, 'INPUT']);
  });
});
