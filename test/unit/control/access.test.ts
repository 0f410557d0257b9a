import { inProcess, type InProcessResponse } from '../../support/in-process.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { documented as withResponses, operationId, responseViolations } from '../../../src/validation/operations.js';
import { ControlClient } from '../../support/control.js';
import { accountPayment, ApiClient, sandboxForTest, type TestMerchant } from '../../support/sandbox.js';

/**
 * Who may drive the sandbox: only requests for a Host it was started for
 * (against DNS rebinding), state-changing control requests only as JSON and
 * from no other origin (against a web page's forms and scripts), and, with a
 * control token, only those that carry it. Every control answer here is
 * checked against openapi/control-api.yaml.
 */

let sandbox: Sandbox;
let api: ApiClient;
let control: ControlClient;
let merchant: TestMerchant;

beforeAll(async () => {
  sandbox = await sandboxForTest({ publicUrl: 'http://sandbox.test:4010', allowedHosts: ['payments.internal'], tlsHosts: ['seerbitapi.com'] });
  api = await ApiClient.for(sandbox);
  control = await ControlClient.for(sandbox);
  merchant = await api.merchant();
  await api.as(merchant, 'POST', '/payments/initiates', accountPayment());
});
afterAll(() => sandbox.close());

/** Checks a control answer got by hand against the document, as the control client does. */
function documented(response: InProcessResponse, method: string, path: string): InProcessResponse {
  const operation = control.operationOf(method, path);
  const what = `${method} /__sandbox${path} answered ${response.status} ${response.text}`;
  expect(operation, what).toBeDefined();
  expect(withResponses(operation!).responses.map((candidate) => candidate.code), `${operationId(operation!)} documents ${response.status}`).toContain(String(response.status));
  const body = response.text === '' ? undefined : JSON.parse(response.text);
  expect(responseViolations(operation!, { status: response.status, headers: { 'content-type': response.headers['content-type'] ?? '' }, body }), what).toEqual([]);
  return response;
}

const paymentsOf = async (publicKey: string) => (await control.payments(publicKey)).body.payments as unknown[];
const paymentCount = async (publicKey: string) => (await paymentsOf(publicKey)).length;

describe('X-Content-Type-Options: nosniff', () => {
  it('is on every answer: Payments API, errors, pages, static files, the dashboard, the control API, refusals', async () => {
    const answers = await Promise.all([
      inProcess(sandbox).post('/api/v2/encrypt/keys').send({ key: `${merchant.secretKey}.${merchant.publicKey}` }),
      inProcess(sandbox).get('/api/v2/no/such/thing'),
      inProcess(sandbox).get('/nowhere'),
      inProcess(sandbox).get('/pages/checkout/SBLNK_00000000000000000000'),
      inProcess(sandbox).get('/pages/assets/style.css'),
      inProcess(sandbox).get('/pages/assets/no-such-file.css'),
      inProcess(sandbox).get('/__sandbox/dashboard/'),
      inProcess(sandbox).get('/__sandbox/health'),
      inProcess(sandbox).get('/__sandbox/no-such-thing'),
      inProcess(sandbox).post('/__sandbox/overrides').type('form').send('scenario=card-declined'),
      inProcess(sandbox).get('/__sandbox/health').set('Host', 'evil.example'),
      inProcess(sandbox).get('/__sandbox/docs'),
      inProcess(sandbox).get('/__sandbox/docs/swagger-ui.css'),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 404, 404, 404, 200, 404, 200, 200, 404, 415, 403, 200, 200]);
    for (const [index, answer] of answers.entries()) expect(answer.headers['x-content-type-options'], `answer ${index}`).toBe('nosniff');
  });
});

