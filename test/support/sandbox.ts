import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { expect } from 'vitest';
import { paymentsOperations, startSandbox, type Sandbox, type SandboxOptions } from '../../src/index.js';
import { operationId, responseViolations, type HttpOperation } from '../../src/validation/operations.js';
import { inProcess } from './in-process.js';

/**
 * Test harness: a sandbox served in process (no socket, so a test of it runs
 * in the unit project), or on a loopback port for what only a socket shows,
 * and a client whose every response is checked against the response schemas
 * of the OpenAPI document.
 */

/** A test merchant: its key pair and bearer token. */
export interface TestMerchant {
  publicKey: string;
  secretKey: string;
  token: string;
  /** `Authorization` value for Basic (refund, cancel) */
  basic: string;
}

/** A JSON response as a test sees it. */
export interface ApiResponse {
  status: number;
  body: any;
  headers: Record<string, string>;
}

/**
 * Starts a sandbox that opens no socket (`listen: false`), served through
 * `sandbox.handle()`, in memory unless `dataFile` says otherwise; `listen: true`
 * makes it listen on a free loopback port instead (see `listeningSandbox`).
 */
export async function sandboxForTest(options: SandboxOptions = {}): Promise<Sandbox> {
  return startSandbox({ listen: false, ...options });
}

/**
 * Starts a sandbox on a free loopback port, for the end-to-end tests of what
 * only a socket shows: connections, faults that close them, a browser, a
 * client that must be real.
 */
export async function listeningSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  return startSandbox({ port: 0, ...options, listen: true });
}

/** What ApiClient uses of a request being built, supertest's or the in-process one. */
interface Call extends PromiseLike<{ status: number; body: any; headers: Record<string, any> }> {
  set(name: string, value: string): Call;
  timeout(ms: number): Call;
  send(data: unknown): Call;
}

/** A client of one sandbox's Payments API. Every response is checked against the document before it is returned. */
export class ApiClient {
  private constructor(
    private readonly sandbox: Sandbox,
    private readonly operations: HttpOperation[],
    private readonly http: boolean,
  ) {}

  /** A client that is served in process by `sandbox.handle()`, whether the sandbox listens or not. */
  static async for(sandbox: Sandbox): Promise<ApiClient> {
    return new ApiClient(sandbox, await paymentsOperations(), false);
  }

  /**
   * A client over real HTTP to the sandbox's own listener: for the tests of
   * what a connection shows (a fault that closes it, a client's timeout on a
   * request that hangs).
   */
  static async overHttp(sandbox: Sandbox): Promise<ApiClient> {
    return new ApiClient(sandbox, await paymentsOperations(), true);
  }

