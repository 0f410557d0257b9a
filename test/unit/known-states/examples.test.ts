import { readFile } from 'node:fs/promises';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox, SandboxOptions } from '../../../src/index.js';
import { ControlClient } from '../../support/control.js';
import { sandboxForTest } from '../../support/sandbox.js';

/**
 * The fixtures of examples/fixtures/, loaded as a user loads them (at start),
 * and checked against the JSON Schema the sandbox serves. The subscription
 * example, whose notifications go to a URL on loopback:
 * test/known-states/examples.test.ts.
 */

const EXAMPLES = new URL('../../../examples/fixtures/', import.meta.url);

const open: Sandbox[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((sandbox) => sandbox.close()));
});

async function started(options: SandboxOptions = {}): Promise<{ sandbox: Sandbox; control: ControlClient }> {
  const sandbox = await sandboxForTest(options);
  open.push(sandbox);
  return { sandbox, control: await ControlClient.for(sandbox) };
}

describe('the example fixtures', () => {
  it("merchant-day.yaml loads at start: a card, an account, a mobile-money and a transfer payment, a refund, a cancel and an order", async () => {
    const { sandbox } = await started({ fixtures: [new URL('merchant-day.yaml', EXAMPLES).pathname] });
    const publicKey = 'SBTESTPUBK_MerchantDay01';
    const states = Object.fromEntries(sandbox.store.payments(publicKey).map((payment) => [payment.paymentReference, [payment.method, payment.status]]));
    expect(Object.keys(states)).toEqual(['DAY-CARD-1', 'DAY-ACCT-1', 'DAY-MOMO-1', 'DAY-TRF-1', 'DAY-CARD-2', 'DAY-ORD-1']);
    expect(states['DAY-CARD-1']![1]).toBe('SUCCESSFUL');
    expect(states['DAY-CARD-2']![1]).toBe('CANCELLED');
    expect(Object.values(states).map(([method]) => method)).toEqual(['CARD', 'ACCOUNT', 'MOMO', 'TRANSFER', 'CARD', 'ORDER']);
    expect(sandbox.store.payment(publicKey, 'DAY-ACCT-1')?.refundedAmount).toBe('50.00');
    expect(sandbox.store.orders(publicKey)).toHaveLength(1);
  });

  it('validate against the served JSON Schema, and a broken copy does not', async () => {
    const { control } = await started();
    const served = await control.send('GET', '/schemas/fixtures.json');
    expect(served.status).toBe(200);
    const validate = new Ajv2020({ strict: false }).compile(served.body as object);
    for (const name of ['merchant-day.yaml', 'subscription.yaml']) {
      const document = parse(await readFile(new URL(name, EXAMPLES), 'utf8')) as { steps: Array<Record<string, unknown>> };
      expect(validate(document), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
      const { api: _api, control: _control, ...withoutRequest } = document.steps[0]!;
      expect(validate({ ...document, steps: [withoutRequest] })).toBe(false);
      expect(validate({ ...document, version: 2 })).toBe(false);
    }
  });
});
