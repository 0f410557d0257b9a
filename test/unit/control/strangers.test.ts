import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { PaymentsApi, send, type Origin } from '../../campaign/support/api.js';
import { storedState, type StoredState } from '../../campaign/support/control-state.js';
import type { RawAnswer, RawRequest } from '../../campaign/support/raw-http.js';
import { handleRaw } from '../../campaign/support/raw-in-process.js';
import { fetchOf } from '../../support/in-process.js';
import { accountPayment, cardPayment, checkoutLink, sandboxForTest } from '../../support/sandbox.js';

/**
 * The control API as a web page in the developer's browser, or a stranger,
 * would try it: a cross-site form post, a name of their own in Host (DNS
 * rebinding), a query parameter spelt wrong, an override that makes no
 * sense. Each must be refused, and must change nothing: no payment, order
 * or merchant forgotten or made, no override set. Each request is sent as
 * its header lines and bytes through `sandbox.handle()`; what node's parser
 * makes of hostile bytes is the fuzz's (test/campaign/fuzz.test.ts).
 */

let sandbox: Sandbox;
/** The sandbox served in process, where the campaign's client sends its requests. */
let served: Origin;
let api: PaymentsApi;
/** The pages of a pending card payment and of a checkout link, which a customer's browser opens. */
let pages: { authenticate: string; checkout: string };

/** Merchants, payments, orders and overrides: everything a refused request must leave alone. */
async function everything(): Promise<{ state: StoredState; overrides: unknown }> {
  const overrides = await send(served, 'GET', '/__sandbox/overrides');
  return { state: await storedState(served), overrides: overrides.body };
}

/**
 * Sends `request` and expects a refusal (4xx; from the APIs a JSON
 * `{message, error}`, from a customer page any body) that changed nothing.
 */
async function expectRefusedAndNothingChanged(request: RawRequest, options: { page?: boolean } = {}): Promise<RawAnswer> {
  const before = await everything();
  const answer = await handleRaw(sandbox, request);
  const seen = `${request.method} ${request.target} answered ${answer.status} ${answer.text.slice(0, 300)}`;
  expect(answer.status, seen).toBeGreaterThanOrEqual(400);
  expect(answer.status, seen).toBeLessThan(500);
  if (!options.page) expect(answer.json, seen).toMatchObject({ message: expect.any(String), error: expect.any(String) });
  expect(await everything(), `state after ${seen}`).toEqual(before);
  return answer;
}

beforeAll(async () => {
  sandbox = await sandboxForTest();
  served = fetchOf(sandbox);
});

afterAll(async () => {
  await sandbox?.close();
});

beforeEach(async () => {
  // Something to lose: a merchant with pending payments and a checkout link.
  await send(served, 'DELETE', '/__sandbox/overrides');
  api = await PaymentsApi.as(served);
  expect((await api.initiate(accountPayment())).body?.data?.code).toBe('20');
  const card = await api.initiate(cardPayment());
  expect(card.body?.data?.code).toBe('S20');
  const link = await api.call('POST', '/payments', checkoutLink());
  expect(link.body?.data?.code).toBe('00');
  pages = { authenticate: new URL(card.body.data.payments.redirectUrl).pathname, checkout: new URL(link.body.data.payments.redirectLink).pathname };
});

