import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { ApiClient, accountPayment, cardPayment, sandboxWithMerchant, type TestMerchant } from '../../support/sandbox.js';

let sandbox: Sandbox;
let api: ApiClient;
let merchant: TestMerchant;

beforeAll(async () => {
  ({ sandbox, api, merchant } = await sandboxWithMerchant());
});
afterAll(() => sandbox.close());

describe('POST /encrypt/keys', () => {
  it('exchanges a test key pair for a bearer token at data.EncryptedSecKey.encryptedKey, the same each time', async () => {
    const again = await api.send('POST', '/encrypt/keys', { key: `${merchant.secretKey}.${merchant.publicKey}` });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'SUCCESS', data: { code: '00', message: 'Successful' } });
    expect(again.body.data.EncryptedSecKey.encryptedKey).toBe(merchant.token);
  });

  it('refuses a live key pair with 403 Confirm Merchant Environment', async () => {
    const response = await api.send('POST', '/encrypt/keys', { key: 'SBSECK_Jd82kLq0Zm4Xw7Pc.SBPUBK_r5Tg2Hn8Vb1Yc6Ke' });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ message: 'Confirm Merchant Environment', error: 'PERMISSION' });
  });

  it('refuses a value that is not <secret>.<public> with 400 INPUT', async () => {
    for (const key of ['not-a-key-pair', `${merchant.publicKey}.${merchant.secretKey}`, 'SBTESTSECK_short.SBTESTPUBK_short']) {
      const response = await api.send('POST', '/encrypt/keys', { key });
      expect(response.status, key).toBe(400);
      expect(response.body.error).toBe('INPUT');
    }
  });

  it('refuses a known public key presented with another secret key (401)', async () => {
    const response = await api.send('POST', '/encrypt/keys', { key: `SBTESTSECK_someothersecret1.${merchant.publicKey}` });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ message: 'Invalid Authentication Token', error: 'INPUT' });
  });

  it('remembers a new key pair only once its request is answered: a refused exchange or refund creates no merchant', async () => {
    const pair = { publicKey: 'SBTESTPUBK_notyetremembered1', secretKey: 'SBTESTSECK_notyetremembered1' };
    const forced = await api.send('POST', '/encrypt/keys', { key: `${pair.secretKey}.${pair.publicKey}` }, undefined, undefined, { headers: { 'X-Sandbox-Scenario': 'internal-error' } });
    expect(forced.status).toBe(500);
    expect(sandbox.store.merchant(pair.publicKey)).toBeUndefined();
    const basic = `Basic ${Buffer.from(`${pair.publicKey}:${pair.secretKey}`).toString('base64')}`;
    const refund = await api.send('POST', '/payments/refund', { publicKey: pair.publicKey, paymentReference: 'NONE', amount: '1.00', currency: 'NGN', country: 'NG' }, basic);
    expect(refund.status).toBe(400);
    expect(sandbox.store.merchant(pair.publicKey)).toBeUndefined();
    expect((await api.send('POST', '/encrypt/keys', { key: `${pair.secretKey}.${pair.publicKey}` })).status).toBe(200);
    expect(sandbox.store.merchant(pair.publicKey)).toMatchObject(pair);
  });

  it('answers 400 INPUT naming the field when key is missing', async () => {
    const response = await api.send('POST', '/encrypt/keys', {});
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ message: 'key is required', error: 'INPUT' });
  });

  it('answers its 404 with `error` only, to another method on its path and to any path below it (docs/decisions.md#d23-unknown-paths)', async () => {
    for (const [method, path] of [['GET', '/encrypt/keys'], ['PUT', '/Encrypt/Keys/'], ['POST', '/encrypt/keys/rotate'], ['GET', '/encrypt/keys/a/b']] as const) {
      const response = await api.send(method, path);
      expect([response.status, response.headers['x-sandbox-scenario'], response.body], `${method} ${path}`).toEqual([404, 'keys-not-found', { error: 'Not Found' }]);
    }
    // Beside its path, the provider's 404 as anywhere else.
    const beside = await api.send('GET', '/encrypt/keysets');
    expect([beside.status, beside.body]).toEqual([404, { message: 'Not Found', error: 'The server can not find the requested resource' }]);
  });
});

describe('bearer and Basic credentials', () => {
  it('answers 403 Header Token Missing without an Authorization header, and changes nothing', async () => {
    const body = accountPayment({ publicKey: merchant.publicKey });
    const response = await api.send('POST', '/payments/initiates', body);
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ message: 'Header Token Missing', error: 'PERMISSION' });
    expect(sandbox.store.payment(merchant.publicKey, String(body.paymentReference))).toBeUndefined();
  });

  it('answers 401 Invalid Authentication Token for an unknown, forged or malformed token', async () => {
    const forged = merchant.token.replace(/.$/, (c) => (c === '0' ? '1' : '0'));
    for (const auth of ['Bearer nonsense', `Bearer ${forged}`, 'Bearer', 'Token abc', `Basic ${Buffer.from('a:b').toString('base64')}`]) {
      const response = await api.send('POST', '/payments/initiates', accountPayment({ publicKey: merchant.publicKey }), auth);
      expect(response.status, auth).toBe(401);
      expect(response.body).toEqual({ message: 'Invalid Authentication Token', error: 'INPUT' });
    }
  });

  it('refuses another merchant\'s publicKey in the body or the path (401) and a live one (403)', async () => {
    const other = await api.merchant();
    const stolen = await api.send('POST', '/payments/initiates', accountPayment({ publicKey: other.publicKey }), `Bearer ${merchant.token}`);
    expect(stolen.status).toBe(401);
    const listed = await api.send('GET', `/products/orders/publicKey/${other.publicKey}`, undefined, `Bearer ${merchant.token}`);
    expect(listed.status).toBe(401);
    const live = await api.send('POST', '/payments/initiates', accountPayment({ publicKey: 'SBPUBK_r5Tg2Hn8Vb1Yc6Ke' }), `Bearer ${merchant.token}`);
    expect(live.status).toBe(403);
    expect(live.body).toEqual({ message: 'Confirm Merchant Environment', error: 'PERMISSION' });
  });

  it('takes Basic base64(<public>:<secret>) on refund and cancel, and refuses live Basic credentials', async () => {
    const initiated = await api.as(merchant, 'POST', '/payments/initiates', cardPayment());
    const reference = initiated.body.data.payments.paymentReference;
    const cancelled = await api.send('POST', '/payments/cancel', { publicKey: merchant.publicKey, paymentReference: reference }, merchant.basic);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data.payments.status).toBe('CANCELLED');
    const live = `Basic ${Buffer.from('SBPUBK_r5Tg2Hn8Vb1Yc6Ke:SBSECK_Jd82kLq0Zm4Xw7Pc').toString('base64')}`;
    const refused = await api.send('POST', '/payments/cancel', { publicKey: merchant.publicKey, paymentReference: reference }, live);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('Confirm Merchant Environment');
  });

  it('refuses Basic credentials on an operation that takes only a bearer token (401)', async () => {
    const response = await api.send('POST', '/payments/initiates', accountPayment({ publicKey: merchant.publicKey }), merchant.basic);
    expect(response.status).toBe(401);
  });
});
