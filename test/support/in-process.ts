import { randomBytes } from 'node:crypto';
import { parse as parseQuery, stringify as stringifyQuery } from 'node:querystring';
import type { Sandbox, SandboxAnswer } from '../../src/index.js';

/**
 * Requests to a sandbox served in process by `Sandbox.handle()`: no socket,
 * no server, so the tests that use it run in the unit project. The builder
 * reads as the supertest calls it replaces do (`.set()`, `.type()`,
 * `.send()`, `.field()`, `.query()`, `.timeout()`, `.expect()`), and it
 * encodes a body and reads an answer the same way, so a test moved to it
 * sends the same bytes and asserts the same things.
 */

/** An answer as a test reads it, under the names supertest gives the same things. */
export interface InProcessResponse {
  status: number;
  /** header names in lower case; a repeated header joined with ", " as a client reads it (Set-Cookie stays a list) */
  headers: Record<string, any>;
  /** the same as `headers` */
  header: Record<string, any>;
  /** the body as UTF-8 text */
  text: string;
  /** JSON and form bodies parsed; a text or empty body `{}`; any other body its bytes */
  body: any;
  /** the media type of Content-Type, without its parameters */
  type: string;
}

/** The HTTP methods a test sends. */
type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS' | 'HEAD';

// The short names of media types that `.type()` takes, as superagent maps them.
const TYPES: Record<string, string> = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
  urlencoded: 'application/x-www-form-urlencoded',
  'form-data': 'application/x-www-form-urlencoded',
  text: 'text/plain',
  html: 'text/html',
  xml: 'application/xml',
};

/** One request being built; awaiting it sends it. */
export class InProcessRequest implements PromiseLike<InProcessResponse> {
  private readonly headers: Record<string, string> = {};
  private data: unknown;
  private fields: Array<[string, string]> | undefined;
  private timeoutMs: number | undefined;
  private expected: number | undefined;
  private sent: Promise<InProcessResponse> | undefined;

  constructor(
    private readonly sandbox: Pick<Sandbox, 'handle'>,
    private readonly method: Method,
    private url: string,
  ) {}

  /** Sets a header (names in any case), or each header of an object. */
  set(name: string | Record<string, string>, value?: string): this {
    if (typeof name === 'string') this.headers[name.toLowerCase()] = String(value);
    else for (const [each, given] of Object.entries(name)) this.headers[each.toLowerCase()] = String(given);
    return this;
  }

  /** Sets Content-Type: a media type, or a short name (`json`, `form`, ...). */
  type(type: string): this {
    this.headers['content-type'] = TYPES[type] ?? type;
    return this;
  }

  /**
   * The body: an object or an array is sent as JSON (or form-encoded under a
   * form type), objects sent twice merged; a string is sent as it is, as a
   * form when no type was set, strings sent twice joined with `&`; bytes as they are.
   */
  send(data: unknown): this {
    if (typeof data === 'string') {
      this.headers['content-type'] ??= TYPES.form!;
      this.data = typeof this.data === 'string' && this.headers['content-type'] === TYPES.form ? `${this.data}&${data}` : data;
    } else if (data !== null && typeof data === 'object' && !Buffer.isBuffer(data) && !(data instanceof Uint8Array)) {
      this.headers['content-type'] ??= TYPES.json!;
      this.data = this.data !== null && typeof this.data === 'object' && !Array.isArray(this.data) && !Array.isArray(data) ? { ...(this.data as object), ...data } : data;
    } else this.data = data;
    return this;
  }

  /** A multipart/form-data field, as an HTML form with a file input sends it. */
  field(name: string, value: string): this {
    (this.fields ??= []).push([name, value]);
    return this;
  }

  /** Adds query parameters to the target. */
  query(query: string | Record<string, string | number | boolean>): this {
    const text = typeof query === 'string' ? query : stringifyQuery(query as Record<string, string>);
    if (text !== '') this.url += `${this.url.includes('?') ? '&' : '?'}${text}`;
    return this;
  }

  /** Gives up after `ms` milliseconds: the request then rejects, as a client's timeout does. */
  timeout(ms: number): this {
    this.timeoutMs = ms;
    return this;
  }

  /** The answer must have this status, or the request rejects naming both. */
  expect(status: number): this {
    this.expected = status;
    return this;
  }

  then<A = InProcessResponse, B = never>(onFulfilled?: ((value: InProcessResponse) => A | PromiseLike<A>) | null, onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
    return (this.sent ??= this.run()).then(onFulfilled, onRejected);
  }

  private body(): string | Buffer | undefined {
    if (this.fields) {
      // The boundary is random, as a browser's is: nothing in the fields can end a part early.
      const boundary = `----inprocess${randomBytes(8).toString('hex')}`;
      this.headers['content-type'] = `multipart/form-data; boundary=${boundary}`;
      const parts = this.fields.map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
      return `${parts.join('')}--${boundary}--\r\n`;
    }
    if (this.data === undefined) return undefined;
    if (typeof this.data === 'string' || Buffer.isBuffer(this.data)) return this.data;
    if (this.data instanceof Uint8Array) return Buffer.from(this.data);
    return this.headers['content-type'] === TYPES.form ? stringifyQuery(this.data as Record<string, string>) : JSON.stringify(this.data);
  }

