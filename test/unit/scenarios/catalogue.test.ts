import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inProcess } from '../../support/in-process.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalogue, type Sandbox } from '../../../src/index.js';
import { OPERATIONS } from '../../../src/domain/registry.js';
import { hasOutcome, type ExampleRequest, type Scenario } from '../../../src/scenarios/scenario.js';
import { OUTSIDE_EVENTS, type OperationId } from '../../../src/model/operations.js';
import { authorizationCodeOf } from '../../../src/domain/card-operations.js';
import type { Payment } from '../../../src/model/records.js';
import { ApiClient, sandboxForTest, type ApiResponse, type TestMerchant } from '../../support/sandbox.js';

/**
 * Every rule of the shipped catalogue, reached every way it can be: by the
 * values of its example (unless it is explicit), by the X-Sandbox-Scenario
 * header, and by an override set over the control API.
 */

// Each operation's method and path, as the registry names them (checked against the document by test/unit/domain/registry.test.ts).
const ROUTES = Object.fromEntries(
  Object.entries(OPERATIONS).map(([id, entry]) => [id, entry.route.split(' ') as ['GET' | 'POST' | 'PUT', string]]),
) as Record<OperationId, ['GET' | 'POST' | 'PUT', string]>;

const shipped = await loadCatalogue();
const pendingPayment: Payment = {
  publicKey: 'SBTESTPUBK_catalogue01', paymentReference: 'SBREF-OUTSIDE-1', linkingReference: 'SBLNK_00000000000000000001', method: 'CHECKOUT',
  status: 'PENDING', code: '08', message: 'Pending', amount: '150.00', refundedAmount: '0.00', currency: 'NGN', country: 'NG', scenario: 'checkout-link-created',
  createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
};
let sandbox: Sandbox;
let api: ApiClient;

beforeAll(async () => {
  sandbox = await sandboxForTest({ seed: 'catalogue' });
  api = await ApiClient.for(sandbox);
});
afterAll(() => sandbox.close());

/** Sends one example request as `merchant`, filling in publicKey and the last linkingReference seen. */
function send(merchant: TestMerchant, example: ExampleRequest, linkingReference: string | undefined, headers: Record<string, string> = {}) {
  const [method, template] = ROUTES[example.operation as OperationId];
  // A subscription's billingId is its first payment's paymentReference; the batch search takes its batchId in the query.
  const path = (example.operation === 'searchTokenBulk' ? `${template}?batchId={batchId}` : template)
    .replace('{publicKey}', merchant.publicKey).replace(/\{(paymentReference|billingId)\}/, String(example.body?.paymentReference ?? '')).replace('{orderId}', String(example.body?.orderId ?? ''))
    .replace('{customerId}', String(example.body?.customerId ?? 'CUST-1'))
    .replace('{batchId}', String(example.body?.batchId ?? ''));
  const options = { headers, timeoutMs: 3000 };
  if (example.operation === 'exchangeKeys') return api.send(method, path, { key: `${merchant.secretKey}.${merchant.publicKey}` }, undefined, undefined, options);
  // A bulk token charge sends a JSON array: its example holds it under `batch`.
  const sent = example.operation === 'chargeTokenBulk' ? (example.body?.batch as object[]).map((item) => ({ publicKey: merchant.publicKey, ...item })) : { publicKey: merchant.publicKey, ...example.body };
  const body = example.body && JSON.parse(JSON.stringify(sent).replaceAll('$linkingReference', linkingReference ?? '').replaceAll('$authorizationCode', authorizationCodeOf(linkingReference ?? '')));
  const auth = example.operation === 'refundPayment' || example.operation === 'cancelPayment' ? merchant.basic : `Bearer ${merchant.token}`;
  return api.send(method, path, method === 'GET' ? undefined : body, auth, undefined, options);
}

