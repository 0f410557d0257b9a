import { randomBytes } from 'node:crypto';
import { inProcess } from '../../support/in-process.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { documented } from '../../../src/validation/operations.js';
import { accountPayment, ApiClient, sandboxForTest, sandboxWithMerchant, type TestMerchant } from '../../support/sandbox.js';

/**
 * The Payments API refuses what a web page sends uninvited, as the control
 * API does: a state-changing request from a page of another site (its
 * `Origin`, or `Sec-Fetch-Site: cross-site`) answers 403, and a body not
 * declared JSON answers 415, both in the spec's error body, before anything
 * is read or stored. Clients that send no Origin (the SDKs, curl, servers)
 * are served as before; `--cors` lets pages of any origin call it with JSON.
 */

const EVIL = 'http://evil.example';

/** A fresh test key pair, never seen by the sandbox. */
function freshPair(): { publicKey: string; secretKey: string } {
  return { publicKey: `SBTESTPUBK_${randomBytes(8).toString('hex')}`, secretKey: `SBTESTSECK_${randomBytes(8).toString('hex')}` };
}

/** The status of a POST of `body` to `path` with a length and no Content-Type. */
async function statusOfUntyped(sandbox: Sandbox, path: string, body: string, authorization: string): Promise<number> {
  return (await sandbox.handle({ method: 'POST', url: path, headers: { Authorization: authorization, 'Content-Length': String(Buffer.byteLength(body)) }, body })).status;
}

