import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalogue, type Sandbox } from '../../src/index.js';
import type { ExampleRequest, Scenario } from '../../src/scenarios/catalogue.js';
import { ApiClient, sandboxForTest, type TestMerchant } from '../support/sandbox.js';

const ROUTES: Record<ExampleRequest['operation'], ['GET' | 'POST' | 'PUT', string]> = {
  exchangeKeys: ['POST', '/encrypt/keys'],
  computeHash: ['POST', '/encrypt/hashs'],
  initiatePayment: ['POST', '/payments/initiates'],
  createCheckoutLink: ['POST', '/payments'],
  createOrder: ['POST', '/payments/order'],
  updateOrders: ['PUT', '/products/orders'],
  listOrders: ['GET', '/products/orders/publicKey/{publicKey}'],
  validatePayment: ['POST', '/payments/validate'],
  completeMomoPayment: ['POST', '/payments/momo/otp'],
  refundPayment: ['POST', '/payments/refund'],
  cancelPayment: ['POST', '/payments/cancel'],
};

const shipped = await loadCatalogue();
let sandbox: Sandbox;
let api: ApiClient;

beforeAll(async () => {
  sandbox = await sandboxForTest();
  api = await ApiClient.for(sandbox);
});
afterAll(() => sandbox.close());

/** Sends one example request as `merchant`, filling in publicKey and the last linkingReference seen. */
async function send(merchant: TestMerchant, request: ExampleRequest, linkingReference: string | undefined) {
  const [method, template] = ROUTES[request.operation];
  const path = template.replace('{publicKey}', merchant.publicKey);
  if (request.operation === 'exchangeKeys') return api.send(method, path, { key: `${merchant.secretKey}.${merchant.publicKey}` });
  const body = request.body && JSON.parse(JSON.stringify({ publicKey: merchant.publicKey, ...request.body }).replaceAll('$linkingReference', linkingReference ?? ''));
  const auth = request.operation === 'refundPayment' || request.operation === 'cancelPayment' ? merchant.basic : `Bearer ${merchant.token}`;
  return api.send(method, path, method === 'GET' ? undefined : body, auth);
}

describe('the shipped catalogue', () => {
  it('has a default rule for every operation', () => {
    for (const operation of Object.keys(ROUTES)) {
      const defaults = shipped.filter((scenario) => {
        const operations = [scenario.match.operation].flat();
        return operations.includes(operation as never) && !scenario.match.body && !scenario.match.payment && !scenario.match.headers;
      });
      expect(defaults.length, operation).toBeGreaterThan(0);
    }
  });

  it.each(shipped.map((scenario) => [scenario.name, scenario] as const))('%s: its example is answered as it says', async (name, scenario: Scenario) => {
    const merchant = await api.merchant();
    let linkingReference: string | undefined;
    for (const given of scenario.example.given ?? []) {
      const response = await send(merchant, given, linkingReference);
      expect(response.status, `given ${given.operation}`).toBe(200);
      linkingReference = response.body.data?.payments?.linkingReference ?? linkingReference;
    }
    const response = await send(merchant, scenario.example.request, linkingReference);
    const { expect: expected } = scenario.example;
    expect(response.status).toBe(expected.status);
    expect(response.headers['x-sandbox-scenario']).toBe(name);
    if (expected.code) expect(response.body.data.code).toBe(expected.code);
    if (expected.message) expect(response.body.data?.message ?? response.body.message).toBe(expected.message);
    if (expected.error) expect(response.body.error).toBe(expected.error);
  });
});

describe('loading a catalogue', () => {
  it('stops with a message naming the file and the entry of a bad rule', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'scenarios-'));
    const file = join(folder, 'team.yaml');
    await writeFile(file, 'scenarios:\n  - name: fine-rule\n    description: d\n    match: { operation: initiatePayment }\n    then: { code: "00", message: ok }\n    example: { request: { operation: initiatePayment }, expect: { status: 200 } }\n  - name: broken-rule\n    description: d\n    match: { operation: noSuchOperation }\n    then: { code: "00", message: ok }\n    example: { request: { operation: initiatePayment }, expect: { status: 200 } }\n');
    await expect(loadCatalogue([folder])).rejects.toThrow(`${file}: entry 1 ("broken-rule") /scenarios/1/match/operation`);
  });

  it('stops on a file that is not YAML, and on a name used twice', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'scenarios-'));
    await writeFile(join(folder, 'bad.yaml'), 'scenarios: [\n');
    await expect(loadCatalogue([folder])).rejects.toThrow(`${join(folder, 'bad.yaml')}: not YAML`);
    const twice = await mkdtemp(join(tmpdir(), 'scenarios-'));
    const rule = shipped.find((scenario) => scenario.name === 'otp-correct')!;
    const { source: _source, ...copy } = rule;
    await writeFile(join(twice, 'again.yaml'), JSON.stringify({ scenarios: [copy] }));
    await expect(loadCatalogue([join(rule.source, '..'), twice])).rejects.toThrow('"otp-correct" is already defined');
  });
});
