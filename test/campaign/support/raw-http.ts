import { connect } from 'node:net';

/**
 * HTTP/1.1 spoken byte by byte over a loopback socket. A client library
 * refuses to send what a hostile client sends (a method that is no token, a
 * header with control characters, a Host of someone else), so the campaign
 * writes the request itself and reads whatever comes back: the server's own
 * parser is then the first to see every byte.
 */

/** A request as it goes on the wire. */
export interface RawRequest {
  method: string;
  /** the request target: path and query, e.g. `/api/v2/payments/initiates` */
  target: string;
  /** header lines in order; a name may repeat. Host and Content-Length are added unless given. */
  headers?: Array<[string, string]>;
  /** the body, as text (UTF-8) or bytes */
  body?: string | Uint8Array;
  /** the protocol of the request line; HTTP/1.1 unless given */
  version?: string;
  /** send no Host header at all */
  omitHost?: boolean;
}

/** What came back: status 0 when the connection closed (or the time ran out) before a status line. */
export interface RawAnswer {
  status: number;
  /** header names in lower case; repeated headers joined with `, ` */
  headers: Record<string, string>;
  /** the body as text (UTF-8) */
  text: string;
  /** the body read as JSON, or undefined when it is not JSON */
  json: unknown;
  /** why there is no answer, when status is 0 */
  error?: string;
}

/** How long one request may take before it counts as unanswered. */
export const ANSWER_WITHIN_MS = 10_000;

/**
 * Sends one request to `origin` (http://127.0.0.1:port) on a connection of
 * its own and reads the answer to the end (the request asks the server to
 * close). Never rejects: a connection that dies answers status 0.
 */
export function sendRaw(origin: string, request: RawRequest, timeoutMs = ANSWER_WITHIN_MS): Promise<RawAnswer> {
  const { hostname, port } = new URL(origin);
  const body = request.body === undefined ? undefined : typeof request.body === 'string' ? Buffer.from(request.body, 'utf8') : Buffer.from(request.body);
  const headers = [...(request.headers ?? [])];
  const has = (name: string) => headers.some(([given]) => given.toLowerCase() === name);
  if (!has('host') && !request.omitHost) headers.unshift(['Host', `${hostname}:${port}`]);
  if (body !== undefined && !has('content-length') && !has('transfer-encoding')) headers.push(['Content-Length', String(body.length)]);
  if (!has('connection')) headers.push(['Connection', 'close']);
  const head = Buffer.from(`${request.method} ${request.target} ${request.version ?? 'HTTP/1.1'}\r\n${headers.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`, 'latin1');

  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const socket = connect({ host: hostname, port: Number(port) });
    const finish = (error?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(parseAnswer(Buffer.concat(chunks), error));
    };
    const timer = setTimeout(() => finish(`no answer within ${timeoutMs} ms`), timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // An answer with a length is complete without waiting for the close.
      if (complete(Buffer.concat(chunks))) finish();
    });
    socket.on('end', () => finish());
    socket.on('close', () => finish());
    // A server that answers before reading the whole body resets the rest: the answer is what counts.
    socket.on('error', (error) => finish(chunks.length > 0 ? undefined : error.message));
    socket.on('connect', () => {
      socket.write(head);
      if (body !== undefined) socket.write(body);
    });
  });
}

// True once the bytes hold a status line, headers and a body of the announced length.
function complete(received: Buffer): boolean {
  const bytes = finalAnswer(received);
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const head = bytes.subarray(0, end).toString('latin1');
  // A chunked answer ends with its empty last chunk.
  if (/\r\ntransfer-encoding:[^\r]*chunked/i.test(head)) return bytes.subarray(end + 4).toString('latin1').endsWith('0\r\n\r\n');
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1];
  return length !== undefined && bytes.length - end - 4 >= Number(length);
}

// An interim answer (100 Continue) may come before the real one.
function finalAnswer(received: Buffer): Buffer {
  let bytes = received;
  while (/^HTTP\/1\.[01] 1\d\d /.test(bytes.subarray(0, 16).toString('latin1')) && bytes.indexOf('\r\n\r\n') >= 0) {
    bytes = bytes.subarray(bytes.indexOf('\r\n\r\n') + 4);
  }
  return bytes;
}

function parseAnswer(received: Buffer, error: string | undefined): RawAnswer {
  const bytes = finalAnswer(received);
  const end = bytes.indexOf('\r\n\r\n');
  const statusLine = /^HTTP\/1\.[01] (\d{3})/.exec(bytes.subarray(0, Math.max(end, 0)).toString('latin1'));
  if (end < 0 || !statusLine) return { status: 0, headers: {}, text: bytes.toString('utf8'), json: undefined, error: error ?? 'the connection closed without an answer' };
  const headers: Record<string, string> = {};
  for (const line of bytes.subarray(0, end).toString('latin1').split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  let payload = bytes.subarray(end + 4);
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) payload = unchunk(payload);
  else if (headers['content-length'] !== undefined) payload = payload.subarray(0, Number(headers['content-length']));
  const text = payload.toString('utf8');
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: Number(statusLine[1]), headers, text, json };
}

function unchunk(bytes: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** A JSON request with the usual headers; `extra` headers go after them. */
export function jsonRequest(method: string, target: string, body: unknown, authorization?: string, extra: Array<[string, string]> = []): RawRequest {
  const headers: Array<[string, string]> = [['Content-Type', 'application/json']];
  if (authorization !== undefined) headers.push(['Authorization', authorization]);
  return { method, target, headers: [...headers, ...extra], body: body === undefined ? undefined : JSON.stringify(body) };
}
