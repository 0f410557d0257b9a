import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { ApiClient, order, sandboxWithMerchant, type TestMerchant } from '../support/sandbox.js';

/**
 * The provider's Node SDK sends its GET requests with a JSON body after the
 * headers, with no Content-Length, no chunked encoding and `Connection: close`
 * (seerbit-nodejs 0.3.0, HttpURLConnectionClient: flushHeaders, write, end).
 * HTTP/1.1 gives such bytes no place; they must not overtake the answer
 * (docs/decisions.md#d21-json-bodies). A GET whose body is framed is
 * answered as if it had none: test/unit/api/leniency.test.ts.
 */

let sandbox: Sandbox;
let api: ApiClient;
let merchant: TestMerchant;

beforeAll(async () => {
  // The SDK names the provider's host; the sandbox answers it as a --tls-host (README, "HTTPS and proxy mode").
  ({ sandbox, api, merchant } = await sandboxWithMerchant({ listen: true, tlsHosts: ['seerbitapi.com'] }));
  await api.as(merchant, 'POST', '/payments/order', order());
});
afterAll(() => sandbox.close());

/** The SDK's GetOrders request, byte for byte as Node's https.request writes it (captured from the SDK's own calls). */
function getOrdersBytes(): { head: string; body: string } {
  return {
    head:
      `GET /api/v2/products/orders/publicKey/${merchant.publicKey} HTTP/1.1\r\n` +
      `Authorization: Bearer ${merchant.token}\r\n` +
      'Content-Type: application/json\r\n' +
      'Cache-Control: no-cache\r\n' +
      'Accept-Charset: utf-8\r\n' +
      'Host: seerbitapi.com\r\n' +
      'Connection: close\r\n\r\n',
    body: JSON.stringify({ publicKey: merchant.publicKey, query: merchant.publicKey }),
  };
}

/** Writes `parts` to a fresh connection, `gapMs` apart, and reads until the server closes it (at most 5 s). */
function exchange(parts: string[], gapMs: number): Promise<string> {
  const port = new URL(sandbox.url).port;
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close within 5 s; received ${JSON.stringify(received)}`));
    }, 5000);
    socket.on('connect', () => {
      parts.forEach((part, index) => setTimeout(() => socket.write(part), index * gapMs));
    });
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
  });
}

describe('a GET with an unframed body and Connection: close', () => {
  it.each([
    ['in one write', 0, true],
    ['headers first, then the body', 20, false],
  ])('is answered with its own response only (%s), ten times out of ten', async (_how, gapMs, together) => {
    for (let n = 0; n < 10; n += 1) {
      const { head, body } = getOrdersBytes();
      const received = await exchange(together ? [head + body] : [head, body], gapMs);
      const statusLines = received.match(/^HTTP\/1\.1 \d{3} [^\r]*$/gm) ?? [];
      expect(statusLines, received).toEqual(['HTTP/1.1 200 OK']);
      const answer = JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4));
      expect(answer.data.code).toBe('00');
      expect(answer.data.products).toHaveLength(2);
    }
  });
});

describe('bytes Node\'s parser cannot read, with no request under way', () => {
  it('are answered 400 in the spec\'s error body, not a bare status line', async () => {
    const received = await exchange(['NOT AN HTTP REQUEST\r\n\r\n'], 0);
    expect(received).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4))).toEqual({ message: 'Bad Request', error: 'There has been a problem with reading or understanding the request.' });
  });

  it('headers over the limit are answered 431 with a body', async () => {
    const received = await exchange([`GET /api/v2/x HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`], 0);
    expect(received).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    expect(JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4)).message).toBe('Request Header Fields Too Large');
  });
});

describe('requests Node and express would answer without a JSON body', () => {
  const bodyOf = (received: string) => JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4));
  const statusOf = (received: string) => /^HTTP\/1\.1 (\d{3})/.exec(received)?.[1];

  it.each([
    // The key exchange reads a body without credentials; the other operations refuse a stranger before reading it.
    ['a body with a control character that cannot be parsed', `POST /api/v2/encrypt/keys HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1\r\nConnection: close\r\n\r\n\u0001`, '400', 'Bad Request'],
    ['a chunked body that is not chunked', `POST /api/v2/encrypt/keys HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n{"a":1}`, '400', 'Bad Request'],
    ['no Host header', 'GET /api/v2/payments/query/X HTTP/1.1\r\nConnection: close\r\n\r\n', '403', undefined],
    ['an Expect it does not know', 'GET /__sandbox/health HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: the-unexpected\r\nConnection: close\r\n\r\n', '417', 'Expectation Failed'],
    ['the target *', 'POST * HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n', '404', 'Not Found'],
  ])('%s: answered in the API\'s error shape, promptly', async (_what, bytes, status, message) => {
    const received = await exchange([bytes], 0);
    expect(statusOf(received), received).toBe(status);
    expect(received).toMatch(/\r\nContent-Type: application\/json/i);
    const body = bodyOf(received);
    expect(typeof body.error).toBe('string');
    if (message) expect(body.message).toBe(message);
  });
});
