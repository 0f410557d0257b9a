import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox, type SandboxAnswer, type SandboxRequest } from '../../src/index.js';
import { cardPayment } from '../support/sandbox.js';
import { answerJson, exchangeKeysInProcess } from '../support/in-process.js';

/** Sandbox.handle() beside a listener (test/unit/http/handle.test.ts serves it with none): both answer, neither disturbs the other, and both answer the same bytes to the same request. */

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});


describe('handle() beside a listener', () => {
  it('leaves the listener answering real requests, the control API included', async () => {
    sandbox = await startSandbox({ port: 0 });
    expect(sandbox.server?.listening).toBe(true);
    expect((await sandbox.handle({ method: 'GET', url: '/__sandbox/health' })).status).toBe(200);
    await exchangeKeysInProcess(sandbox);
    const health = await fetch(`${sandbox.url}/__sandbox/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });
    // A control request with a body, then the same over the socket.
    const made = await sandbox.handle({ method: 'POST', url: '/__sandbox/overrides', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ scenario: 'hang', times: 1 }) });
    expect(made.status).toBe(201);
    expect(answerJson(made)).toMatchObject({ scenario: 'hang', times: 1 });
    const listed = await fetch(`${sandbox.url}/__sandbox/overrides`);
    expect(listed.status).toBe(200);
    expect((await listed.json()).overrides).toHaveLength(1);
    const cleared = await fetch(`${sandbox.url}/__sandbox/overrides`, { method: 'DELETE' });
    expect(cleared.status).toBe(204);
  });
});

// The same request over a socket, answered as handle() answers: status, headers but those of the connection, bytes.
function overSocket(box: Sandbox, sent: SandboxRequest): Promise<SandboxAnswer> {
  return new Promise((resolve, reject) => {
    const { port } = new URL(box.url);
    const call = httpRequest({ host: '127.0.0.1', port, method: sent.method, path: sent.url, headers: { host: new URL(box.url).host, ...sent.headers }, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const headers: Record<string, string | string[]> = {};
        for (const [name, value] of Object.entries(response.headers)) if (value !== undefined && !['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(name)) headers[name] = value;
        resolve({ status: response.statusCode!, headers, body: Buffer.concat(chunks) });
      });
    });
    call.on('error', reject);
    call.end(sent.body);
  });
}

describe('handle() and the listener', () => {
  it('answer the same bytes to the same requests: refusals, parser errors, limits, queries, HEAD', async () => {
    sandbox = await startSandbox({ port: 0, seed: 'same' });
    const merchant = await exchangeKeysInProcess(sandbox);
    const auth = { authorization: `Bearer ${merchant.token}`, 'content-type': 'application/json' };
    const body = cardPayment({ publicKey: merchant.publicKey });
    expect((await sandbox.handle({ method: 'POST', url: '/api/v2/payments/initiates', headers: auth, body: JSON.stringify(body) })).status).toBe(200);
    const requests: SandboxRequest[] = [
      { method: 'GET', url: `/api/v2/payments/query/${String(body.paymentReference)}`, headers: auth },
      { method: 'HEAD', url: `/api/v2/payments/query/${String(body.paymentReference)}`, headers: auth },
      { method: 'GET', url: `/api/v3/payments/query/${String(body.paymentReference)}?x=1`, headers: auth },
      { method: 'POST', url: '/api/v2/payments/initiates', headers: auth, body: '{"amount": 1e400, ' },
      { method: 'POST', url: '/api/v2/payments/initiates', headers: auth, body: ' "text"' },
      // A duplicate both times, its amount a number read exactly.
      { method: 'POST', url: '/api/v2/payments/initiates', headers: auth, body: JSON.stringify({ ...body, amount: 0 }).replace('"amount":0', '"amount":1500.000000000000000001') },
      { method: 'POST', url: '/api/v2/payments/initiates', headers: { ...auth, 'content-type': 'text/plain' }, body: '{}' },
      { method: 'POST', url: '/api/v2/payments/initiates', headers: { ...auth, 'content-type': 'application/json; charset=latin1' }, body: '{}' },
      { method: 'POST', url: '/api/v2/payments/initiates', headers: auth, body: `{"x":"${'a'.repeat(1_100_000)}"}` },
      { method: 'POST', url: '/api/v2/encrypt/keys', headers: { 'content-type': 'application/json' }, body: `{"key":"${'a'.repeat(70_000)}"}` },
      { method: 'POST', url: '/api/v2/payments/initiates', headers: { 'content-type': 'application/json' }, body: `{"x":"${'a'.repeat(1_100_000)}"}` },
      { method: 'POST', url: '/api/v2/payments/initiates', headers: { ...auth, origin: 'https://elsewhere.example' }, body: '{}' },
      { method: 'PUT', url: '/api/v2/payments/initiates', headers: auth, body: '{}' },
      { method: 'GET', url: '/api/v2/encrypt/keys' },
      { method: 'GET', url: '/api/v2/nowhere?x=1', headers: auth },
      { method: 'GET', url: '/api/v2/banks', headers: { host: 'rebound.example' } },
      { method: 'GET', url: '/__sandbox/health' },
      { method: 'GET', url: '/__sandbox/nowhere' },
    ];
    for (const sent of requests) {
      const [direct, socket] = [await sandbox.handle(sent), await overSocket(sandbox, sent)];
      expect(direct, `${sent.method} ${sent.url}`).toEqual(socket);
    }
  });
});
