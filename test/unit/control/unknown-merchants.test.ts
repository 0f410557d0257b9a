import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { ControlClient, type ControlResponse } from '../../support/control.js';
import { ApiClient, cardPayment, freshReference, sandboxForTest } from '../../support/sandbox.js';

/**
 * The control operations that store something for the merchant their path
 * names (a notification URL, a fault, a triggered delivery, a clock) refuse
 * a key that is no merchant with 404, and store nothing for it: a made-up
 * key used to get records of its own, past the bound on merchants (issue 38,
 * point 9; docs/decisions.md#d42-webhook-urls-and-clocks-stored). A merchant
 * is a key pair the sandbox knows: made by the key exchange, a snapshot or
 * fixtures, and still one once a reset releases it.
 */

/** The keys a careless script or a hostile page sends: none is a merchant. */
const ODD_KEYS = ['not-a-key', '__proto__', 'constructor', 'SBTESTPUBK_\u202eevil', `SBTESTPUBK_${'x'.repeat(117)}`];

/** 1,500 keys in all, past the sandbox's bound of 1,000 merchants. */
const PROBES = [...ODD_KEYS, ...Array.from({ length: 1500 - ODD_KEYS.length }, (_, n) => `SBTESTPUBK_probe${String(n).padStart(6, '0')}`)];

const path = (publicKey: string, rest = '') => `/webhooks/${encodeURIComponent(publicKey)}${rest}`;
const clockPath = (publicKey: string) => `/clock/${encodeURIComponent(publicKey)}/advance`;

/** Each write a probe makes, as the control API takes it. */
const WRITES: Array<[string, (publicKey: string) => [method: 'PUT' | 'POST', path: string, body: unknown]]> = [
  ['PUT /webhooks/{publicKey}', (key) => ['PUT', path(key), { url: 'http://127.0.0.1:9/hook' }]],
  ['POST /webhooks/{publicKey}/faults', (key) => ['POST', path(key, '/faults'), { kind: 'duplicate' }]],
  ['POST /webhooks/{publicKey}/trigger', (key) => ['POST', path(key, '/trigger'), { eventType: 'transaction', paymentReference: 'SBREF-NONE' }]],
  ['POST /clock/{publicKey}/advance', (key) => ['POST', clockPath(key), { by: 'PT1H' }]],
];

let sandbox: Sandbox;
let control: ControlClient;
let api: ApiClient;

beforeAll(async () => {
  sandbox = await sandboxForTest({ maxMerchants: 1000 });
  control = await ControlClient.for(sandbox);
  api = await ApiClient.for(sandbox);
});
afterAll(() => sandbox.close());
afterEach(async () => {
  expect((await control.reset()).status).toBe(200);
});

/** Expects the refusal of a key that is no merchant: 404 in the control API's shape, saying how it becomes one. */
function expectNoMerchant(response: ControlResponse, what: string): void {
  expect(response.status, `${what}: ${JSON.stringify(response.body)}`).toBe(404);
  expect(response.body.error).toBe('NOT_FOUND');
  expect(response.body.message).toMatch(/is no merchant of this sandbox: exchange its keys first \(POST \/api\/v2\/encrypt\/keys\)/);
}

/** What the sandbox holds for `keys`, as GET /__sandbox/snapshot writes it: notification URLs, clocks, faults, deliveries. */
async function heldFor(keys: readonly string[]): Promise<Record<string, string[]>> {
  const snapshot = await control.send('GET', '/snapshot');
  expect(snapshot.status).toBe(200);
  const wanted = new Set(keys);
  const of = (rows: Array<{ publicKey: string }> | undefined) => (rows ?? []).map((row) => row.publicKey).filter((key) => wanted.has(key));
  const { webhooks, clocks, faults, deliveries, merchants } = snapshot.body;
  return { webhooks: of(webhooks), clocks: of(clocks), faults: of(faults), deliveries: of(deliveries), merchants: of(merchants) };
}

const NOTHING = { webhooks: [], clocks: [], faults: [], deliveries: [], merchants: [] };