  private async run(): Promise<InProcessResponse> {
    const body = this.body();
    const answering = this.sandbox.handle({ method: this.method, url: this.url, headers: asClientSends(this.method, this.headers, body), body });
    const answer = this.timeoutMs === undefined ? await answering : await withinMs(answering, this.timeoutMs, `${this.method} ${this.url}`);
    if (answer.fault) {
      // What a client of a closed connection meets: no answer at all.
      const error = new Error(`socket hang up: ${this.method} ${this.url} met the fault ${answer.fault}`) as Error & { code: string; fault: string };
      error.code = 'ECONNRESET';
      error.fault = answer.fault;
      throw error;
    }
    const response = responseOf(answer);
    if (this.expected !== undefined && response.status !== this.expected) {
      throw new Error(`expected ${this.expected}, got ${response.status}: ${this.method} ${this.url} answered ${response.text.slice(0, 300)}`);
    }
    return response;
  }
}

/** A supertest-like agent on one sandbox, served in process: `inProcess(sandbox).post('/api/v2/...').set(...).send(...)`. */
export function inProcess(sandbox: Pick<Sandbox, 'handle'>): Record<'get' | 'post' | 'put' | 'patch' | 'delete' | 'options' | 'head', (url: string) => InProcessRequest> {
  const at = (method: Method) => (url: string) => new InProcessRequest(sandbox, method, url);
  return { get: at('GET'), post: at('POST'), put: at('PUT'), patch: at('PATCH'), delete: at('DELETE'), options: at('OPTIONS'), head: at('HEAD') };
}

/** An answer of `Sandbox.handle()` read as a client reads it (see InProcessResponse). */
export function responseOf(answer: SandboxAnswer): InProcessResponse {
  const headers: Record<string, any> = {};
  for (const [name, value] of Object.entries(answer.headers)) headers[name] = Array.isArray(value) && name !== 'set-cookie' ? value.join(', ') : value;
  const type = String(headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const text = answer.body.toString('utf8');
  let body: any = {};
  if (/^application\/([\w.+-]+\+)?json$/.test(type)) body = text.trim() === '' ? {} : JSON.parse(text.replace(/^\uFEFF/, ''));
  else if (type === TYPES.form) body = { ...parseQuery(text) };
  else if (type !== '' && !type.startsWith('text/') && answer.body.length > 0) body = answer.body;
  return { status: answer.status, headers, header: headers, text, body, type };
}

// The methods whose requests carry no body unless given one: node's HTTP client and fetch send no length for them.
const BODILESS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT']);

/**
 * `headers` as node's HTTP client and fetch send them with `body`: a POST,
 * PUT or PATCH without a body carries `Content-Length: 0`, which a request
 * served in process would otherwise lack (and the sandbox tells a bodiless
 * POST from an empty one).
 */
export function asClientSends(method: string, headers: Record<string, string>, body: unknown): Record<string, string> {
  const lengthGiven = Object.keys(headers).some((name) => name.toLowerCase() === 'content-length' || name.toLowerCase() === 'transfer-encoding');
  if (body !== undefined || lengthGiven || BODILESS.has(method.toUpperCase())) return headers;
  return { ...headers, 'content-length': '0' };
}

/** `promise`, or a rejection like a client's timeout (code ECONNABORTED) after `ms` milliseconds. */
export async function withinMs<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`Timeout of ${ms}ms exceeded: ${what}`), { code: 'ECONNABORTED' })), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `fetch` served in process by one sandbox: the same call (a URL of the
 * sandbox, or a path, and the same init) resolving with a real `Response`
 * built from what `Sandbox.handle()` answered, for tests written against
 * fetch. A fault rejects with TypeError "fetch failed", as fetch does when
 * the connection closes.
 */
export function fetchOf(sandbox: Pick<Sandbox, 'handle'>): (input: string | URL, init?: RequestInit) => Promise<Response> {
  return async (input, init = {}) => {
    const url = new URL(String(input), 'http://in-process');
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => (headers[name] = value));
    const body = init.body === undefined || init.body === null ? undefined : typeof init.body === 'string' ? init.body : Buffer.from(await new Response(init.body).arrayBuffer());
    if (body !== undefined && typeof init.body === 'string' && headers['content-type'] === undefined) headers['content-type'] = 'text/plain;charset=UTF-8';
    const method = init.method ?? 'GET';
    const answer = await sandbox.handle({ method, url: `${url.pathname}${url.search}`, headers: asClientSends(method, headers, body), body });
    if (answer.fault) throw new TypeError('fetch failed', { cause: new Error(`the sandbox met the fault ${answer.fault}`) });
    const read = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) for (const each of Array.isArray(value) ? value : [value]) read.append(name, each);
    const empty = answer.body.length === 0 || [204, 205, 304].includes(answer.status);
    return new Response(empty ? null : new Uint8Array(answer.body), { status: answer.status, headers: read });
  };
}

/** The JSON body of a handled answer. */
export const answerJson = (answer: SandboxAnswer): any => JSON.parse(answer.body.toString('utf8'));

/** A key exchange of a new random test key pair through `sandbox.handle()`: its public key and bearer token. */
export async function exchangeKeysInProcess(sandbox: Pick<Sandbox, 'handle'>): Promise<{ publicKey: string; token: string }> {
  const publicKey = `SBTESTPUBK_${randomBytes(8).toString('hex')}`;
  const secretKey = `SBTESTSECK_${randomBytes(8).toString('hex')}`;
  const answer = await sandbox.handle({ method: 'POST', url: '/api/v2/encrypt/keys', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ key: `${secretKey}.${publicKey}` }) });
  if (answer.status !== 200) throw new Error(`the key exchange answered ${answer.status}: ${answer.body.toString('utf8')}`);
  return { publicKey, token: answerJson(answer).data.EncryptedSecKey.encryptedKey };
}
