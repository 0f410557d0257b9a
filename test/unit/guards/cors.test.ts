import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { accountPayment, ApiClient, sandboxForTest, type TestMerchant } from '../../support/sandbox.js';
import { fetchOf } from '../../support/in-process.js';

/** `--cors`: a merchant's browser code may call the Payments API from its own origin; off by default. */

const ORIGIN = 'http://shop.test:3000';

const preflight = (sandbox: Sandbox) =>
  fetchOf(sandbox)(`${sandbox.apiBase}/payments/initiates`, {
    method: 'OPTIONS',
    headers: { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
  });

describe('a sandbox started with cors', () => {
  let sandbox: Sandbox;
  let api: ApiClient;
  let merchant: TestMerchant;
  beforeAll(async () => {
    sandbox = await sandboxForTest({ cors: true });
    api = await ApiClient.for(sandbox);
    merchant = await api.merchant();
  });
  afterAll(() => sandbox.close());

  it('answers a preflight for the Payments API, allowing the origin, the method and the headers', async () => {
    const answered = await preflight(sandbox);
    expect(answered.status).toBe(204);
    expect(answered.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(answered.headers.get('access-control-allow-methods')).toContain('POST');
    expect(answered.headers.get('access-control-allow-headers')).toBe('authorization,content-type');
  });

  it('lets the browser read the answer and the sandbox headers, and journals the request, not the preflight', async () => {
    const before = sandbox.journal.count;
    const answered = await fetchOf(sandbox)(`${sandbox.apiBase}/payments/initiates`, {
      method: 'POST',
      headers: { origin: ORIGIN, authorization: `Bearer ${merchant.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(accountPayment({ publicKey: merchant.publicKey })),
    });
    expect(answered.status).toBe(200);
    expect(answered.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(answered.headers.get('access-control-expose-headers')).toContain('X-Sandbox-Scenario');
    await preflight(sandbox);
    expect(sandbox.journal.count).toBe(before + 1);
  });

  it('keeps the control API same-origin', async () => {
    const answered = await fetchOf(sandbox)(`${sandbox.url}/__sandbox/payments`, { headers: { origin: ORIGIN } });
    expect(answered.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('a sandbox started without cors', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await sandboxForTest();
  });
  afterAll(() => sandbox.close());

  it('sets no CORS header, and a preflight is an OPTIONS the API does not take', async () => {
    const answered = await preflight(sandbox);
    expect(answered.status).toBe(405);
    expect(answered.headers.get('access-control-allow-origin')).toBeNull();
  });
});
