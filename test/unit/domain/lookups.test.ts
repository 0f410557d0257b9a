import { describe, expect, it } from 'vitest';
import { listBanks, listNetworks } from '../../../src/domain/lookups.js';
import { ScenarioEngine } from '../../../src/scenarios/engine.js';
import { CATALOGUE, ENV, factsFor, newStore, scenario, selection } from './fixtures.js';

/** The banks and networks lookups (docs/decisions.md#d52-bank-lookups), without HTTP. */

describe('listBanks', () => {
  it('gives every bank the account-payment minimum of the catalogue, which a catalogue of its own can change', async () => {
    expect(new ScenarioEngine(CATALOGUE).accountMinimum()).toBe('100.00');
    const raised = CATALOGUE.map((rule) =>
      rule.name === 'amount-below-minimum' ? { ...rule, match: { ...rule.match, body: { ...rule.match.body, amount: { lessThan: '250.00' } } } } : rule,
    );
    const minimum = new ScenarioEngine(raised).accountMinimum()!;
    expect(minimum).toBe('250.00');
    const store = await newStore();
    const done = listBanks(factsFor(store, 'listBanks', {}), selection(scenario('banks-listed')), { ...ENV, accountMinimum: minimum });
    expect(done.status).toBe(201);
    expect(done.writes).toEqual([]);
    const banks = done.body.data.merchantBanks as Array<{ minimumAmount: number; bankCode: string }>;
    expect(banks.length).toBeGreaterThan(0);
    for (const bank of banks) expect(bank.minimumAmount, bank.bankCode).toBe(250);
    // A catalogue without the rule: no minimum of its own.
    expect(new ScenarioEngine(CATALOGUE.filter((rule) => rule.name !== 'amount-below-minimum')).accountMinimum()).toBeUndefined();
  });
});

describe('listNetworks', () => {
  it('answers the networks under data.networks, in the Node SDK\'s shape, and stores nothing', async () => {
    const store = await newStore();
    const done = listNetworks(factsFor(store, 'listNetworks', {}), selection(scenario('networks-listed')));
    expect(done.body.data.code).toBe('00');
    expect(done.body.data.networks).toContainEqual({ networks: 'MTN', uniqueKey: 'MTN', status: 'ACTIVE', voucherCode: false });
    expect(done.writes).toEqual([]);
  });
});
