import { afterEach, describe, expect, it } from 'vitest';
import { SOCKETLESS_URL, startSandbox, type Sandbox } from '../../../src/index.js';
import { cardPayment } from '../../support/sandbox.js';
import { answerJson, exchangeKeysInProcess } from '../../support/in-process.js';

/** Sandbox.handle(): requests served in process, without a socket, with `listen: false` (beside a listener: test/http/handle-listener.test.ts). */

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});


describe('startSandbox({ listen: false })', () => {
  it('serves a key exchange, an initiate and the control API through handle(), with no server listening', async () => {
    const listening = () => process.getActiveResourcesInfo().filter((resource) => resource === 'TCPServerWrap').length;
    const before = listening();
    sandbox = await startSandbox({ listen: false });
    expect(sandbox.server).toBeUndefined();
    expect(listening()).toBe(before);
    expect(sandbox.httpsServer).toBeUndefined();
    expect(sandbox.url).toBe(SOCKETLESS_URL);
    expect(sandbox.publicUrl).toBe(SOCKETLESS_URL);
    expect(sandbox.apiBase).toBe(`${SOCKETLESS_URL}/api/v2`);

    const merchant = await exchangeKeysInProcess(sandbox);
    const body = cardPayment({ publicKey: merchant.publicKey });
    const initiated = await sandbox.handle({
      method: 'POST',
      url: '/api/v2/payments/initiates',
      headers: { authorization: `Bearer ${merchant.token}`, 'content-type': 'application/json' },
      body: new TextEncoder().encode(JSON.stringify(body)),
    });
    expect(initiated.status).toBe(200);
    expect(initiated.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(initiated.headers['x-sandbox-scenario']).toEqual(expect.any(String));
    expect(initiated.headers['x-content-type-options']).toBe('nosniff');
    expect(initiated.headers.date).toBeUndefined();
    expect(initiated.fault).toBeUndefined();
    const payment = answerJson(initiated).data.payments;
    expect(payment.paymentReference).toBe(body.paymentReference);
    expect(payment.redirectLink ?? payment.linkingReference).toBeDefined();
    expect(sandbox.store.payment(merchant.publicKey, String(body.paymentReference))).toBeDefined();

    const health = await sandbox.handle({ method: 'GET', url: '/__sandbox/health' });
    expect(health.status).toBe(200);
    expect(answerJson(health)).toMatchObject({ status: 'ok' });
    expect(listening()).toBe(before);

    // The journal holds the requests as a client sent them: no header of the injection's own.
    const [entry] = sandbox.journal.query({ path: '/payments/initiates' });
    expect(entry).toMatchObject({ method: 'POST', status: 200, paymentReference: body.paymentReference });
    expect(entry!.request.headers['user-agent']).toBeUndefined();
    expect(entry!.request.headers.host).toBe('127.0.0.1:4010');
  });

  it('answers refusals as a listener does: a foreign Host, a missing credential, an unknown target', async () => {
    sandbox = await startSandbox({ listen: false, publicUrl: 'http://sandbox.test:8080/' });
    expect(sandbox.url).toBe('http://sandbox.test:8080');
    expect((await sandbox.handle({ method: 'GET', url: '/__sandbox/health' })).status).toBe(200);
    expect((await sandbox.handle({ method: 'GET', url: '/__sandbox/health', headers: { Host: 'localhost' } })).status).toBe(200);
    const foreign = await sandbox.handle({ method: 'GET', url: '/api/v2/banks', headers: { Host: 'evil.example' } });
    expect(foreign.status).toBe(403);
    expect(answerJson(foreign)).toMatchObject({ error: 'PERMISSION' });
    const stranger = await sandbox.handle({ method: 'POST', url: '/api/v2/payments/initiates', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(stranger.status).toBe(403);
    const nowhere = await sandbox.handle({ method: 'GET', url: '/nowhere' });
    expect(nowhere.status).toBe(404);
    expect(answerJson(nowhere)).toHaveProperty('error');
  });

  it('reports a fault instead of an answer, and journals it with status 0', async () => {
    sandbox = await startSandbox({ listen: false });
    const merchant = await exchangeKeysInProcess(sandbox);
    for (const fault of ['drop-connection', 'hang', 'lose-response'] as const) {
      const body = cardPayment({ publicKey: merchant.publicKey });
      const answer = await sandbox.handle({
        method: 'POST',
        url: '/api/v2/payments/initiates',
        headers: { authorization: `Bearer ${merchant.token}`, 'content-type': 'application/json', 'X-Sandbox-Scenario': fault },
        body: JSON.stringify(body),
      });
      expect(answer).toEqual({ status: 0, headers: {}, body: Buffer.alloc(0), fault });
      await expect.poll(() => sandbox!.journal.query({ paymentReference: String(body.paymentReference) })[0]).toMatchObject({ status: 0, fault });
    }
  });
});

// handle() beside a listener, and the same bytes from both, need a socket: test/http/handle-listener.test.ts.