describe('the Host header', () => {
  it('refuses a host it was not started for on the Payments API, the pages and the control API, with 403 in their error shape', async () => {
    const stored = await paymentCount(merchant.publicKey);
    const refused = await inProcess(sandbox).post('/api/v2/payments/initiates').set('Host', 'evil.example').set('Authorization', `Bearer ${merchant.token}`).send(accountPayment({ publicKey: merchant.publicKey }));
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: expect.stringContaining('evil.example'), error: 'PERMISSION' });
    expect(refused.headers['x-sandbox-scenario']).toBe('host-not-allowed');

    const page = await inProcess(sandbox).get('/pages/checkout/SBLNK_00000000000000000000').set('Host', 'evil.example:4010');
    expect(page.status).toBe(403);
    expect(page.body).toEqual({ message: expect.any(String), error: 'PERMISSION' });

    const dashboard = await inProcess(sandbox).get('/__sandbox/dashboard/').set('Host', 'evil.example');
    expect(dashboard.status).toBe(403);
    expect(dashboard.text).not.toContain('<html');

    for (const [method, path] of [['GET', '/health'], ['GET', '/payments'], ['POST', '/reset']] as const) {
      const answer = documented(await inProcess(sandbox)[method === 'GET' ? 'get' : 'post'](`/__sandbox${path}`).set('Host', 'evil.example'), method, path);
      expect(answer.status).toBe(403);
      expect(answer.body.error).toBe('FORBIDDEN');
    }
    expect(await paymentCount(merchant.publicKey)).toBe(stored);
  });

  // An empty Host, and a request without any, are what only a socket can send: test/http/host.test.ts.
  it('refuses names that only look like an allowed one', async () => {
    for (const host of ['localhost.evil.example', '127.0.0.1.evil.example', 'evil.example:80', 'sandbox.test.evil.example', 'seerbitapi.com:x', '[::2]:4010']) {
      expect((await inProcess(sandbox).get('/__sandbox/health').set('Host', host)).status, host).toBe(403);
    }
  });

  it('accepts the loopback names, the public URL\'s host, --allowed-host and --tls-host names, with any port and in any case', async () => {
    const port = new URL(sandbox.url).port;
    for (const host of ['localhost', `localhost:${port}`, `127.0.0.1:${port}`, '[::1]', `[::1]:${port}`, 'LocalHost:80', 'sandbox.test', 'sandbox.test:4010', 'payments.internal:8080', 'seerbitapi.com', 'seerbitapi.com.']) {
      const answer = await inProcess(sandbox).get('/__sandbox/health').set('Host', host);
      expect(answer.status, host).toBe(200);
    }
    const viaTlsName = await inProcess(sandbox).post('/api/v2/payments/initiates').set('Host', 'seerbitapi.com').set('Authorization', `Bearer ${merchant.token}`).send(accountPayment({ publicKey: merchant.publicKey }));
    expect(viaTlsName.body.data.code).toBe('20');
  });

  it('takes container names with underscores, and refuses to start with a name that is no host name', async () => {
    const named = await sandboxForTest({ allowedHosts: ['ci_sandbox_1'], publicUrl: 'http://payments_sandbox:4010' });
    try {
      for (const host of ['ci_sandbox_1:4010', 'payments_sandbox:4010']) expect((await inProcess(named).get('/__sandbox/health').set('Host', host)).status, host).toBe(200);
    } finally {
      await named.close();
    }
    await expect(sandboxForTest({ allowedHosts: ['not a host'] })).rejects.toThrow(/not a host name/);
  });

  // The address it listens on, when that is not every interface: test/http/host.test.ts.
});

