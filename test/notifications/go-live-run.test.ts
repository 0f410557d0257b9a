import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { ControlClient } from '../support/control.js';
import { odooAnswer, Receiver, type ReceiverAnswer } from '../support/receiver.js';
import { ApiClient, sandboxForTest, type TestMerchant } from '../support/sandbox.js';

/**
 * A go-live run against two receivers on 127.0.0.1
 * (docs/decisions.md#d87-go-live-report): a careful one, which echoes the
 * ackReference and queries the status of each payment a `transaction` event
 * tells it of, and one that answers as the provider's Odoo plugin does
 * (200 `{"status":"success","message":"Processed"}`, 500 to a dispute,
 * never a status query). Every control answer is checked against
 * openapi/control-api.yaml. The wait for a status query that never comes
 * is ended by advancing the merchant's clock, not by waiting 30 s.
 */

let sandbox: Sandbox;
let api: ApiClient;
let control: ControlClient;

beforeAll(async () => {
  sandbox = await sandboxForTest();
  api = await ApiClient.for(sandbox);
  control = await ControlClient.for(sandbox);
});
afterAll(() => sandbox.close());

/** A careful receiver: for a `transaction` event, the payment's status queried with the merchant's token before it answers; each acknowledged. */
async function carefulReceiver(merchant: TestMerchant): Promise<{ url: string; queried: string[]; received: any[]; close(): Promise<void> }> {
  const queried: string[] = [];
  const received: any[] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (raw += chunk));
    req.on('end', async () => {
      const item = JSON.parse(raw).notificationItems[0].notificationRequestItem;
      received.push(item);
      if (item.eventType === 'transaction') {
        const status = await api.as(merchant, 'GET', `/payments/query/${encodeURIComponent(String(item.data.reference))}`);
        queried.push(`${String(item.data.reference)} ${String(status.body.data.code)}`);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ackReference: req.headers['x-expected-ack-reference'], status: 'received' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`;
  return { url, queried, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A new merchant whose notification URL is `url`. */
async function withUrl(url: string): Promise<TestMerchant> {
  const merchant = await api.merchant();
  const set = await control.send('PUT', `/webhooks/${merchant.publicKey}`, { body: { url } });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
  return merchant;
}

/** Starts a run of the merchant: 202 with its id. */
async function startRun(merchant: TestMerchant): Promise<string> {
  const started = await control.send('POST', `/go-live/${merchant.publicKey}/runs`);
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  expect(started.body).toEqual({ id: expect.stringMatching(/^run_[0-9a-f]{12}$/), status: 'running' });
  return started.body.id;
}

/** The run once `until` holds of it, asked every 100 ms. */
async function runWhen(merchant: TestMerchant, id: string, until: (run: any) => boolean): Promise<any> {
  for (let tries = 0; tries < 150; tries += 1) {
    const got = await control.send('GET', `/go-live/${merchant.publicKey}/runs/${id}`);
    expect(got.status).toBe(200);
    if (until(got.body)) return got.body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`run ${id} never came to the state awaited`);
}

const sentAll = (run: any) => run.steps.every((step: any) => step.answer !== undefined);
const results = (run: any) => run.steps.map((step: any) => `${step.step} ${step.result}`);
const reportOf = async (merchant: TestMerchant) => {
  const report = await control.send('GET', `/go-live/${merchant.publicKey}`);
  expect(report.status).toBe(200);
  return Object.fromEntries(report.body.checks.map((check: any) => [check.id, check.status]));
};

describe('a careful receiver', () => {
  it('passes every step; the run is done once both payments were queried, and its deliveries are kept like others', async () => {
    const merchant = await api.merchant();
    const careful = await carefulReceiver(merchant);
    try {
      const set = await control.send('PUT', `/webhooks/${merchant.publicKey}`, { body: { url: careful.url } });
      expect(set.status).toBe(200);
      const id = await startRun(merchant);
      const run = await runWhen(merchant, id, (got) => got.status === 'done');
      expect(results(run)).toEqual(['success pass', 'duplicate pass', 'dispute pass', 'false-success pass']);
      expect(run.steps[3].detail).toContain('it answers S12');
      expect(careful.queried).toEqual([`GOLIVE-${id}-PAID 00`, `GOLIVE-${id}-PAID 00`, `GOLIVE-${id}-FAILED S12`]);
      expect(careful.received.map((item) => item.eventType)).toEqual(['transaction', 'transaction', 'dispute', 'transaction']);
      expect(careful.received[1].eventId).toBe(careful.received[0].eventId);
      expect(run.steps.map((step: any) => step.answer.ackReference)).toEqual(run.steps.map(() => expect.stringMatching(/^ack_/)));

      for (const step of run.steps) {
        const delivery = await control.send('GET', `/webhooks/deliveries/${step.deliveryId}`);
        expect(delivery.status).toBe(200);
        expect(delivery.body).toMatchObject({ run: { id, step: step.step }, state: 'delivered', paymentReference: step.paymentReference });
        expect(delivery.body.attempts).toHaveLength(1);
      }

      const checks = await reportOf(merchant);
      expect(checks).toMatchObject({
        'notification-acknowledged': 'pass', 'notification-duplicate-acknowledged': 'pass', 'notification-unknown-type-acknowledged': 'pass', 'notification-verified': 'pass',
        // The run's payments are its own: they count in no other check.
        'unique-references': 'not-exercised', 'outcomes-covered': 'not-exercised',
      });
    } finally {
      await careful.close();
    }
  });
});

describe('a receiver that answers as the provider\'s Odoo plugin', () => {
  it('fails every step, is never retried, and the run ends when the merchant\'s clock is advanced past its 30 s', async () => {
    const odoo = await Receiver.start((_headers, count): ReceiverAnswer => (count === 3 ? { status: 500, body: '{"error":"unknown event"}' } : odooAnswer()));
    try {
      const merchant = await withUrl(odoo.url);
      const id = await startRun(merchant);
      const run = await runWhen(merchant, id, sentAll);
      expect(run.status).toBe('running');
      expect(results(run)).toEqual(['success fail', 'duplicate fail', 'dispute fail', 'false-success fail']);
      expect(run.steps[0].detail).toMatch(/^not acknowledged: HTTP 200 without an ackReference/);
      expect(run.steps[2].detail).toMatch(/^not acknowledged: HTTP 500: only a 200 counts/);
      expect(run.steps[0].answer).toEqual({ status: 200, ms: expect.any(Number) });
      expect(odoo.received.map((got) => got.item.eventType)).toEqual(['transaction', 'transaction', 'dispute', 'transaction']);

      const again = await control.send('POST', `/go-live/${merchant.publicKey}/runs`);
      expect(again.status).toBe(409);
      expect(again.body).toEqual({ message: `go-live run ${id} of merchant ${merchant.publicKey} is still running: follow it with GET /__sandbox/go-live/${merchant.publicKey}/runs/${id}`, error: 'CONFLICT' });

      // Past the wait, and past every retry of the current schedule: nothing more is sent.
      const advanced = await control.send('POST', `/clock/${merchant.publicKey}/advance`, { body: { by: 'PT2H' } });
      expect(advanced.status).toBe(200);
      const done = await control.send('GET', `/go-live/${merchant.publicKey}/runs/${id}`);
      expect(done.body).toMatchObject({ status: 'done', finishedAt: expect.any(String) });
      expect(done.body.steps[3].detail).toMatch(/; the payment's status was not queried within 30 s$/);
      expect(odoo.received).toHaveLength(4);
      for (const step of done.body.steps) {
        const delivery = await control.send('GET', `/webhooks/deliveries/${step.deliveryId}`);
        expect(delivery.body).toMatchObject({ state: 'undelivered', run: { id, step: step.step } });
        expect(delivery.body.attempts).toHaveLength(1);
      }

      const checks = await reportOf(merchant);
      expect(checks).toMatchObject({
        'notification-acknowledged': 'fail', 'notification-duplicate-acknowledged': 'fail', 'notification-unknown-type-acknowledged': 'fail', 'notification-verified': 'fail',
        'unique-references': 'not-exercised', 'outcomes-covered': 'not-exercised',
      });
      // Another run may start now.
      expect((await control.send('POST', `/go-live/${merchant.publicKey}/runs`)).status).toBe(202);
    } finally {
      await odoo.close();
    }
  });
});
