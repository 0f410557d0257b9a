import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { ControlClient } from '../support/control.js';
import { cardPayment, freshReference, listeningSandbox } from '../support/sandbox.js';

/**
 * Issue 39's acceptance: two integrations written here drive the sandbox
 * over real sockets, each with its own notification receiver on 127.0.0.1,
 * then a go-live run; the report judges them (docs/decisions.md#d87-go-live-report).
 * - careful: one key exchange, unique references, a card payment that
 *   succeeds, one declined and one left pending; its receiver queries the
 *   status of each payment a `transaction` event names before it echoes
 *   every ackReference.
 * - like the provider's Odoo plugin: a key exchange before each request,
 *   only successes, a reference used twice; its receiver answers
 *   `{"status":"success","message":"Processed"}` without the ackReference,
 *   500 on a `dispute`, and never queries a payment.
 */

let sandbox: Sandbox;
let control: ControlClient;
const servers: Server[] = [];

beforeAll(async () => {
  sandbox = await listeningSandbox();
  control = await ControlClient.for(sandbox);
});
afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  await sandbox.close();
});

/** A Payments API call over HTTP to the sandbox's listener. */
async function callApi(method: string, path: string, token?: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${sandbox.url}/api/v2${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

const newKeys = () => {
  const tag = randomBytes(8).toString('hex');
  return { publicKey: `SBTESTPUBK_${tag}`, secretKey: `SBTESTSECK_${tag}` };
};

async function exchange(keys: { publicKey: string; secretKey: string }): Promise<string> {
  const answer = await callApi('POST', '/encrypt/keys', undefined, { key: `${keys.secretKey}.${keys.publicKey}` });
  expect(answer.status).toBe(200);
  return answer.body.data.EncryptedSecKey.encryptedKey;
}

/** A receiver on 127.0.0.1 whose answer to each notification `handle` decides. */
async function receiver(handle: (item: any, ackReference: string) => Promise<{ status: number; body: unknown }>): Promise<string> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (raw += chunk)).on('end', async () => {
      const item = JSON.parse(raw).notificationItems[0].notificationRequestItem;
      const answer = await handle(item, String(req.headers['x-expected-ack-reference']));
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/notifications`;
}

/** Starts a run and follows it until done; `whileRunning` sees each view of it. */
async function run(publicKey: string, whileRunning: (view: any) => Promise<void> = async () => {}): Promise<any> {
  const started = await control.send('POST', `/go-live/${publicKey}/runs`);
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  expect(started.body).toMatchObject({ id: expect.stringMatching(/^run_[0-9a-f]{12}$/), status: 'running' });
  for (let attempt = 0; attempt < 400; attempt += 1) {
    const view = (await control.send('GET', `/go-live/${publicKey}/runs/${started.body.id}`)).body;
    if (view.status === 'done') return view;
    await whileRunning(view);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the run never finished');
}

/** The report once `settled(report)` holds (notifications are sent after the answers that cause them). */
async function reportWhen(publicKey: string, settled: (report: any) => boolean): Promise<any> {
  let report: any;
  for (let attempt = 0; attempt < 200; attempt += 1) {
    report = (await control.send('GET', `/go-live/${publicKey}`)).body;
    if (settled(report)) return report;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return report;
}

const statusOf = (report: any) => Object.fromEntries(report.checks.map((check: any) => [check.id, check.status]));
const REQUIRED = ['notification-acknowledged', 'notification-duplicate-acknowledged', 'notification-unknown-type-acknowledged', 'notification-verified', 'unique-references', 'outcomes-covered'];

describe('the go-live report of two integrations', () => {
  it('finds the careful integration ready, every required check passed', { timeout: 60_000 }, async () => {
    const keys = newKeys();
    const token = await exchange(keys);
    const url = await receiver(async (item, ackReference) => {
      // Notifications are unsigned: confirm the payment before trusting it.
      if (item.eventType === 'transaction') await callApi('GET', `/payments/query/${encodeURIComponent(String(item.data.reference))}`, token);
      return { status: 200, body: { ackReference, status: 'received' } };
    });
    expect((await control.send('PUT', `/webhooks/${keys.publicKey}`, { body: { url } })).status).toBe(200);

    const paid = await callApi('POST', '/payments/initiates', token, cardPayment({ publicKey: keys.publicKey }));
    expect(paid.body.data.code).toBe('S20');
    const otp = await callApi('POST', '/payments/validate', token, { publicKey: keys.publicKey, linkingReference: paid.body.data.payments.linkingReference, otp: '123456' });
    expect(otp.body.data.code).toBe('00');
    expect((await callApi('POST', '/payments/initiates', token, cardPayment({ publicKey: keys.publicKey, cardNumber: '4000000000000002' }))).body.data.code).toBe('S12');
    expect((await callApi('POST', '/payments/initiates', token, cardPayment({ publicKey: keys.publicKey, cardNumber: '4000000000000119' }))).body.data.code).toBe('S20');

    const view = await run(keys.publicKey);
    expect(view.steps.map((step: any) => [step.step, step.result])).toEqual([['success', 'pass'], ['duplicate', 'pass'], ['dispute', 'pass'], ['false-success', 'pass']]);

    const report = await reportWhen(keys.publicKey, (got) => got.verdict === 'ready');
    expect(statusOf(report)).toMatchObject(Object.fromEntries(REQUIRED.map((id) => [id, 'pass'])));
    expect(report.verdict).toBe('ready');
    expect(statusOf(report)['token-reused']).toBe('pass');
  });

  it('finds the integration that answers like the Odoo plugin not ready, each required check failed, with evidence that resolves', { timeout: 60_000 }, async () => {
    const keys = newKeys();
    const url = await receiver(async (item) => (item.eventType === 'dispute'
      ? { status: 500, body: { status: 'error', message: 'Unhandled event' } }
      : { status: 200, body: { status: 'success', message: 'Processed' } }));
    await exchange(keys);
    expect((await control.send('PUT', `/webhooks/${keys.publicKey}`, { body: { url } })).status).toBe(200);

    const reused = freshReference();
    const paid = await callApi('POST', '/payments/initiates', await exchange(keys), cardPayment({ publicKey: keys.publicKey, paymentReference: reused }));
    expect(paid.body.data.code).toBe('S20');
    const otp = await callApi('POST', '/payments/validate', await exchange(keys), { publicKey: keys.publicKey, linkingReference: paid.body.data.payments.linkingReference, otp: '123456' });
    expect(otp.body.data.code).toBe('00');
    // The same reference again: refused.
    expect((await callApi('POST', '/payments/initiates', await exchange(keys), cardPayment({ publicKey: keys.publicKey, paymentReference: reused }))).body.data.code).toBe('S18');

    // Nobody queries: the run waits for the merchant's clock to pass 30 s after its last step.
    let advanced = false;
    await run(keys.publicKey, async (view) => {
      if (advanced || view.steps.find((step: any) => step.step === 'false-success')?.answer === undefined) return;
      advanced = true;
      expect((await control.send('POST', `/clock/${keys.publicKey}/advance`, { body: { by: 'PT31S' } })).status).toBe(200);
    });

    const report = await reportWhen(keys.publicKey, (got) => REQUIRED.every((id) => statusOf(got)[id] === 'fail'));
    expect(report.verdict).toBe('not-ready');
    expect(statusOf(report)).toMatchObject(Object.fromEntries(REQUIRED.map((id) => [id, 'fail'])));
    expect(['warn', 'fail']).toContain(statusOf(report)['token-reused']);

    const check = (id: string) => report.checks.find((one: any) => one.id === id);
    for (const id of ['notification-acknowledged', 'notification-duplicate-acknowledged', 'notification-unknown-type-acknowledged', 'notification-verified']) {
      const { deliveryId } = check(id).evidence[0];
      const delivery = await control.send('GET', `/webhooks/deliveries/${deliveryId}`);
      expect(delivery.status, `${id}: ${deliveryId}`).toBe(200);
    }
    expect(check('notification-acknowledged').evidence[0].detail).toContain('ackReference');
    expect(check('unique-references').evidence).toEqual([expect.objectContaining({ paymentReference: reused })]);
    expect(check('outcomes-covered').evidence.map((item: any) => item.detail)).toContain('CARD: no failure met; send cardNumber 4000000000000002 (scenario card-declined)');
  });
});