describe('state-changing control requests from a web page', () => {
  const origin = 'http://localhost:4010';
  const post = (path: string) => inProcess(sandbox).post(`/__sandbox${path}`).set('Host', 'localhost:4010');

  it('refuses an HTML form post, whatever its encoding, with 415, and changes nothing', async () => {
    const stored = await paymentCount(merchant.publicKey);
    const attempts = [
      post('/overrides').type('form').send('scenario=transaction-failed'),
      post('/overrides').set('Content-Type', 'text/plain').send('{"scenario":"transaction-failed"}'),
      post('/overrides').field('scenario', 'transaction-failed'),
    ];
    for (const answer of await Promise.all(attempts)) {
      documented(answer, 'POST', '/overrides');
      expect(answer.status).toBe(415);
      expect(answer.body.error).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
    const reset = documented(await post('/reset').type('form').send(''), 'POST', '/reset');
    expect(reset.status).toBe(415);
    expect((await control.overrides()).body.overrides).toEqual([]);
    expect(await paymentCount(merchant.publicKey)).toBe(stored);
  });

  it('refuses an Origin other than its own with 403, even as JSON, and changes nothing', async () => {
    const stored = await paymentCount(merchant.publicKey);
    for (const from of ['https://evil.example', 'http://localhost:4011', 'http://127.0.0.1:4010', 'null']) {
      const answer = documented(await post('/overrides').set('Origin', from).send({ scenario: 'transaction-failed' }), 'POST', '/overrides');
      expect(answer.status, from).toBe(403);
      expect(answer.body.error).toBe('FORBIDDEN');
    }
    const reset = documented(await post('/reset').set('Origin', 'https://evil.example'), 'POST', '/reset');
    expect(reset.status).toBe(403);
    const deleted = documented(await inProcess(sandbox).delete('/__sandbox/requests').set('Origin', 'https://evil.example'), 'DELETE', '/requests');
    expect(deleted.status).toBe(403);
    expect((await control.overrides()).body.overrides).toEqual([]);
    expect(await paymentCount(merchant.publicKey)).toBe(stored);
    expect((await control.requests({ publicKey: merchant.publicKey })).body.count).toBeGreaterThan(0);
  });

  it('takes JSON from its own origin, from no origin, and a bodiless POST without Content-Type', async () => {
    const same = documented(await post('/overrides').set('Origin', origin).send({ delay: { ms: 0 } }), 'POST', '/overrides');
    expect(same.status).toBe(201);
    const none = documented(await post('/overrides').send({ delay: { ms: 0 }, publicKey: merchant.publicKey }), 'POST', '/overrides');
    expect(none.status).toBe(201);
    const bare = documented(await inProcess(sandbox).delete('/__sandbox/overrides'), 'DELETE', '/overrides');
    expect(bare.status).toBe(204);
    expect((await control.overrides()).body.overrides).toEqual([]);
  });
});

describe('query parameters and rules the document states', () => {
  it('refuses a mis-cased ?publickey= on reset with 400 naming it, and resets no one', async () => {
    const other = await api.merchant();
    await api.as(other, 'POST', '/payments/initiates', accountPayment());
    const stored = await paymentCount(merchant.publicKey);
    expect(stored).toBeGreaterThan(0);
    const reset = await control.send('POST', '/reset', { query: { publickey: merchant.publicKey } });
    expect(reset.status).toBe(400);
    expect(reset.body.error).toBe('INPUT');
    expect(reset.body.message).toContain('publickey');
    expect(reset.body.message).toContain('publicKey');
    expect(await paymentCount(merchant.publicKey)).toBe(stored);
    expect(await paymentCount(other.publicKey)).toBe(1);
  });

  it('refuses unknown query parameters on reads and deletes too, naming every one', async () => {
    const listed = await control.send('GET', '/requests', { query: { publicKey: merchant.publicKey, limit: 5, since: 'yesterday', order: 'asc' } });
    expect(listed.status).toBe(400);
    expect(listed.body.message).toMatch(/since, order|order, since/);
    const overrides = await control.send('GET', '/overrides', { query: { publickey: merchant.publicKey } });
    expect(overrides.status).toBe(400);
    const cleared = await control.send('DELETE', '/requests', { query: { merchant: merchant.publicKey } });
    expect(cleared.status).toBe(400);
    expect((await control.requests({ publicKey: merchant.publicKey })).body.count).toBeGreaterThan(0);
    expect((await control.send('GET', '/health', { query: { verbose: 1 } })).status).toBe(400);
  });

  it('refuses a delay whose minMs exceeds its maxMs with 400 naming the field, and creates nothing', async () => {
    const reversed = await control.createOverride({ delay: { minMs: 500, maxMs: 100 } });
    expect(reversed.status).toBe(400);
    expect(reversed.body).toEqual({ message: 'delay.minMs must not exceed delay.maxMs (500 > 100)', error: 'INPUT' });
    expect((await control.overrides()).body.overrides).toEqual([]);
    const even = await control.createOverride({ delay: { minMs: 100, maxMs: 100 } });
    expect(even.status).toBe(201);
    expect((await control.deleteOverride(even.body.id)).status).toBe(204);
  });
});

describe('a sandbox started with a control token', () => {
  const TOKEN = 'ctl-4f9a2c7e1b';
  let shared: Sandbox;
  let sharedApi: ApiClient;

  beforeAll(async () => {
    shared = await sandboxForTest({ controlToken: TOKEN });
    sharedApi = await ApiClient.for(shared);
  });
  afterAll(() => shared.close());

  const get = (path: string) => inProcess(shared).get(`/__sandbox${path}`);

  it('answers the health check without it, and the dashboard page, which asks for it', async () => {
    expect((await get('/health')).status).toBe(200);
    const page = await get('/dashboard/');
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<input id="control-token" type="password"/);
  });

  it('answers the API reference page without it, which reads the documents that need none (documents.test.ts)', async () => {
    const reference = await get('/docs');
    expect(reference.status).toBe(200);
    expect(reference.text).toContain('<script src="/__sandbox/docs/swagger-ui-bundle.js" defer></script>');
  });

  it('answers every other control request 401 without it or with another, with a Bearer challenge', async () => {
    for (const authorization of [undefined, 'Bearer nope', `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}`, TOKEN]) {
      for (const path of ['/ready', '/overrides', '/requests']) {
        let call = get(path);
        if (authorization) call = call.set('Authorization', authorization);
        const answer = documented(await call, 'GET', path);
        expect(answer.status, `${authorization} ${path}`).toBe(401);
        expect(answer.body.error).toBe('UNAUTHORIZED');
        expect(answer.headers['www-authenticate']).toMatch(/^Bearer /);
      }
    }
    expect((await get('/no-such-thing')).status).toBe(401);
  });

  it('takes requests with it; without it a reset changes nothing', async () => {
    const merchantOfShared = await sharedApi.merchant();
    await sharedApi.as(merchantOfShared, 'POST', '/payments/initiates', accountPayment());
    const refused = documented(await inProcess(shared).post('/__sandbox/reset'), 'POST', '/reset');
    expect(refused.status).toBe(401);
    const listed = documented(await get('/payments').set('Authorization', `Bearer ${TOKEN}`), 'GET', '/payments');
    expect(listed.status).toBe(200);
    expect(listed.body.payments).toHaveLength(1);
    const reset = documented(await inProcess(shared).post('/__sandbox/reset').set('Authorization', `bearer ${TOKEN}`), 'POST', '/reset');
    expect(reset.status).toBe(200);
    expect((await get('/payments').set('Authorization', `Bearer ${TOKEN}`)).body.payments).toEqual([]);
  });
});