/** Runs a rule's example on a fresh merchant; `arrange` runs after the `given` requests, just before the example request. */
async function replay(scenario: Scenario, how: { header?: boolean; arrange?: (merchant: TestMerchant) => Promise<void> } = {}) {
  const merchant = await api.merchant();
  let linkingReference: string | undefined;
  for (const given of scenario.example.given ?? []) {
    const response = await send(merchant, given, linkingReference);
    expect([200, 201], `given ${given.operation}`).toContain(response.status);
    linkingReference = response.body.data?.payments?.linkingReference ?? linkingReference;
  }
  await how.arrange?.(merchant);
  const response = await send(merchant, scenario.example.request, linkingReference, how.header ? { 'X-Sandbox-Scenario': scenario.name } : {});
  return { merchant, response };
}

function expectOutcome(scenario: Scenario, response: ApiResponse) {
  const { expect: expected } = scenario.example;
  expect(response.status).toBe(expected.status);
  if (expected.status === 0) return;
  // A rule that only delays leaves the outcome to the other rules; the others name themselves.
  if (hasOutcome(scenario)) expect(response.headers['x-sandbox-scenario']).toBe(scenario.name);
  // The bulk token charge's envelope has no `data`: its code and message are at the top.
  if (expected.code) expect((response.body.data ?? response.body).code).toBe(expected.code);
  if (expected.message) expect(response.body.data?.message ?? response.body.message).toBe(expected.message);
  if (expected.error) expect(response.body.error).toBe(expected.error);
  if (expected.field) expect(response.body.data).toHaveProperty(expected.field);
  const delay = scenario.then.delay;
  if (delay) {
    const ms = Number(response.headers['x-sandbox-delay']);
    if ('ms' in delay) expect(ms).toBe(delay.ms);
    else expect(ms >= delay.minMs && ms <= delay.maxMs, `${ms} ms`).toBe(true);
  }
}

// The rules of the API's operations are replayed over HTTP; those of the events outside it
// (the customer's steps, a settle over the control API) are decided here, and carried out by the pages' and the control API's tests.
const isApiRule = (scenario: Scenario) => [scenario.match.operation].flat().every((operation) => operation in ROUTES);
const rules = shipped.filter(isApiRule).map((scenario) => [scenario.name, scenario] as const);
const outside = shipped.filter((scenario) => !isApiRule(scenario)).map((scenario) => [scenario.name, scenario] as const);

describe('the shipped catalogue', () => {
  it('has a default rule for every operation', () => {
    for (const operation of Object.keys(ROUTES)) {
      const defaults = shipped.filter(
        (scenario) =>
          [scenario.match.operation].flat().includes(operation as never) &&
          !scenario.explicit && !scenario.match.body && !scenario.match.payment && !scenario.match.headers,
      );
      expect(defaults.length, operation).toBeGreaterThan(0);
    }
  });

  it('reaches every documented result code and HTTP error', () => {
    const reached = new Set(shipped.map((scenario) => scenario.then.code ?? `${scenario.then.http?.status} ${scenario.then.http?.message}`));
    for (const outcome of ['00', '20', 'S20', 'NIP', 'S12', 'S7', 'S18', '400 Bad Request', '400 Payment Type cannot be null', '401 Invalid Authentication Token',
      '403 Header Token Missing', '403 Confirm Merchant Environment', '404 Not Found', '500 Internal Server Error', '500 Transaction with reference exists']) {
      expect(reached, outcome).toContain(outcome);
    }
    const failures = new Set(shipped.filter((scenario) => scenario.then.code === 'S12').map((scenario) => scenario.then.message));
    expect(failures).toContain('Transaction Failed');
    expect([...failures].some((message) => /reference must be unique/.test(message!))).toBe(true);
  });

  it('decides every event outside the API (OUTSIDE_EVENTS) by a rule of its own', () => {
    for (const event of OUTSIDE_EVENTS) expect(outside.some(([, scenario]) => [scenario.match.operation].flat().includes(event)), event).toBe(true);
  });

  it.each(outside)('%s: what the engine decides for the event of its example, on a pending payment or one in the state it matches', (_name, scenario) => {
    const { request, expect: expected } = scenario.example;
    // A rule that matches the card names it in its example's body (a subscription's charge: the card it charges).
    const card = request.body?.card as { bin: string; last4: string } | undefined;
    const status = scenario.match.payment?.status?.equals as Payment['status'] | undefined;
    const payment = status ? { ...pendingPayment, status } : pendingPayment;
    const decided = sandbox.engine.decide({ operation: request.operation, body: request.body ?? {}, headers: {}, payment, ...(card ? { card } : {}) });
    expect(decided.name).toBe(scenario.name);
    expect({ code: decided.then.code, message: decided.then.message }).toEqual({ code: expected.code, message: expected.message });
  });

  it.each(rules.filter(([, scenario]) => !scenario.explicit))('%s: reached by the values of its example', async (_name, scenario) => {
    expectOutcome(scenario, (await replay(scenario)).response);
  });

  it.each(rules)('%s: reached by the X-Sandbox-Scenario header', async (_name, scenario) => {
    expectOutcome(scenario, (await replay(scenario, { header: true })).response);
  });

  it.each(rules)('%s: reached by an override for the next request', async (_name, scenario) => {
    // A rule with a probability holds only for a share of requests: the override waits for its turn (the seed is fixed).
    const tries = scenario.match.probability ? 40 : 1;
    let response: ApiResponse | undefined;
    for (let attempt = 0; attempt < tries; attempt += 1) {
      let id = '';
      ({ response } = await replay(scenario, {
        arrange: async (merchant) => {
          const created = await inProcess(sandbox).post('/__sandbox/overrides').send({ scenario: scenario.name, publicKey: merchant.publicKey, times: 1 });
          expect(created.status).toBe(201);
          id = created.body.id;
        },
      }));
      const left = await inProcess(sandbox).get('/__sandbox/overrides');
      const used = !left.body.overrides.some((override: { id: string }) => override.id === id);
      if (used) break;
      await inProcess(sandbox).delete(`/__sandbox/overrides/${id}`);
    }
    expectOutcome(scenario, response!);
  });
});