  /**
   * Sends a request to `/api/v2<path>` (`/api<path>` for a `/v3/` path); `auth` is the whole Authorization value, or none.
   * A request that gets no answer (the connection closed, or `timeoutMs` passed) resolves with status 0.
   */
  async send(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    body?: unknown,
    auth?: string,
    raw?: string,
    options: { headers?: Record<string, string>; timeoutMs?: number } = {},
  ): Promise<ApiResponse> {
    // The document's paths are below /api/v2, but for the operation that names /api as its server (`/v3/...`).
    const target = /^\/v3\//.test(path) ? `/api${path}` : `/api/v2${path}`;
    // supertest and the in-process builder read alike: one chain serves both.
    const agent = (this.http ? request(this.sandbox.url) : inProcess(this.sandbox)) as unknown as Record<string, (url: string) => Call>;
    let call = agent[method.toLowerCase()]!(target);
    if (auth) call = call.set('Authorization', auth);
    for (const [name, value] of Object.entries(options.headers ?? {})) call = call.set(name, value);
    if (options.timeoutMs !== undefined) call = call.timeout(options.timeoutMs);
    if (raw !== undefined) call = call.set('Content-Type', 'application/json').send(raw);
    else if (body !== undefined) call = call.send(body as object);
    let response;
    try {
      response = await call;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'ECONNRESET' || code === 'ECONNABORTED' || (error as Error).message === 'socket hang up') return { status: 0, body: undefined, headers: {} };
      throw error;
    }
    const result = { status: response.status, body: response.body, headers: response.headers as Record<string, string> };
    this.check(method, path, result);
    return result;
  }

  /** A new merchant with a random test key pair (or the pair given), its token obtained over the API. */
  async merchant(pair?: { publicKey: string; secretKey: string }): Promise<TestMerchant> {
    const publicKey = pair?.publicKey ?? `SBTESTPUBK_${randomBytes(8).toString('hex')}`;
    const secretKey = pair?.secretKey ?? `SBTESTSECK_${randomBytes(8).toString('hex')}`;
    const response = await this.send('POST', '/encrypt/keys', { key: `${secretKey}.${publicKey}` });
    expect(response.status).toBe(200);
    return {
      publicKey,
      secretKey,
      token: response.body.data.EncryptedSecKey.encryptedKey,
      basic: `Basic ${Buffer.from(`${publicKey}:${secretKey}`).toString('base64')}`,
    };
  }

  /** Sends `body` (with the merchant's publicKey filled in) to an operation as that merchant. */
  as(merchant: TestMerchant, method: 'GET' | 'POST' | 'PUT', path: string, body?: Record<string, unknown>): Promise<ApiResponse> {
    const withKey = body === undefined ? undefined : { publicKey: merchant.publicKey, ...body };
    return this.send(method, path, withKey, `Bearer ${merchant.token}`);
  }

  /** The operation of the document that a method and path belong to, if any. */
  operationOf(method: string, target: string): HttpOperation | undefined {
    const path = target.split('?')[0]!;
    return this.operations.find(
      (operation) =>
        operation.method.toUpperCase() === method &&
        new RegExp(`^${operation.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path),
    );
  }

  private check(method: string, path: string, response: ApiResponse): void {
    // Every Payments API answer names the rule that decided it.
    expect(response.headers['x-sandbox-scenario'], `X-Sandbox-Scenario of ${method} ${path}`).toMatch(/^[a-z0-9-]+$/);
    const operation = this.operationOf(method, path);
    if (!operation) {
      // Outside the document: only the spec's error body is possible.
      expect(response.body, `${method} ${path}`).toHaveProperty('error');
      return;
    }
    const violations = responseViolations(operation, {
      status: response.status,
      headers: { 'content-type': response.headers['content-type'] ?? '' },
      body: response.body,
    });
    expect(violations, `${operationId(operation)} answered ${response.status} ${JSON.stringify(response.body)}`).toEqual([]);
  }
}

/**
 * A paymentReference no other test uses. A letter splits its random hex
 * digits: twelve digits in a row could pass the Luhn check (1 in 10 do) and
 * be masked as a card number in the journal (README, "What it masks").
 */
export function freshReference(): string {
  const hex = randomBytes(6).toString('hex');
  return `SBREF-${hex.slice(0, 6)}R${hex.slice(6)}`;
}

/** A card initiate body; fields may be replaced. */
export const cardPayment = (fields: Record<string, unknown> = {}): Record<string, unknown> => ({
  paymentType: 'CARD',
  paymentReference: freshReference(),
  amount: '1500.00',
  currency: 'NGN',
  country: 'NG',
  cardNumber: '5123450000000008',
  cvv: '123',
  expiryMonth: '09',
  expiryYear: '30',
  pin: '1234',
  redirectUrl: 'https://merchant.example.com/return',
  ...fields,
});

/** An account initiate body; fields may be replaced. */
export const accountPayment = (fields: Record<string, unknown> = {}): Record<string, unknown> => ({
  paymentType: 'ACCOUNT',
  paymentReference: freshReference(),
  amount: '150.00',
  currency: 'NGN',
  country: 'NG',
  accountNumber: '0123456789',
  bankCode: '058',
  ...fields,
});

/** A MOMO initiate body; fields may be replaced. */
export const momoPayment = (fields: Record<string, unknown> = {}): Record<string, unknown> => ({
  paymentType: 'MOMO',
  paymentReference: freshReference(),
  amount: '500.00',
  currency: 'GHS',
  country: 'GH',
  mobileNumber: 233241234567,
  network: 'MTN',
  ...fields,
});

/** A transfer initiate body (a CARD body with pocket fields); fields may be replaced. */
export const transferPayment = (fields: Record<string, unknown> = {}): Record<string, unknown> => ({
  paymentType: 'CARD',
  paymentReference: freshReference(),
  amount: '3000.00',
  currency: 'NGN',
  country: 'NG',
  pocketReference: 'POCKET-1',
  amountControl: 'FIXEDAMOUNT',
  walletDaysActive: '3',
  ...fields,
});

/** A hosted checkout link body; fields may be replaced. */
export const checkoutLink = (fields: Record<string, unknown> = {}): Record<string, unknown> => ({
  paymentReference: freshReference(),
  amount: '2500.00',
  currency: 'NGN',
  country: 'NG',
  email: 'ada@example.com',
  productId: 'PROD-7',
  productDescription: 'Annual plan',
  callbackUrl: 'https://merchant.example.com/callback',
  ...fields,
});

/** An order body with two items; fields may be replaced. */
export const order = (fields: Record<string, unknown> = {}): Record<string, unknown> => ({
  paymentReference: freshReference(),
  email: 'ada@example.com',
  orderType: 'BULK_BULK',
  callbackUrl: 'https://merchant.example.com/callback',
  country: 'NG',
  currency: 'NGN',
  amount: '4500.00',
  orders: [
    { orderId: 'ORD-1', currency: 'NGN', amount: '3000.00', productId: '101', productDescription: 'Shoes' },
    { orderId: 'ORD-2', currency: 'NGN', amount: '1500.00', productId: '102', productDescription: 'Socks' },
  ],
  ...fields,
});

/** A sandbox in memory, served in process unless `options` say `listen: true`, its checked client, and one merchant with a token: what most API tests start from. */
export async function sandboxWithMerchant(options: SandboxOptions = {}): Promise<{ sandbox: Sandbox; api: ApiClient; merchant: TestMerchant }> {
  const sandbox = await sandboxForTest(options);
  const api = await ApiClient.for(sandbox);
  return { sandbox, api, merchant: await api.merchant() };
}
