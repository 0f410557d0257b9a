import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/errors.js';
import { ScenarioEngine } from '../../../src/scenarios/engine.js';
import { OverrideBook } from '../../../src/scenarios/overrides.js';
import { ScenarioSelector, type Target } from '../../../src/scenarios/selector.js';
import { answer, rule, storedPayment } from './rules.js';

/**
 * The selectors in their documented precedence (README, "Choosing a
 * scenario"): the X-Sandbox-Scenario header, then an override (the
 * merchant's, then the sandbox's), then the values of the request.
 */

const MINE = 'SBTESTPUBK_mine00000001';
const THEIRS = 'SBTESTPUBK_theirs000002';
const NOW = '2025-03-14T09:20:11.204Z';
const ALL = ['initiatePayment', 'refundPayment', 'listOrders'] as const;

const CATALOGUE = [
  rule('declined', { operation: 'initiatePayment', variant: ['CARD'], body: { cardNumber: { equals: '4000000000000002' } } }, answer('S12')),
  rule('approved', { operation: 'initiatePayment' }, answer('00')),
  rule('refund-slowly', { operation: 'refundPayment' }, answer('00', { delay: { ms: 50 } })),
  rule('orders-listed', { operation: 'listOrders' }, answer('00')),
  rule('forced-failure', { operation: ['initiatePayment', 'refundPayment'] }, answer('S12'), true),
  rule('forced-success', { operation: 'initiatePayment' }, answer('00'), true),
  rule('card-only', { operation: 'initiatePayment', variant: ['CARD'] }, answer('S20'), true),
  rule('lossy', { operation: 'initiatePayment' }, answer('00', { fault: 'lose-response' }), true),
  rule('flaky', { operation: [...ALL], probability: 0.5 }, { http: { status: 500, message: 'Internal Server Error', error: 'PROCESSING' } }, true),
  rule('slow', { operation: [...ALL] }, { delay: { ms: 1000 } }, true),
  rule('drop', { operation: [...ALL] }, { fault: 'drop-connection' }, true),
];

/** A selector over the tiny catalogue, with its own override book; `random` is the engine's source of numbers. */
function selectorFor(random: () => number = () => 0.1) {
  return new ScenarioSelector(new ScenarioEngine(CATALOGUE, random), new OverrideBook());
}

const card = (cardNumber = '5399838383838381', publicKey = MINE): Target => ({
  operation: 'initiatePayment',
  variant: 'CARD',
  body: { paymentType: 'CARD', cardNumber },
  headers: {},
  publicKey,
});
const account = (publicKey = MINE): Target => ({ operation: 'initiatePayment', variant: 'ACCOUNT', body: { paymentType: 'ACCOUNT' }, headers: {}, publicKey });
const refund = (publicKey = MINE): Target => ({ operation: 'refundPayment', body: {}, headers: {}, publicKey });

/** The overrides left in the selector's book, as [scenario, requests left]. */
const left = (selector: ScenarioSelector) => selector.overrides.list().map((override) => [override.scenario, override.times]);

/** The error `run` throws (failing the test when it throws none). */
function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
}

describe('by the values of the request', () => {
  it('answers with the rule the values choose, not forced, with no action of its own', () => {
    const selection = selectorFor().select(card('4000000000000002'), undefined);
    expect(selection.rule.name).toBe('declined');
    expect(selection.byValues.name).toBe('declined');
    expect(selection.forced).toBe(false);
    expect(selection.action).toBeUndefined();
  });

  it("carries out the answering rule's own delay", () => {
    const selection = selectorFor().select(refund(), undefined);
    expect(selection.rule.name).toBe('refund-slowly');
    expect(selection.action).toEqual({ name: 'refund-slowly', delay: { ms: 50 } });
  });

  it('an empty header names no scenario', () => {
    const selection = selectorFor().select(card(), '');
    expect(selection.rule.name).toBe('approved');
    expect(selection.forced).toBe(false);
  });
});