describe('a web page posting to the control API', () => {
  const evil = 'http://evil.example';

  it.each([
    ['a form post', 'application/x-www-form-urlencoded', 'confirm=yes'],
    ['an empty form post', 'application/x-www-form-urlencoded', ''],
    ['a text/plain post', 'text/plain', '{"publicKey":"x"}'],
    ['a multipart post', 'multipart/form-data; boundary=b', '--b\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--b--\r\n'],
  ])('%s (%s) to /__sandbox/reset from http://evil.example is refused and resets nothing', async (_what, type, body) => {
    await expectRefusedAndNothingChanged({ method: 'POST', target: '/__sandbox/reset', headers: [['Origin', evil], ['Content-Type', type]], body });
  });

  it.each([
    ['Origin: http://evil.example', [['Origin', evil]]],
    ['Origin: null (a sandboxed frame)', [['Origin', 'null']]],
    ['a form Content-Type and no Origin', [['Content-Type', 'application/x-www-form-urlencoded']]],
  ] as Array<[string, Array<[string, string]>]>)('each state-changing control request with %s is refused and changes nothing', async (_what, headers) => {
    const reference = String((await api.payments())[0]!.paymentReference);
    const bodyless = headers.some(([name]) => name === 'Content-Type') ? 'x=1' : undefined;
    for (const [method, target, body] of [
      ['POST', '/__sandbox/reset', bodyless],
      ['POST', `/__sandbox/reset?publicKey=${api.merchant.publicKey}`, bodyless],
      ['POST', '/__sandbox/overrides', JSON.stringify({ fault: 'hang' })],
      ['DELETE', '/__sandbox/overrides', bodyless],
      ['DELETE', '/__sandbox/requests', bodyless],
      ['POST', `/__sandbox/payments/${encodeURIComponent(reference)}/complete?publicKey=${api.merchant.publicKey}`, JSON.stringify({ outcome: 'failure' })],
    ] as Array<[string, string, string | undefined]>) {
      const type = headers.find(([name]) => name === 'Content-Type') ? [] : body === undefined ? [] : [['Content-Type', 'application/json'] as [string, string]];
      await expectRefusedAndNothingChanged({ method, target, headers: [...headers, ...type], body });
    }
  });

  it('the same requests from no page (no Origin, JSON or no body) still work, so the guard is not a wall', async () => {
    const created = await send(served, 'POST', '/__sandbox/overrides', { body: { scenario: 'card-declined', publicKey: api.merchant.publicKey, times: 1 } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const reset = await send(served, 'POST', `/__sandbox/reset?publicKey=${api.merchant.publicKey}`);
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    expect(await api.payments()).toEqual([]);
  });
});

describe('a Host the sandbox was not started for (DNS rebinding)', () => {
  const host: Array<[string, string]> = [['Host', 'evil.example']];

  it('the Payments API refuses it, and creates nothing', async () => {
    const body = JSON.stringify({ publicKey: api.merchant.publicKey, ...accountPayment() });
    await expectRefusedAndNothingChanged({ method: 'POST', target: '/api/v2/payments/initiates', headers: [...host, ['Content-Type', 'application/json'], ['Authorization', api.merchant.bearer]], body });
    await expectRefusedAndNothingChanged({ method: 'GET', target: `/api/v2/products/orders/publicKey/${api.merchant.publicKey}`, headers: [...host, ['Authorization', api.merchant.bearer]] });
    await expectRefusedAndNothingChanged({ method: 'POST', target: '/api/v2/encrypt/keys', headers: [...host, ['Content-Type', 'application/json']], body: JSON.stringify({ key: 'SBTESTSECK_evilevil0001.SBTESTPUBK_evilevil0001' }) });
  });

  it('the customer pages refuse it, and settle nothing', async () => {
    for (const page of [pages.authenticate, pages.checkout]) {
      // The page is there for the sandbox's own name: the refusal below is the Host's doing.
      expect((await handleRaw(sandbox, { method: 'GET', target: page })).status, page).toBe(200);
      const answer = await expectRefusedAndNothingChanged({ method: 'GET', target: page, headers: host }, { page: true });
      expect(answer.text).not.toContain(api.merchant.publicKey);
    }
    await expectRefusedAndNothingChanged(
      { method: 'POST', target: pages.authenticate, headers: [...host, ['Content-Type', 'application/x-www-form-urlencoded']], body: 'otp=123456' },
      { page: true },
    );
  });

  it('the control API and the dashboard refuse it, reading and changing nothing', async () => {
    for (const target of ['/__sandbox/payments', '/__sandbox/merchants', '/__sandbox/requests', '/__sandbox/orders', '/__sandbox/', '/__sandbox']) {
      const answer = await expectRefusedAndNothingChanged({ method: 'GET', target, headers: host });
      expect(answer.text).not.toContain(api.merchant.publicKey);
    }
    await expectRefusedAndNothingChanged({ method: 'POST', target: '/__sandbox/reset', headers: host });
    await expectRefusedAndNothingChanged({ method: 'POST', target: '/__sandbox/overrides', headers: [...host, ['Content-Type', 'application/json']], body: JSON.stringify({ fault: 'hang' }) });
  });

  it('loopback names are answered, with or without a port', async () => {
    const port = new URL(sandbox.url).port;
    for (const name of ['127.0.0.1', `127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      const answer = await handleRaw(sandbox, { method: 'GET', target: '/__sandbox/health', headers: [['Host', name]] });
      expect({ name, status: answer.status }).toEqual({ name, status: 200 });
    }
  });
});

describe('control requests that do not say what the document says', () => {
  it('POST /__sandbox/reset?publickey=X (mis-cased) is refused with 400 and resets nothing', async () => {
    const answer = await expectRefusedAndNothingChanged({ method: 'POST', target: `/__sandbox/reset?publickey=${api.merchant.publicKey}` });
    expect(answer.status).toBe(400);
  });

  it.each(['merchant', 'public_key', 'PublicKey', 'publicKey[]'])('POST /__sandbox/reset?%s=X is refused with 400 and resets nothing', async (name) => {
    const answer = await expectRefusedAndNothingChanged({ method: 'POST', target: `/__sandbox/reset?${encodeURIComponent(name)}=${api.merchant.publicKey}` });
    expect(answer.status).toBe(400);
  });

  it('POST /__sandbox/reset?publicKey=A&publicKey=B (the parameter twice) is refused with 400 and resets nothing', async () => {
    const answer = await expectRefusedAndNothingChanged({ method: 'POST', target: `/__sandbox/reset?publicKey=${api.merchant.publicKey}&publicKey=SBTESTPUBK_other0000000001` });
    expect(answer.status).toBe(400);
  });

  it.each([
    ['a delay whose minMs is above its maxMs', { delay: { minMs: 500, maxMs: 100 } }],
    ['a negative delay', { delay: { ms: -5 } }],
    ['a delay of a day', { delay: { ms: 86_400_000 } }],
    ['times 0', { scenario: 'card-declined', times: 0 }],
    ['an unknown fault', { fault: 'explode' }],
  ])('an override with %s is refused with 400 and sets nothing', async (_what, body) => {
    const answer = await expectRefusedAndNothingChanged({ method: 'POST', target: '/__sandbox/overrides', headers: [['Content-Type', 'application/json']], body: JSON.stringify(body) });
    expect(answer.status).toBe(400);
  });
});