describe('a key that is no merchant', () => {
  it('1,500 keys (__proto__, a bidi override, 128 characters, not-a-key): a notification URL and a clock advance each 404, nothing stored', { timeout: 60_000 }, async () => {
    const webhooksBefore = sandbox.store.webhooks().length;
    for (const key of PROBES) {
      expectNoMerchant(await control.send('PUT', path(key), { body: { url: 'http://127.0.0.1:9/hook' } }), `PUT webhook of ${key}`);
      expectNoMerchant(await control.send('POST', clockPath(key), { body: { by: 'PT1H' } }), `advance of ${key}`);
    }
    expect(sandbox.store.webhooks()).toHaveLength(webhooksBefore);
    expect(sandbox.store.clocks().filter((clock) => PROBES.includes(clock.publicKey))).toEqual([]);
    expect(await heldFor(PROBES)).toEqual(NOTHING);
  });

  it('every operation that stores something for the merchant refuses the odd keys alike, and names the key escaped', async () => {
    for (const [operation, request] of WRITES) {
      for (const key of ODD_KEYS) {
        const [method, target, body] = request(key);
        const refused = await control.send(method, target, { body });
        expectNoMerchant(refused, `${operation} of ${key}`);
        // A bidi override in the message would reorder the line a terminal prints.
        expect(refused.body.message).not.toMatch(/\u202e/);
      }
    }
    const bidi = await control.send('PUT', path(ODD_KEYS[3]!), { body: { url: 'http://127.0.0.1:9/hook' } });
    expect(bidi.body.message).toContain('SBTESTPUBK_\\u202eevil is no merchant');
    expect(await heldFor(ODD_KEYS)).toEqual(NOTHING);
  });

  it('reads and removals answer as for a merchant with nothing set, and store nothing', async () => {
    for (const key of ODD_KEYS) {
      const webhook = await control.send('GET', path(key));
      expect(webhook.status).toBe(200);
      expect(webhook.body).toMatchObject({ publicKey: key, url: null, faults: [] });
      const clock = await control.send('GET', `/clock/${encodeURIComponent(key)}`);
      expect(clock.status).toBe(200);
      expect(clock.body).toMatchObject({ publicKey: key, offsetMs: 0, pendingTotal: 0 });
      expect((await control.send('DELETE', path(key))).status).toBe(204);
      expect((await control.send('DELETE', path(key, '/faults'))).status).toBe(204);
    }
    expect(await heldFor(ODD_KEYS)).toEqual(NOTHING);
  });
});

describe('a merchant', () => {
  it('made by the key exchange: its notification URL, fault and clock are taken, and a trigger looks for the payment', async () => {
    const key = (await api.merchant()).publicKey;
    expect((await control.send('PUT', path(key), { body: { url: 'http://127.0.0.1:9/hook' } })).status).toBe(200);
    expect((await control.send('POST', path(key, '/faults'), { body: { kind: 'never', times: 1 } })).status).toBe(201);
    // The merchant is known: the refusal is the run's own, of the payment (a trigger that went through would send a notification).
    const triggered = await control.send('POST', path(key, '/trigger'), { body: { eventType: 'transaction', paymentReference: 'SBREF-NONE' } });
    expect(triggered.status).toBe(404);
    expect(triggered.body.message).toBe(`No payment with paymentReference SBREF-NONE for merchant ${key}`);
    expect((await control.send('POST', clockPath(key), { body: { by: 'PT1H' } })).status).toBe(200);
    expect(await heldFor([key])).toMatchObject({ webhooks: [key], clocks: [key], faults: [key] });
  });

  it('released by a reset is still one: its notification URL and clock are taken', async () => {
    const merchant = await api.merchant();
    expect((await control.reset()).status).toBe(200);
    expect(sandbox.store.merchant(merchant.publicKey)?.released).toBe(true);
    expect((await control.send('PUT', path(merchant.publicKey), { body: { url: 'http://127.0.0.1:9/hook' } })).status).toBe(200);
    expect((await control.send('POST', clockPath(merchant.publicKey), { body: { by: 'PT1M' } })).status).toBe(200);
  });

  it('made by a snapshot, or by a fixtures document, is one', async () => {
    const fromSnapshot = 'SBTESTPUBK_fromsnapshot01';
    const snapshot = (await control.send('GET', '/snapshot')).body;
    snapshot.merchants = [...snapshot.merchants, { publicKey: fromSnapshot, secretKey: 'SBTESTSECK_fromsnapshot01', createdAt: '2025-01-01T12:00:00.000Z' }];
    expect((await control.send('PUT', '/snapshot', { body: snapshot })).status).toBe(200);
    expect((await control.send('PUT', path(fromSnapshot), { body: { url: 'http://127.0.0.1:9/hook' } })).status).toBe(200);

    const fromFixtures = 'SBTESTPUBK_fromfixtures01';
    const loaded = await control.send('POST', '/fixtures', {
      body: {
        version: 1,
        merchant: { publicKey: fromFixtures, secretKey: 'SBTESTSECK_fromfixtures01' },
        // The document's merchant is known from its first step on, a control step too.
        steps: [
          { control: { method: 'POST', path: `/clock/${fromFixtures}/advance`, body: { by: 'PT2H' } } },
          { api: { method: 'POST', path: '/payments/initiates', body: { ...cardPayment({ paymentReference: freshReference() }), publicKey: fromFixtures } } },
        ],
      },
    });
    expect(loaded.status, JSON.stringify(loaded.body)).toBe(200);
    expect(sandbox.store.clock(fromFixtures)?.offsetMs).toBeGreaterThanOrEqual(2 * 3600_000);
  });
});
