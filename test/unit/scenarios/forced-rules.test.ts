import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { PaymentsApi, send, type Answer, type Origin } from '../../campaign/support/api.js';
import { finishedPayment, type Variant } from '../../campaign/support/finished-payment.js';
import { fetchOf } from '../../support/in-process.js';
import { sandboxForTest } from '../../support/sandbox.js';

/**
 * A rule forced by the X-Sandbox-Scenario header, by an override, or for
 * the whole sandbox (`startSandbox({scenario})`) chooses an outcome, never
 * past the state machine: initiating again a payment that is finished
 * answers S18 (README, "Choosing a scenario": a completed payment cannot be
 * completed again, whatever the header says), and the finished payment
 * stays as it was. Every rule of the catalogue that applies to
 * initiatePayment is tried, read from GET /__sandbox/scenarios. The
 * campaign's client sends the requests, served in process by
 * `sandbox.handle()`; `--scenario` of the executable:
 * test/campaign/forced-rules.test.ts.
 */

const TIMEOUT = 60_000;

interface Rule {
  name: string;
  operations: string[];
  match: { variant?: string[] };
  then: { code?: string; state?: string; http?: { status: number }; fault?: string; delay?: unknown };
}

/** Rules of the catalogue that force an outcome (not only a delay or a fault) on initiatePayment. */
async function initiateRules(origin: Origin): Promise<Rule[]> {
  const answer = await send(origin, 'GET', '/__sandbox/scenarios');
  expect(answer.status).toBe(200);
  const rules = (answer.body.scenarios as Rule[]).filter(
    (rule) => rule.operations.includes('initiatePayment') && (rule.then.code !== undefined || rule.then.state !== undefined || rule.then.http !== undefined),
  );
  expect(rules.map((rule) => rule.name)).toContain('account-pending');
  return rules;
}

const variantOf = (rule: Rule): Variant => (rule.match.variant?.[0] as Variant | undefined) ?? 'ACCOUNT';

/** What a forced rule may answer on a finished payment: S18 when it would store a payment; its own refusal otherwise. */
function expectRefusal(rule: Rule, answer: Answer): void {
  const seen = `${rule.name} answered ${answer.status} ${JSON.stringify(answer.body)}`;
  if (rule.then.state !== undefined && rule.then.fault === undefined) {
    expect(answer.status, seen).toBe(200);
    expect(answer.body?.data?.code, seen).toBe('S18');
  } else if (rule.then.http) {
    expect([rule.then.http.status, 200], seen).toContain(answer.status);
  }
}

describe('forced rules on a payment that is finished', () => {
  let sandbox: Sandbox;
  let served: Origin;
  let api: PaymentsApi;
  let rules: Rule[];

  beforeAll(async () => {
    sandbox = await sandboxForTest();
    served = fetchOf(sandbox);
    api = await PaymentsApi.as(served);
    rules = await initiateRules(served);
  });

  afterAll(async () => {
    await sandbox?.close();
  });

  afterEach(async () => {
    await send(served, 'DELETE', '/__sandbox/overrides');
  });

  it('X-Sandbox-Scenario: account-pending on the initiate of a SUCCESSFUL payment answers S18 and leaves it SUCCESSFUL', async () => {
    const { body, stored } = await finishedPayment(api, 'ACCOUNT');
    const again = await api.initiate(body, { 'X-Sandbox-Scenario': 'account-pending' });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body?.data?.code, JSON.stringify(again.body)).toBe('S18');
    expect(await api.payment(String(body.paymentReference))).toEqual(stored);
  });

  it('an override of account-pending answers S18 to the initiate of a SUCCESSFUL payment and leaves it SUCCESSFUL', async () => {
    const { body, stored } = await finishedPayment(api, 'ACCOUNT');
    const created = await send(served, 'POST', '/__sandbox/overrides', { body: { scenario: 'account-pending', publicKey: api.merchant.publicKey, times: 1 } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const again = await api.initiate(body);
    expect(again.body?.data?.code, JSON.stringify(again.body)).toBe('S18');
    expect(await api.payment(String(body.paymentReference))).toEqual(stored);
  });

  /** What is wrong when a forced initiate was not refused or changed the finished payment; undefined when all is well. */
  async function overwritten(rule: Rule, again: Answer, body: Record<string, unknown>, stored: Record<string, any>): Promise<string | undefined> {
    const now = await api.payment(String(body.paymentReference));
    try {
      expectRefusal(rule, again);
      expect(now, `${rule.name}: the payment after the forced initiate`).toEqual(stored);
      return undefined;
    } catch {
      return `${rule.name} (${variantOf(rule)}): answered ${again.status} ${JSON.stringify(again.body)}; payment now ${now?.status} ${now?.code} (was ${stored.status} ${stored.code})`;
    }
  }

  it('no rule forced by header overwrites a finished payment of the variant it applies to', { timeout: TIMEOUT }, async () => {
    const broken: string[] = [];
    for (const rule of rules) {
      const { body, stored } = await finishedPayment(api, variantOf(rule));
      const again = await api.initiate(body, { 'X-Sandbox-Scenario': rule.name });
      const problem = await overwritten(rule, again, body, stored);
      if (problem) broken.push(problem);
    }
    expect(broken).toEqual([]);
  });

  it('no rule forced by override overwrites a finished payment of the variant it applies to', { timeout: TIMEOUT }, async () => {
    const broken: string[] = [];
    for (const rule of rules) {
      const { body, stored } = await finishedPayment(api, variantOf(rule));
      const created = await send(served, 'POST', '/__sandbox/overrides', { body: { scenario: rule.name, publicKey: api.merchant.publicKey, times: 1 } });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const again = await api.initiate(body);
      await send(served, 'DELETE', `/__sandbox/overrides?publicKey=${encodeURIComponent(api.merchant.publicKey)}`);
      const problem = await overwritten(rule, again, body, stored);
      if (problem) broken.push(problem);
    }
    expect(broken).toEqual([]);
  });
});

describe('a rule forced on the whole sandbox', () => {
  let sandbox: Sandbox | undefined;

  afterEach(async () => {
    await sandbox?.close();
    sandbox = undefined;
  });

  it('startSandbox({scenario: "account-pending"}): initiating a SUCCESSFUL payment again answers S18 and leaves it SUCCESSFUL', async () => {
    sandbox = await sandboxForTest({ scenario: 'account-pending' });
    const api = await PaymentsApi.as(fetchOf(sandbox));
    const { body, stored } = await finishedPayment(api, 'ACCOUNT');
    const again = await api.initiate(body);
    expect(again.body?.data?.code, JSON.stringify(again.body)).toBe('S18');
    expect(await api.payment(String(body.paymentReference))).toEqual(stored);
  });
});