describe('the X-Sandbox-Scenario header', () => {
  it('chooses the rule it names, explicit ones too, while byValues stays the rule of the values', () => {
    const selection = selectorFor().select(card('4000000000000002'), 'forced-success');
    expect(selection.rule.name).toBe('forced-success');
    expect(selection.forced).toBe(true);
    expect(selection.byValues.name).toBe('declined');
    expect(selection.action).toBeUndefined();
  });

  it('comes before the overrides, and leaves them unused', () => {
    const selector = selectorFor();
    selector.overrides.add({ scenario: 'forced-failure', publicKey: MINE, times: 1 }, NOW);
    selector.overrides.add({ scenario: 'lossy', times: 1 }, NOW);
    const selection = selector.select(card(), 'card-only');
    expect(selection.rule.name).toBe('card-only');
    expect(selection.forced).toBe(true);
    expect(left(selector)).toEqual([['forced-failure', 1], ['lossy', 1]]);
  });

  it('is a 400 INPUT when it names no rule of the catalogue', () => {
    const error = thrown(() => selectorFor().select(card(), 'no-such-rule'));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, body: { error: 'INPUT', message: expect.stringContaining('Unknown scenario no-such-rule') } });
  });

  it('names a long unknown header by its first 100 characters only', () => {
    const error = thrown(() => selectorFor().select(card(), 'x'.repeat(10_000)));
    expect((error as ApiError).body).toEqual({ error: 'INPUT', message: `Unknown scenario ${'x'.repeat(100)}… in X-Sandbox-Scenario: GET /__sandbox/scenarios lists them` });
  });

  it('is a 400 INPUT when the rule it names does not apply to the operation or the variant', () => {
    const byOperation = thrown(() => selectorFor().select(refund(), 'card-only'));
    expect(byOperation).toBeInstanceOf(ApiError);
    expect(byOperation).toMatchObject({ status: 400, body: { error: 'INPUT', message: 'Scenario card-only does not apply to refundPayment' } });
    const byVariant = thrown(() => selectorFor().select(account(), 'card-only'));
    expect(byVariant).toMatchObject({ status: 400, body: { error: 'INPUT', message: 'Scenario card-only does not apply to initiatePayment (ACCOUNT)' } });
  });

  it('chooses a rule with a probability every time', () => {
    const selection = selectorFor(() => 0.9).select(refund(), 'flaky');
    expect(selection.rule.name).toBe('flaky');
    expect(selection.forced).toBe(true);
  });

  it('naming a rule with only a delay keeps the rule of the values and adds the delay', () => {
    const selection = selectorFor().select(card('4000000000000002'), 'slow');
    expect(selection.rule.name).toBe('declined');
    expect(selection.byValues.name).toBe('declined');
    expect(selection.forced).toBe(false);
    expect(selection.action).toEqual({ name: 'slow', delay: { ms: 1000 } });
  });

  it("naming a rule with only a fault adds it to the answering rule's own delay", () => {
    const selection = selectorFor().select(refund(), 'drop');
    expect(selection.rule.name).toBe('refund-slowly');
    expect(selection.action).toEqual({ name: 'drop', delay: { ms: 50 }, fault: 'drop-connection' });
  });

  it("carries out the named rule's own fault", () => {
    const selection = selectorFor().select(card(), 'lossy');
    expect(selection.rule.name).toBe('lossy');
    expect(selection.action).toEqual({ name: 'lossy', fault: 'lose-response' });
  });
});

