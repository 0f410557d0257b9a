import type { IncomingHttpHeaders } from 'node:http';
import { bytesReader } from './body.js';
import type { ConnectionFault, PaymentsApi } from './core.js';
import type { ApiRequest } from './exchange.js';

/** One request handed to `Sandbox.handle()`, without a socket. */
export interface SandboxRequest {
  /** any case: sent upper case, as node's HTTP parser reads every method it accepts */
  method: string;
  /** the request target: path and query, e.g. `/api/v2/payments/initiates?x=1` */
  url: string;
  /** header names in any case; a list is the header sent once per value. Absent `Host`: the host of the sandbox's `url`; absent `Content-Length` (and `Transfer-Encoding`) with a body: its length in bytes, as a client sends it */
  headers?: Record<string, string | string[]>;
  /** the body's bytes (a string is sent as UTF-8) */
  body?: string | Uint8Array;
}

/** What `Sandbox.handle()` answers: the status, headers and bytes a client would have read. */
export interface SandboxAnswer {
  /** the HTTP status; 0 with a fault */
  status: number;
  /** the headers the sandbox set, names in lower case, without those only a connection carries (Date, Connection, Keep-Alive, Transfer-Encoding) */
  headers: Record<string, string | string[]>;
  /** the body's bytes; empty for HEAD, a 204 or a fault */
  body: Buffer;
  /** set when a fault closed or held the connection instead of answering (status 0, no headers, empty body); a `hang` is reported at once */
  fault?: ConnectionFault;
}

/**
 * One Payments API request served in process, straight to the core
 * (src/api/core.ts), with no socket and no HTTP: `Sandbox.handle()` for
 * targets under an API base. The request reaches the core as node's server
 * would hand it over (incomingHeaders), and its body is read by the same
 * parser, only when the core asks for it. The request is journalled and
 * logged once answered; a fault answers `fault` at once, a `hang` included,
 * as if the client had given up at once (the journal records status 0 then).
 * @param host the Host of a request that names none
 */
export async function handleInProcess(api: PaymentsApi, request: SandboxRequest, host: string): Promise<SandboxAnswer> {
  const bytes = bodyBytes(request.body);
  const method = request.method.toUpperCase();
  const headers = incomingHeaders(request.headers ?? {}, host, bytes);
  const apiRequest: ApiRequest = { method, target: request.url, headers, readBody: bytesReader(method, headers, bytes) };
  const answer = await api.handleApi(apiRequest);
  api.record(answer.exchange);
  if (answer.fault !== undefined) return { status: 0, headers: {}, body: Buffer.alloc(0), fault: answer.fault };
  const kept: Record<string, string> = {};
  for (const name in answer.headers) kept[name.toLowerCase()] = answer.headers[name]!;
  return { status: answer.status, headers: kept, body: answer.body === undefined ? Buffer.alloc(0) : Buffer.from(answer.body) };
}

/** A body as bytes: a string as UTF-8, a Uint8Array as the same memory. */
export function bodyBytes(body: string | Uint8Array | undefined): Buffer | undefined {
  if (body === undefined || Buffer.isBuffer(body)) return body;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/**
 * Node's duplicates are its own: set-cookie a list, the fields it keeps the
 * first of (`message.headers` in node's documentation), cookie joined with
 * `; `, any other joined with `, `.
 */
const FIRST_ONLY = new Set([
  'age', 'authorization', 'content-length', 'content-type', 'etag', 'expires', 'from', 'host', 'if-modified-since',
  'if-unmodified-since', 'last-modified', 'location', 'max-forwards', 'proxy-authorization', 'referer', 'retry-after', 'server', 'user-agent',
]);

/**
 * Headers as node's HTTP server hands them over (`IncomingMessage.headers`):
 * names in lower case, a header sent more than once joined as node joins it.
 * A request without Host gets `host`, and one with a body but no
 * Content-Length nor Transfer-Encoding gets its length, as a client sends them.
 */
export function incomingHeaders(given: Record<string, string | string[]>, host: string, body: Buffer | undefined): IncomingHttpHeaders {
  const headers: Record<string, string | string[]> = {};
  for (const [sent, value] of Object.entries(given)) {
    const name = sent.toLowerCase();
    for (const one of Array.isArray(value) ? value : [value]) {
      const known = headers[name];
      if (known === undefined) headers[name] = name === 'set-cookie' ? [one] : one;
      else if (name === 'set-cookie') (known as string[]).push(one);
      else if (!FIRST_ONLY.has(name)) headers[name] = `${known as string}${name === 'cookie' ? '; ' : ', '}${one}`;
    }
  }
  headers.host ??= host;
  if (body !== undefined && headers['content-length'] === undefined && headers['transfer-encoding'] === undefined) headers['content-length'] = String(body.length);
  return headers as IncomingHttpHeaders;
}
