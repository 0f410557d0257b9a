import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { ApiClient, sandboxForTest, type TestMerchant } from '../support/sandbox.js';
import { ProviderDocument } from './provider-document.js';

/**
 * The provider's request examples, changed as its own refusal examples
 * describe, against the refusal it documents (external-api.yml, TokenizeaCard
 * 400Response9, InitiateSubscription 400Response12-16).
 */

const provider = ProviderDocument.load();
const exampleOf = (operationId: string): Record<string, unknown> => provider.requestExamples(provider.operation(operationId))[0]!.body!;

let sandbox: Sandbox;
let api: ApiClient;
let merchant: TestMerchant;

beforeAll(async () => {
  sandbox = await sandboxForTest();
  api = await ApiClient.for(sandbox);
  merchant = await api.merchant();
});
afterAll(() => sandbox.close());

let references = 0;
// The example as this merchant's, under a reference of its own.
const asMerchant = (body: Record<string, unknown>): Record<string, unknown> => ({ ...body, publicKey: merchant.publicKey, paymentReference: `SBREF-PROVIDER-ERR-${(references += 1)}` });

describe("TokenizeaCard: the provider's 400 Invalid Card Number (400Response9)", () => {
  it('answers a card number that fails the Luhn check so, and tokenizes the example\'s own card', async () => {
    const body = asMerchant(exampleOf('TokenizeaCard'));
    expect(body.cardNumber).toBe('5123450000000008');
    const refused = await api.send('POST', '/payments/tokenize', { ...body, cardNumber: '5123450000000009' }, merchant.basic);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(provider.componentExample('400Response9'));
    expect(refused.headers['x-sandbox-scenario']).toBe('invalid-card-number');
    const tokenized = await api.send('POST', '/payments/tokenize', body, merchant.basic);
    expect([tokenized.status, tokenized.body.data.code]).toEqual([201, 'S20']);
  });
});

describe("InitiateSubscription: the provider's words for a field left out (400Response12-16)", () => {
  it.each([
    ['paymentReference', '400Response12'],
    ['amount', '400Response13'],
    ['publicKey', '400Response14'],
    ['country', '400Response15'],
    ['currency', '400Response16'],
  ])('without %s: 400, as %s', async (field, response) => {
    const { [field]: _left, ...body } = asMerchant(exampleOf('InitiateSubscription'));
    const refused = await api.send('POST', '/recurring/subscribes', body, `Bearer ${merchant.token}`);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(provider.componentExample(response));
    // A null is a field left out, in the provider's words too.
    const nulled = await api.send('POST', '/recurring/subscribes', { ...body, [field]: null }, `Bearer ${merchant.token}`);
    expect(nulled.body).toEqual(provider.componentExample(response));
  });

  it('names the first the provider lists when several are left out, and keeps the sandbox\'s words for the other fields', async () => {
    const { currency: _currency, amount: _amount, ...body } = asMerchant(exampleOf('InitiateSubscription'));
    expect((await api.send('POST', '/recurring/subscribes', body, `Bearer ${merchant.token}`)).body).toEqual(provider.componentExample('400Response13'));
    const { billingCycle: _cycle, ...noCycle } = asMerchant(exampleOf('InitiateSubscription'));
    expect((await api.send('POST', '/recurring/subscribes', noCycle, `Bearer ${merchant.token}`)).body).toEqual({ message: 'billingCycle is required', error: 'INPUT' });
  });
});
