import fc from 'fast-check';
import { API_BASE_PATH, propertyNames, type DocumentedOperation } from './payments-document.js';
import { written, type RequestParts } from './fuzz-context.js';
import { toJsonText } from './json-text.js';
import type { RawRequest } from './raw-http.js';

/**
 * Garbage around an operation's path: other methods, bodies that are not
 * the JSON object it reads (bytes, deep nesting, many keys, odd charsets),
 * headers a careless or hostile client sends, and request lines and targets
 * the server's parser and router must survive.
 */

/** A kind of garbage, and how it turns a valid request's parts into the request sent. */
export interface Garbage {
  what: string;
  request: (parts: RequestParts) => RawRequest;
}

/** Every kind of garbage for one operation. */
export function garbageOf(operation: DocumentedOperation): fc.Arbitrary<Garbage> {
  return fc.oneof(oddMethod(operation), garbageBody(operation), oddHeaders(operation), oddRequestLine(operation));
}

function oddMethod(operation: DocumentedOperation): fc.Arbitrary<Garbage> {
  const methods = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE', 'FOO', 'post', 'PROPFIND'].filter((method) => method !== operation.method);
  return fc.tuple(fc.constantFrom(...methods), fc.boolean()).map(([method, withBody]) => ({
    what: `method ${method}`,
    request: (parts) => ({ ...written(operation, withBody ? parts : { ...parts, body: undefined }), method }),
  }));
}

/** A method that carries a body to the operation's path: its own, or POST where it is GET (whose body is never read). */
const bodyMethod = (operation: DocumentedOperation): string => (operation.method === 'GET' ? 'POST' : operation.method);