describe('overrides', () => {
  it("a merchant's own comes before a sandbox-wide one, which stays unused", () => {
    const selector = selectorFor();
    selector.overrides.add({ scenario: 'forced-success', times: 1 }, NOW);
    selector.overrides.add({ scenario: 'forced-failure', publicKey: MINE, times: 1 }, NOW);
    const selection = selector.select(card('4000000000000002'), undefined);
    expect(selection.rule.name).toBe('forced-failure');
    expect(selection.forced).toBe(true);
    expect(selection.byValues.name).toBe('declined');
    expect(left(selector)).toEqual([['forced-success', 1]]);
  });

  it('a sandbox-wide one applies to every merchant, and to a request that names none', () => {
    const selector = selectorFor();
    selector.overrides.add({ scenario: 'forced-failure' }, NOW);
    expect(selector.select(card(undefined, THEIRS), undefined).rule.name).toBe('forced-failure');
    expect(selector.select({ ...card(), publicKey: undefined }, undefined).rule.name).toBe('forced-failure');
    expect(selector.select(refund(MINE), undefined).rule.name).toBe('forced-failure');
  });

  it("another merchant's override leaves the request to its values", () => {
    const selector = selectorFor();
    selector.overrides.add({ scenario: 'forced-failure', publicKey: THEIRS }, NOW);
    const selection = selector.select(card(), undefined);
    expect(selection.rule.name).toBe('approved');
    expect(selection.forced).toBe(false);
  });

  it('is counted as used: with times, it answers that many requests, then the values do', () => {
    const selector = selectorFor();
    selector.overrides.add({ scenario: 'forced-failure', publicKey: MINE, times: 2 }, NOW);
    const names = Array.from({ length: 3 }, () => selector.select(card(), undefined).rule.name);
    expect(names).toEqual(['forced-failure', 'forced-failure', 'approved']);
    expect(selector.overrides.list()).toEqual([]);
  });

  it('whose rule does not apply to the operation is passed over, and not counted', () => {
    const selector = selectorFor();
    selector.overrides.add({ scenario: 'card-only', publicKey: MINE, times: 1 }, NOW);
    selector.overrides.add({ scenario: 'forced-failure', times: 1 }, NOW);
    expect(selector.select(refund(), undefined).rule.name).toBe('forced-failure');
    expect(selector.select(account(), undefined).rule.name).toBe('approved');
    expect(left(selector)).toEqual([['card-only', 1]]);
    expect(selector.select(card(), undefined).rule.name).toBe('card-only');
    expect(selector.overrides.list()).toEqual([]);
  });

  it('whose rule has a probability applies only when the draw comes up, and is counted only then', () => {
    const lucky = selectorFor(() => 0.1);
    lucky.overrides.add({ scenario: 'flaky', times: 1 }, NOW);
    expect(lucky.select(refund(), undefined).rule.name).toBe('flaky');
    expect(lucky.overrides.list()).toEqual([]);
    const unlucky = selectorFor(() => 0.9);
    unlucky.overrides.add({ scenario: 'flaky', times: 1 }, NOW);
    const selection = unlucky.select(refund(), undefined);
    expect(selection.rule.name).toBe('refund-slowly');
    expect(selection.forced).toBe(false);
    expect(left(unlucky)).toEqual([['flaky', 1]]);
  });

  it("with a delay and no scenario, keeps the values' rule and adds the delay under the override's name", () => {
    const selector = selectorFor();
    const slow = selector.overrides.add({ delay: { minMs: 200, maxMs: 800 }, times: 1 }, NOW);
    const selection = selector.select(card('4000000000000002'), undefined);
    expect(selection.rule.name).toBe('declined');
    expect(selection.forced).toBe(false);
    expect(selection.action).toEqual({ name: `override-${slow.id}`, delay: { minMs: 200, maxMs: 800 } });
    expect(selector.overrides.list()).toEqual([]);
  });

  it("with a scenario and a fault, answers with the rule and the override's fault", () => {
    const selector = selectorFor();
    selector.overrides.add({ scenario: 'forced-failure', fault: 'hang' }, NOW);
    const selection = selector.select(card(), undefined);
    expect(selection.rule.name).toBe('forced-failure');
    expect(selection.forced).toBe(true);
    expect(selection.action).toEqual({ name: 'forced-failure', fault: 'hang' });
  });

  it("its own delay comes before the rule's, and the rule's fault is kept", () => {
    const selector = selectorFor();
    selector.overrides.add({ scenario: 'lossy', delay: { ms: 5 } }, NOW);
    expect(selector.select(card(), undefined).action).toEqual({ name: 'lossy', delay: { ms: 5 }, fault: 'lose-response' });
  });

  it("naming a rule with only a delay keeps the values' rule, and joins the override's fault to the rule's delay", () => {
    const selector = selectorFor();
    selector.overrides.add({ scenario: 'slow', fault: 'drop-connection', publicKey: MINE }, NOW);
    const selection = selector.select(account(), undefined);
    expect(selection.rule.name).toBe('approved');
    expect(selection.forced).toBe(false);
    expect(selection.action).toEqual({ name: 'slow', delay: { ms: 1000 }, fault: 'drop-connection' });
  });
});

describe('the answer to a reused reference', () => {
  const catalogue = [
    rule('declined', { operation: 'initiatePayment', variant: ['CARD'], body: { cardNumber: { equals: '4000000000000002' } } }, answer('S12', { state: 'FAILED' })),
    rule('duplicate', { operation: 'initiatePayment', payment: { exists: true } }, answer('S18', { payments: 'empty' })),
    rule('approved', { operation: 'initiatePayment' }, answer('00', { state: 'PENDING' })),
    rule('forced-success', { operation: 'initiatePayment' }, answer('00', { state: 'SUCCESSFUL' }), true),
  ];
  const selector = new ScenarioSelector(new ScenarioEngine(catalogue, () => 0.1), new OverrideBook());
  const used = { payment: storedPayment() };

  it("is the values' rule when that creates no payment, whatever was forced", () => {
    const selection = selector.select({ ...account(), ...used }, 'forced-success');
    expect(selection.rule.name).toBe('forced-success');
    expect(selection.reusedReference().name).toBe('duplicate');
  });

  it('is the first rule of the values that creates no payment when the values chose one that does', () => {
    const selection = selector.select({ ...card('4000000000000002'), ...used }, undefined);
    expect(selection.rule.name).toBe('declined');
    expect(selection.reusedReference().name).toBe('duplicate');
  });
});