describe('a sandbox started without --cors', () => {
  let sandbox: Sandbox;
  let api: ApiClient;
  let merchant: TestMerchant;
  /** The Host supertest sends: the sandbox's own origin is http://<host>. */
  let own: string;

  beforeAll(async () => {
    ({ sandbox, api, merchant } = await sandboxWithMerchant());
    own = sandbox.url;
  });
  afterAll(() => sandbox.close());

  const paymentsOf = (publicKey: string) => sandbox.store.payments(publicKey).length;

  it('refuses the key exchange of a page of another site with 403 PERMISSION, storing no merchant, and serves the sandbox\'s own pages', async () => {
    const pair = freshPair();
    const refused = await inProcess(sandbox).post('/api/v2/encrypt/keys').set('Origin', EVIL).send({ key: `${pair.secretKey}.${pair.publicKey}` });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: expect.stringContaining(EVIL), error: 'PERMISSION' });
    expect(refused.headers['x-sandbox-scenario']).toBe('origin-not-allowed');
    expect(refused.headers['content-type']).toMatch(/^application\/json/);
    expect(sandbox.store.merchant(pair.publicKey)).toBeUndefined();
    // A page of the sandbox itself, and requests a browser makes for one, are served.
    const sameOrigin = await inProcess(sandbox).post('/api/v2/encrypt/keys').set('Origin', own).set('Sec-Fetch-Site', 'same-origin').send({ key: `${merchant.secretKey}.${merchant.publicKey}` });
    expect(sameOrigin.status, JSON.stringify(sameOrigin.body)).toBe(200);
    for (const site of ['same-site', 'none']) {
      const answered = await inProcess(sandbox).post('/api/v2/encrypt/keys').set('Sec-Fetch-Site', site).send({ key: `${merchant.secretKey}.${merchant.publicKey}` });
      expect(answered.status, site).toBe(200);
    }
  });

  it('refuses every state-changing request of another site, with the merchant\'s own token too, and stores nothing; reads are answered', async () => {
    const before = paymentsOf(merchant.publicKey);
    for (const origin of [EVIL, 'null', 'http://localhost:1', 'https://127.0.0.1']) {
      const refused = await inProcess(sandbox)
        .post('/api/v2/payments/initiates')
        .set('Origin', origin)
        .set('Authorization', `Bearer ${merchant.token}`)
        .send(accountPayment({ publicKey: merchant.publicKey }));
      expect(refused.status, origin).toBe(403);
      expect(refused.body.error, origin).toBe('PERMISSION');
    }
    const put = await inProcess(sandbox).put('/api/v2/products/orders').set('Origin', EVIL).set('Authorization', `Bearer ${merchant.token}`).send({ publicKey: merchant.publicKey });
    expect(put.status).toBe(403);
    expect(paymentsOf(merchant.publicKey)).toBe(before);
    // Reading changes nothing: a GET is answered, and a page cannot read the answer without --cors.
    const read = await inProcess(sandbox).get('/api/v2/payments/query/NO-SUCH-REF').set('Origin', EVIL).set('Authorization', `Bearer ${merchant.token}`);
    expect(read.status).toBe(500);
    expect(read.body).toEqual({ message: 'No transaction found', error: 'PROCESSING' });
    expect(read.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('refuses a request its browser calls cross-site (Sec-Fetch-Site), whatever its Origin', async () => {
    const pair = freshPair();
    const refused = await inProcess(sandbox).post('/api/v2/encrypt/keys').set('Sec-Fetch-Site', 'cross-site').send({ key: `${pair.secretKey}.${pair.publicKey}` });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('PERMISSION');
    expect(sandbox.store.merchant(pair.publicKey)).toBeUndefined();
  });

  it('refuses a body not declared JSON with 415 in the spec\'s error body, storing nothing, from no page too; every JSON type is read', async () => {
    const before = paymentsOf(merchant.publicKey);
    const body = JSON.stringify(accountPayment({ publicKey: merchant.publicKey }));
    for (const type of ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/octet-stream', 'application/jsonp']) {
      const refused = await inProcess(sandbox).post('/api/v2/payments/initiates').set('Authorization', `Bearer ${merchant.token}`).set('Content-Type', type).send(body);
      expect(refused.status, type).toBe(415);
      expect(refused.body, type).toEqual({ message: 'Unsupported Media Type', error: expect.stringContaining(type) });
      expect(refused.headers['x-sandbox-scenario'], type).toBe('unsupported-media-type');
    }
    // A body with no Content-Type at all, as node's http.request sends it unless told.
    expect(await statusOfUntyped(sandbox, '/api/v2/payments/initiates', body, `Bearer ${merchant.token}`)).toBe(415);
    expect(paymentsOf(merchant.publicKey)).toBe(before);
    // Every way of declaring JSON is JSON.
    for (const type of ['application/json; charset=utf-8', 'Application/JSON', 'APPLICATION/JSON;CHARSET=UTF-8', 'application/vnd.api+json']) {
      const answered = await inProcess(sandbox)
        .post('/api/v2/payments/initiates')
        .set('Authorization', `Bearer ${merchant.token}`)
        .set('Content-Type', type)
        .send(JSON.stringify(accountPayment({ publicKey: merchant.publicKey })));
      expect(answered.status, `${type}: ${answered.text}`).toBe(200);
      expect(answered.body.data.code, type).toBe('20');
    }
    // A POST with neither body nor Content-Type is read as before, and a GET's body is ignored with its type.
    const empty = await api.send('POST', '/encrypt/keys');
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({ message: 'key is required', error: 'INPUT' });
    const get = await inProcess(sandbox)
      .get(`/api/v2/products/orders/publicKey/${merchant.publicKey}`)
      .set('Authorization', `Bearer ${merchant.token}`)
      .set('Content-Type', 'text/plain')
      .send('{"publicKey":"x"}');
    expect(get.status).toBe(404);
    expect(get.body).toEqual({ message: 'Orders Not Found', error: 'NOT_FOUND' });
  });

  it('answers each refusal as the document lists it: 403, 415 and 413 are documented, and the answers match their schema and examples', async () => {
    const operation = documented(api.operationOf('POST', '/payments/initiates')!);
    expect(operation.responses.map((response) => response.code)).toEqual(expect.arrayContaining(['403', '413', '415']));
    const example = (code: string, name: string) => operation.responses.find((response) => response.code === code)!.contents![0]!.examples!.find((candidate) => candidate.key === name)!;
    const bearer = `Bearer ${merchant.token}`;
    const payment = accountPayment({ publicKey: merchant.publicKey });
    // api.send checks every answer against openapi/payments-api.yaml.
    const foreign = await api.send('POST', '/payments/initiates', payment, bearer, undefined, { headers: { Origin: 'https://shop.example' } });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toEqual((example('403', 'foreignOrigin') as { value: unknown }).value);
    const plain = await api.send('POST', '/payments/initiates', JSON.stringify(payment), bearer, undefined, { headers: { 'Content-Type': 'text/plain' } });
    expect(plain.status).toBe(415);
    expect(plain.body).toEqual((example('415', 'textPlain') as { value: unknown }).value);
    const large = await api.send('POST', '/payments/initiates', undefined, bearer, JSON.stringify({ ...payment, productDescription: 'x'.repeat(1_100_000) }));
    expect(large.status).toBe(413);
    expect(large.body).toEqual((example('413', 'payloadTooLarge') as { value: unknown }).value);
  });

  it('refuses the attack of a page in the browser (no-cors text/plain key exchange with a forged secret); the real pair keeps working', async () => {
    const victim = freshPair();
    const forged = `SBTESTSECK_${randomBytes(8).toString('hex')}`;
    const attack = await inProcess(sandbox)
      .post('/api/v2/encrypt/keys')
      .set('Origin', EVIL)
      .set('Sec-Fetch-Site', 'cross-site')
      .set('Content-Type', 'text/plain;charset=UTF-8')
      .send(`{"key":"${forged}.${victim.publicKey}"}`);
    expect(attack.status).toBe(403);
    // The same request from a tool that sends no Origin is still no JSON.
    const untyped = await inProcess(sandbox).post('/api/v2/encrypt/keys').set('Content-Type', 'text/plain').send(`{"key":"${forged}.${victim.publicKey}"}`);
    expect(untyped.status).toBe(415);
    expect(sandbox.store.merchant(victim.publicKey)).toBeUndefined();
    const real = await api.send('POST', '/encrypt/keys', { key: `${victim.secretKey}.${victim.publicKey}` });
    expect(real.status).toBe(200);
    expect(sandbox.store.merchant(victim.publicKey)?.secretKey).toBe(victim.secretKey);
    // The SDK's requests (no Origin, application/json and its own headers) are served as before.
    const sdk = await inProcess(sandbox)
      .post('/api/v2/payments/initiates')
      .set('Authorization', `Bearer ${real.body.data.EncryptedSecKey.encryptedKey}`)
      .set('Content-Type', 'application/json')
      .set('Cache-Control', 'no-cache')
      .set('Accept-Charset', 'utf-8')
      .send(JSON.stringify(accountPayment({ publicKey: victim.publicKey })));
    expect(sdk.status).toBe(200);
    expect(sdk.body.data.code).toBe('20');
  });
});

describe('a sandbox started with --cors', () => {
  let sandbox: Sandbox;
  let merchant: TestMerchant;

  beforeAll(async () => {
    sandbox = await sandboxForTest({ cors: true });
    merchant = await (await ApiClient.for(sandbox)).merchant();
  });
  afterAll(() => sandbox.close());

  it('refuses a body that is not JSON, which a page sends without a preflight, and serves JSON from any origin', async () => {
    const pair = freshPair();
    const refused = await inProcess(sandbox).post('/api/v2/encrypt/keys').set('Origin', EVIL).set('Content-Type', 'text/plain').send(`{"key":"${pair.secretKey}.${pair.publicKey}"}`);
    expect(refused.status).toBe(415);
    expect(refused.headers['access-control-allow-origin']).toBe(EVIL);
    expect(sandbox.store.merchant(pair.publicKey)).toBeUndefined();
    // JSON from a page of any origin, cross-site included, is served.
    const answered = await inProcess(sandbox)
      .post('/api/v2/payments/initiates')
      .set('Origin', EVIL)
      .set('Sec-Fetch-Site', 'cross-site')
      .set('Authorization', `Bearer ${merchant.token}`)
      .send(accountPayment({ publicKey: merchant.publicKey }));
    expect(answered.status, answered.text).toBe(200);
    expect(answered.headers['access-control-allow-origin']).toBe(EVIL);
  });
});
