import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { ApiClient, sandboxForTest, type TestMerchant } from '../../support/sandbox.js';
import { ProviderDocument } from '../../provider/provider-document.js';

/**
 * The provider's request examples, changed as its own refusal examples
 * describe, against the refusal it documents (external-api.yml, TokenizeaCard
 * 400Response9, InitiateSubscription 400Response12-16), and its bank list
 * asked for as it describes it, without security (GetBanks).
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
    expect(refused.headers['x-sandbox-reason']).toMatch(/^cardNumber 512345\*{6}0009 fails the Luhn check/);
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

describe('GetBanks: described without security', () => {
  it("answers the banks of the path's merchant without a token, with a warning; a token sent is still checked", async () => {
    const path = `/banks/merchant/${merchant.publicKey}`;
    const open = await api.send('GET', path);
    expect(open.status).toBe(201);
    expect(open.body.data.merchantBanks).toEqual(provider.responseExample(provider.operation('GetBanks')).body.data.merchantBanks.map(() => expect.objectContaining({ status: 'ACTIVE' })));
    expect(open.headers['x-sandbox-warnings']).toMatch(/^Authorization: none sent; /);
    const withToken = await api.send('GET', path, undefined, `Bearer ${merchant.token}`);
    expect(withToken.status).toBe(201);
    expect(withToken.headers['x-sandbox-warnings']).toBeUndefined();
    const other = await api.merchant();
    expect((await api.send('GET', path, undefined, `Bearer ${other.token}`)).status).toBe(401);
  });

  it("refuses a public key the sandbox has not seen, as the hash endpoint does, and a live one", async () => {
    const unknown = await api.send('GET', '/banks/merchant/SBTESTPUBK_neverseen0000');
    expect([unknown.status, unknown.body]).toEqual([400, { status: 'ERROR', data: { code: 'S12', message: 'Bad credentials = invalid public key' } }]);
    const live = await api.send('GET', '/banks/merchant/SBPUBK_r5Tg2Hn8Vb1Yc6Ke');
    expect([live.status, live.body]).toEqual([403, { message: 'Confirm Merchant Environment', error: 'PERMISSION' }]);
  });
});
