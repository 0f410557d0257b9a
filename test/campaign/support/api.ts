import { randomBytes } from 'node:crypto';
import { basic, type FuzzMerchant } from './fuzz-context.js';

/**
 * A small client of a running sandbox over real HTTP (fetch): the Payments
 * API as a merchant, and the control API, each request bounded in time.
 * Unlike the shared test client it checks nothing itself, so that a test
 * can send many requests at once and judge the answers together. The same
 * client serves a sandbox in process (`fetchOf(sandbox)`), for the parts of
 * the campaign whose requests need no socket (test/unit/).
 */

/**
 * Where requests go: the origin of a sandbox on a port (http://127.0.0.1:4010),
 * or a fetch that a sandbox serves in process (test/support/in-process.ts,
 * `fetchOf`), which takes the path alone.
 */
export type Origin = string | ((path: string, init?: RequestInit) => Promise<Response>);

/** `fetch` of `path` (and its query) at `origin`. */
export function fetchAt(origin: Origin, path: string, init: RequestInit = {}): Promise<Response> {
  return typeof origin === 'string' ? fetch(`${origin}${path}`, init) : origin(path, init);
}

/** A merchant with its key pair, bearer token and Basic credentials. */
export interface Merchant extends FuzzMerchant {
  /** `Authorization` value of its bearer token */
  bearer: string;
  /** `Authorization` value of its key pair as Basic credentials */
  basic: string;
}

/** An answer: status 0 when the connection closed without one or the time ran out. */
export interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

/** How long one request may take. */
export const REQUEST_WITHIN_MS = 15_000;

/**
 * Sends a JSON request to `<origin><path>` and reads the answer. Never
 * rejects on a closed connection or a timeout: that is status 0.
 */
export async function send(
  origin: Origin,
  method: string,
  path: string,
  options: { body?: unknown; authorization?: string; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.body !== undefined) headers['Content-Type'] ??= 'application/json';
  if (options.authorization !== undefined) headers.Authorization = options.authorization;
  try {
    const response = await fetchAt(origin, path, {
      method,
      headers,
      body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
      signal: AbortSignal.timeout(options.timeoutMs ?? REQUEST_WITHIN_MS),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      // Not JSON: the test sees the text.
    }
    return { status: response.status, body, headers: response.headers };
  } catch {
    return { status: 0, body: undefined, headers: new Headers() };
  }
}

/** A Payments API client of the sandbox at `origin`, as one merchant. */
export class PaymentsApi {
  constructor(
    readonly origin: Origin,
    readonly merchant: Merchant,
  ) {}

  /**
   * A merchant with a fresh random test key pair (or `keys`), its token from
   * the key exchange.
   * @throws Error when the key exchange does not answer 200 with a token.
   */
  static async as(origin: Origin, keys?: { publicKey: string; secretKey: string }): Promise<PaymentsApi> {
    const publicKey = keys?.publicKey ?? `SBTESTPUBK_${randomBytes(8).toString('hex')}`;
    const secretKey = keys?.secretKey ?? `SBTESTSECK_${randomBytes(8).toString('hex')}`;
    const answer = await send(origin, 'POST', '/api/v2/encrypt/keys', { body: { key: `${secretKey}.${publicKey}` } });
    const token = answer.body?.data?.EncryptedSecKey?.encryptedKey;
    if (answer.status !== 200 || typeof token !== 'string') throw new Error(`the key exchange answered ${answer.status} ${JSON.stringify(answer.body)}`);
    return new PaymentsApi(origin, { publicKey, secretKey, token, bearer: `Bearer ${token}`, basic: basic({ publicKey, secretKey }) });
  }

  /** A request to `/api/v2<path>` with the merchant's token (or `authorization`); `body` gets the merchant's publicKey unless it has one. */
  call(method: string, path: string, body?: Record<string, unknown>, options: { authorization?: string; headers?: Record<string, string>; timeoutMs?: number } = {}): Promise<Answer> {
    return send(this.origin, method, `/api/v2${path}`, {
      body: body === undefined ? undefined : { publicKey: this.merchant.publicKey, ...body },
      authorization: options.authorization ?? this.merchant.bearer,
      headers: options.headers,
      timeoutMs: options.timeoutMs,
    });
  }

  /** POST /payments/initiates. */
  initiate(body: Record<string, unknown>, headers?: Record<string, string>): Promise<Answer> {
    return this.call('POST', '/payments/initiates', body, { headers });
  }

  /** POST /payments/validate with an OTP (`123456` completes). */
  validate(linkingReference: string, otp = '123456'): Promise<Answer> {
    return this.call('POST', '/payments/validate', { linkingReference, otp });
  }

  /** POST /payments/refund with Basic credentials. */
  refund(paymentReference: string, amount: string, currency = 'NGN'): Promise<Answer> {
    return this.call('POST', '/payments/refund', { paymentReference, amount, currency, country: 'NG' }, { authorization: this.merchant.basic });
  }

  /** POST /payments/cancel with Basic credentials. */
  cancel(paymentReference: string): Promise<Answer> {
    return this.call('POST', '/payments/cancel', { paymentReference, country: 'NG' }, { authorization: this.merchant.basic });
  }

  /** GET /payments/query/{paymentReference}. */
  query(paymentReference: string): Promise<Answer> {
    return this.call('GET', `/payments/query/${encodeURIComponent(paymentReference)}`);
  }

  /** The merchant's payments as the control API lists them. */
  async payments(): Promise<Array<Record<string, any>>> {
    return this.everyPage('payments');
  }

  /** The merchant's payment with this reference as the control API lists it, if any. */
  async payment(paymentReference: string): Promise<Record<string, any> | undefined> {
    return (await this.payments()).find((payment) => payment.paymentReference === paymentReference);
  }

  /** The merchant's orders as the control API lists them. */
  async orders(): Promise<Array<Record<string, any>>> {
    return this.everyPage('orders');
  }

  // A list answers a page at a time: follow `next` to the end.
  private async everyPage(list: 'payments' | 'orders'): Promise<Array<Record<string, any>>> {
    const rows: Array<Record<string, any>> = [];
    let cursor: string | undefined;
    do {
      const target = `/__sandbox/${list}?publicKey=${encodeURIComponent(this.merchant.publicKey)}&limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const answer = await send(this.origin, 'GET', target);
      if (answer.status !== 200) throw new Error(`GET /__sandbox/${list} answered ${answer.status} ${JSON.stringify(answer.body)}`);
      rows.push(...answer.body[list]);
      cursor = answer.body.next;
    } while (cursor);
    return rows;
  }
}

/** `n` copies of `request` sent at once; the answers in order. */
export function together<T>(n: number, request: (index: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: n }, (_, index) => request(index)));
}