/** Bodies that are not the JSON object an operation reads. */
function garbageBody(operation: DocumentedOperation): fc.Arbitrary<Garbage> {
  const deep = (depth: number, open: string, close: string) => `${open.repeat(depth)}${close.repeat(depth)}`;
  const fields = propertyNames(operation.body);
  // A deep value in place of one of the operation's own fields, added at the end of a valid body.
  const inField = (field: string, value: string) => (parts: RequestParts) => {
    const text = toJsonText(parts.body ?? {});
    return `${text.slice(0, -1)}${text.length > 2 ? ',' : ''}${JSON.stringify(field)}:${value}}`;
  };
  const bodies: Array<fc.Arbitrary<{ what: string; body: (parts: RequestParts) => string | Uint8Array }>> = [
    fc.uint8Array({ minLength: 1, maxLength: 2048 }).map((bytes) => ({ what: 'random bytes', body: () => bytes })),
    fc.string({ unit: 'binary', maxLength: 200 }).map((text) => ({ what: 'random text', body: () => text })),
    fc.jsonValue({ maxDepth: 3 }).filter((value) => typeof value !== 'object' || value === null || Array.isArray(value)).map((value) => ({ what: 'JSON that is not an object', body: () => JSON.stringify(value) })),
    fc.tuple(fc.constantFrom(64, 2_000, 100_000), fc.constantFrom(...(fields.length > 0 ? fields : ['x']))).chain(([depth, field]) =>
      fc.constantFrom(
        { what: `nested arrays (${depth})`, body: () => deep(depth, '[', ']') },
        { what: `nested objects (${depth})`, body: () => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}` },
        { what: `nested arrays in a field (${depth})`, body: inField(field, deep(depth, '[', ']')) },
        { what: `nested objects in a field (${depth})`, body: inField(field, `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`) },
      ),
    ),
    fc.constantFrom(1_000, 20_000).map((count) => ({
      what: `many keys (${count})`,
      body: (parts: RequestParts) => toJsonText({ ...Object.fromEntries(Array.from({ length: count }, (_, n) => [`k${n}`, n])), ...parts.body }),
    })),
    fc.integer({ min: 1, max: 200 }).map((cut) => ({
      what: 'JSON cut short',
      body: (parts: RequestParts) => {
        const text = toJsonText(parts.body ?? {});
        return text.slice(0, Math.max(1, text.length - cut));
      },
    })),
    fc.constant({ what: 'byte order mark', body: (parts: RequestParts) => `\ufeff${toJsonText(parts.body ?? {})}` }),
    fc.constant({ what: 'empty body', body: () => '' }),
    fc.constant({ what: 'body over 1 MB', body: (parts: RequestParts) => `${toJsonText(parts.body ?? {}).slice(0, -1)},"pad":"${'x'.repeat(1_100_000)}"}` }),
  ];
  const contentType = fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'application/json; charset=utf-16',
    'application/json; charset=koi8-r',
    'application/json; charset=bogus',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/octet-stream',
    '',
  );
  return fc.tuple(fc.oneof(...bodies), contentType).map(([{ what, body }, type]) => ({
    what: `${what}${type === 'application/json' ? '' : `, Content-Type ${type || '(none)'}`}`,
    request: (parts) => {
      const headers: Array<[string, string]> = [];
      if (type !== '') headers.push(['Content-Type', type]);
      if (parts.authorization !== undefined) headers.push(['Authorization', parts.authorization]);
      return { method: bodyMethod(operation), target: `${API_BASE_PATH}${parts.path}`, headers, body: body(parts) };
    },
  }));
}

/** Headers a careless or hostile client sends with an otherwise fine request. */
function oddHeaders(operation: DocumentedOperation): fc.Arbitrary<Garbage> {
  const extra: Array<fc.Arbitrary<{ what: string; headers: Array<[string, string]> }>> = [
    fc.constantFrom(8_000, 17_000, 70_000).map((length) => ({ what: `a header of ${length} bytes`, headers: [['X-Fill', 'a'.repeat(length)]] as Array<[string, string]> })),
    fc.constantFrom(150, 3_000).map((count) => ({ what: `${count} headers`, headers: Array.from({ length: count }, (_, n) => [`X-H-${n}`, 'v'] as [string, string]) })),
    fc.constantFrom<[string, string]>(
      ['X-Latin', 'caf\u00e9\u00ff'],
      ['X-Control', 'a\u0001b'],
      ['X Space', 'b'],
      ['Content-Encoding', 'gzip'],
      ['Content-Encoding', 'deflate'],
      ['Content-Encoding', 'br'],
      ['Content-Encoding', 'bogus'],
      ['Expect', '100-continue'],
      ['Expect', 'the-unexpected'],
      ['Transfer-Encoding', 'chunked'],
      ['Content-Length', '5, 6'],
      ['Upgrade', 'websocket'],
      ['Connection', 'Upgrade'],
      ['X-HTTP-Method-Override', 'DELETE'],
      ['X-Forwarded-For', '__proto__'],
      ['Authorization', 'Bearer x'],
      ['__proto__', 'x'],
    ).map((header) => ({ what: `header ${header[0]}: ${header[1]}`, headers: [header] })),
  ];
  return fc.oneof(...extra).map(({ what, headers }) => ({
    what,
    request: (parts) => {
      const base: Array<[string, string]> = [['Content-Type', 'application/json']];
      if (parts.authorization !== undefined) base.push(['Authorization', parts.authorization]);
      return { method: bodyMethod(operation), target: `${API_BASE_PATH}${parts.path}`, headers: [...base, ...headers], body: toJsonText(parts.body ?? {}) };
    },
  }));
}

/** Request lines and targets a server's parser and router must survive. */
function oddRequestLine(operation: DocumentedOperation): fc.Arbitrary<Garbage> {
  return fc
    .constantFrom<{ what: string; line: (path: string) => Partial<RawRequest> }>(
      { what: 'version HTTP/9.9', line: () => ({ version: 'HTTP/9.9' }) },
      { what: 'version HTTP/1.0', line: () => ({ version: 'HTTP/1.0' }) },
      { what: 'no Host', line: () => ({ omitHost: true }) },
      { what: 'two Hosts', line: () => ({ headers: [['Host', '127.0.0.1'], ['Host', '127.0.0.1']] }) },
      { what: 'double slash', line: (path) => ({ target: `/${API_BASE_PATH}${path}` }) },
      { what: 'dot segments', line: (path) => ({ target: `${API_BASE_PATH}/../${API_BASE_PATH.slice(1)}${path}` }) },
      { what: 'trailing slash', line: (path) => ({ target: `${API_BASE_PATH}${path}/` }) },
      { what: 'prototype query', line: (path) => ({ target: `${API_BASE_PATH}${path}?__proto__[x]=1&constructor[prototype][y]=2&toString=3` }) },
      { what: 'absolute-form target', line: (path) => ({ target: `http://evil.example${API_BASE_PATH}${path}` }) },
      { what: 'asterisk target', line: () => ({ target: '*' }) },
      { what: 'long target', line: (path) => ({ target: `${API_BASE_PATH}${path}?q=${'z'.repeat(20_000)}` }) },
      { what: 'raw bytes in target', line: (path) => ({ target: `${API_BASE_PATH}${path}\u00e9\u00ff` }) },
      { what: 'fragment in target', line: (path) => ({ target: `${API_BASE_PATH}${path}#frag` }) },
    )
    .map(({ what, line }) => ({
      what,
      request: (parts) => {
        const headers: Array<[string, string]> = [['Content-Type', 'application/json']];
        if (parts.authorization !== undefined) headers.push(['Authorization', parts.authorization]);
        const changed = line(parts.path);
        return {
          method: operation.method,
          target: `${API_BASE_PATH}${parts.path}`,
          body: parts.body === undefined ? undefined : toJsonText(parts.body),
          ...changed,
          headers: [...(changed.headers ?? []), ...headers],
        };
      },
    }));
}