describe('loading a catalogue', () => {
  it('stops with a message naming the file and the entry of a bad rule', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'scenarios-'));
    const file = join(folder, 'team.yaml');
    await writeFile(file, 'scenarios:\n  - name: fine-rule\n    description: d\n    match: { operation: initiatePayment }\n    then: { code: "00", message: ok }\n    example: { request: { operation: initiatePayment }, expect: { status: 200 } }\n  - name: broken-rule\n    description: d\n    match: { operation: noSuchOperation }\n    then: { code: "00", message: ok }\n    example: { request: { operation: initiatePayment }, expect: { status: 200 } }\n');
    await expect(loadCatalogue([folder])).rejects.toThrow(`${file}: entry 1 ("broken-rule") /scenarios/1/match/operation`);
  });

  it('stops on a file that is not YAML, on a modifier that is not explicit, and on a name used twice', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'scenarios-'));
    await writeFile(join(folder, 'bad.yaml'), 'scenarios: [\n');
    await expect(loadCatalogue([folder])).rejects.toThrow(`${join(folder, 'bad.yaml')}: not YAML`);
    const modifier = await mkdtemp(join(tmpdir(), 'scenarios-'));
    await writeFile(join(modifier, 'slow.yaml'), 'scenarios:\n  - name: slow\n    description: d\n    match: { operation: listOrders }\n    then: { delay: { ms: 5 } }\n    example: { request: { operation: listOrders }, expect: { status: 200 } }\n');
    await expect(loadCatalogue([modifier])).rejects.toThrow('entry 0 ("slow")');
    const twice = await mkdtemp(join(tmpdir(), 'scenarios-'));
    const rule = shipped.find((scenario) => scenario.name === 'otp-correct')!;
    const { source: _source, ...copy } = rule;
    await writeFile(join(twice, 'again.yaml'), JSON.stringify({ scenarios: [copy] }));
    await expect(loadCatalogue([join(rule.source, '..'), twice])).rejects.toThrow('"otp-correct" is already defined');
  });
});

describe('the README', () => {
  it('lists every rule of the shipped catalogue in its catalogue table', async () => {
    const { readFile } = await import('node:fs/promises');
    const readme = await readFile(new URL('../../../README.md', import.meta.url), 'utf8');
    for (const scenario of shipped) expect(readme, scenario.name).toContain(`| \`${scenario.name}\` |`);
  });
});
