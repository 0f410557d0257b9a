import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { loadCatalogue } from '../../../src/scenarios/catalogue.js';
import { appliesTo, matches, ScenarioEngine, type Facts } from '../../../src/scenarios/engine.js';
import type { Condition } from '../../../src/scenarios/scenario.js';
import { answer, rule, storedPayment } from './rules.js';

/** The engine on its own: which rule the values of a request choose (docs/design.md, "How an outcome is chosen"), without HTTP. */

const NEVER = () => {
  throw new Error('random() was called');
};

/** The facts of an initiate of `variant` with `body`. */
const initiate = (variant: Facts['variant'], body: Record<string, unknown> = {}, more: Partial<Facts> = {}): Facts => ({
  operation: 'initiatePayment',
  variant,
  body: { paymentType: variant, ...body },
  headers: {},
  ...more,
});

/** True when a rule with this one body condition on `field` matches a body holding `value` (left out when undefined). */
const bodyHolds = (condition: Condition, value: unknown, field = 'amount'): boolean =>
  matches(rule('condition', { operation: 'initiatePayment', body: { [field]: condition } }, answer('00')), {
    operation: 'initiatePayment',
    body: value === undefined ? {} : { [field]: value },
    headers: {},
  });

describe('decide', () => {
  const declined = rule('declined', { operation: 'initiatePayment', variant: ['CARD'], body: { cardNumber: { equals: '4000000000000002' } } }, answer('S12'));
  const anyCard = rule('any-card', { operation: 'initiatePayment', variant: ['CARD'] }, answer('S20'));
  const account = rule('account', { operation: 'initiatePayment', variant: ['ACCOUNT'] }, answer('20'));

  it('chooses the first rule that matches, in catalogue order', () => {
    const engine = new ScenarioEngine([declined, anyCard, account], NEVER);
    expect(engine.decide(initiate('CARD', { cardNumber: '4000000000000002' })).name).toBe('declined');
    expect(engine.decide(initiate('CARD', { cardNumber: '5399838383838381' })).name).toBe('any-card');
    expect(engine.decide(initiate('ACCOUNT')).name).toBe('account');
    // The same rules the other way round: the broader rule now comes first and wins.
    const reversed = new ScenarioEngine([anyCard, declined, account], NEVER);
    expect(reversed.decide(initiate('CARD', { cardNumber: '4000000000000002' })).name).toBe('any-card');
  });

  it('never chooses an explicit rule by the values, even one that comes first and matches', () => {
    const forced = rule('forced-failure', { operation: 'initiatePayment' }, answer('S12'), true);
    const engine = new ScenarioEngine([forced, anyCard], NEVER);
    expect(engine.decide(initiate('CARD')).name).toBe('any-card');
    // It is in the catalogue all the same, for the header and the overrides.
    expect(engine.find('forced-failure')).toBe(forced);
  });

  it('never answers with a rule that only adds a delay or a fault', () => {
    const slow = rule('slow', { operation: 'initiatePayment' }, { delay: { ms: 1000 } });
    const drop = rule('drop', { operation: 'initiatePayment' }, { fault: 'drop-connection' });
    const engine = new ScenarioEngine([slow, drop, anyCard], NEVER);
    expect(engine.decide(initiate('CARD')).name).toBe('any-card');
  });

  it('throws when no rule matches: a catalogue without a default for the operation', () => {
    const engine = new ScenarioEngine([declined, anyCard], NEVER);
    expect(() => engine.decide(initiate('ACCOUNT'))).toThrow('no scenario matches initiatePayment');
    expect(() => engine.decide({ operation: 'refundPayment', body: {}, headers: {} })).toThrow('no scenario matches refundPayment');
  });

  it('holds a rule with a probability for that share of requests, by the random source it was given', () => {
    const flaky = rule('flaky', { operation: 'initiatePayment', probability: 0.2 }, { http: { status: 500, error: 'PROCESSING' } });
    expect(new ScenarioEngine([flaky, anyCard], () => 0.1).decide(initiate('CARD')).name).toBe('flaky');
    expect(new ScenarioEngine([flaky, anyCard], () => 0.9).decide(initiate('CARD')).name).toBe('any-card');
    // Strictly below the probability: 0.2 is outside a share of 0.2.
    expect(new ScenarioEngine([flaky, anyCard], () => 0.2).decide(initiate('CARD')).name).toBe('any-card');
  });

  it('draws a number only for a rule with a probability whose match holds, so a seed replays the same answers', () => {
    const flakyRefund = rule('flaky-refund', { operation: 'refundPayment', probability: 0.5 }, answer('S12'));
    const random = vi.fn(() => 0.1);
    const engine = new ScenarioEngine([flakyRefund, declined, anyCard], random);
    engine.decide(initiate('CARD'));
    expect(random).not.toHaveBeenCalled();
    expect(engine.decide({ operation: 'refundPayment', body: {}, headers: {} }).name).toBe('flaky-refund');
    expect(random).toHaveBeenCalledTimes(1);
  });
});

describe('chance and find', () => {
  it('chance is true at once for a rule without a probability, and rolls the others', () => {
    const plain = rule('plain', { operation: 'listOrders' }, answer('00'));
    const half = rule('half', { operation: 'listOrders', probability: 0.5 }, answer('00'));
    expect(new ScenarioEngine([], NEVER).chance(plain)).toBe(true);
    expect(new ScenarioEngine([], () => 0.49).chance(half)).toBe(true);
    expect(new ScenarioEngine([], () => 0.5).chance(half)).toBe(false);
  });

  it('find names a rule of the catalogue, or nothing', () => {
    const listed = rule('orders-listed', { operation: 'listOrders' }, answer('00'));
    const engine = new ScenarioEngine([listed]);
    expect(engine.find('orders-listed')).toBe(listed);
    expect(engine.find('orders-Listed')).toBeUndefined();
    expect(engine.find('')).toBeUndefined();
  });
});

describe('body conditions', () => {
  it('equals compares the text of the value, whatever its JSON type', () => {
    expect(bodyHolds({ equals: 'ACCOUNT' }, 'ACCOUNT', 'paymentType')).toBe(true);
    expect(bodyHolds({ equals: 'ACCOUNT' }, 'account', 'paymentType')).toBe(false);
    expect(bodyHolds({ equals: 'ACCOUNT' }, undefined, 'paymentType')).toBe(false);
    expect(bodyHolds({ equals: 233241234567 }, '233241234567', 'mobileNumber')).toBe(true);
    expect(bodyHolds({ equals: '233241234567' }, 233241234567, 'mobileNumber')).toBe(true);
    expect(bodyHolds({ equals: true }, 'true', 'flag')).toBe(true);
    expect(bodyHolds({ equals: true }, false, 'flag')).toBe(false);
    // An object or a list is no text: it equals nothing.
    expect(bodyHolds({ equals: '[object Object]' }, {}, 'flag')).toBe(false);
  });

  it('in holds for a value among those listed', () => {
    const condition: Condition = { in: ['5123450000000008', '4111111111111111'] };
    expect(bodyHolds(condition, '4111111111111111', 'cardNumber')).toBe(true);
    expect(bodyHolds(condition, '4000000000000002', 'cardNumber')).toBe(false);
    expect(bodyHolds(condition, undefined, 'cardNumber')).toBe(false);
    expect(bodyHolds({ in: [101, 102] }, '102', 'productId')).toBe(true);
  });

  it('matches tests a regular expression against the text', () => {
    const condition: Condition = { matches: '^SBREF-SLOW-' };
    expect(bodyHolds(condition, 'SBREF-SLOW-1', 'paymentReference')).toBe(true);
    expect(bodyHolds(condition, 'X-SBREF-SLOW-1', 'paymentReference')).toBe(false);
    expect(bodyHolds(condition, undefined, 'paymentReference')).toBe(false);
    expect(bodyHolds({ matches: '^[0-9]+$' }, 42, 'count')).toBe(true);
  });

  it('lessThan compares decimal amounts, not text', () => {
    const below100: Condition = { lessThan: '100.00' };
    expect(bodyHolds(below100, '99.99')).toBe(true);
    expect(bodyHolds(below100, '100.00')).toBe(false);
    expect(bodyHolds(below100, '100')).toBe(false);
    expect(bodyHolds(below100, '100.01')).toBe(false);
    // As text, "20" and "9.5" sort after "100.00".
    expect(bodyHolds(below100, '20')).toBe(true);
    expect(bodyHolds(below100, '9.5')).toBe(true);
    expect(bodyHolds(below100, 99.5)).toBe(true);
    expect(bodyHolds(below100, '1500.00')).toBe(false);
  });

  it('lessThan holds for no value that is not an amount', () => {
    const below100: Condition = { lessThan: '100.00' };
    expect(bodyHolds(below100, undefined)).toBe(false);
    expect(bodyHolds(below100, 'fifty')).toBe(false);
    expect(bodyHolds(below100, '50.001')).toBe(false);
    expect(bodyHolds(below100, '-5.00')).toBe(false);
    expect(bodyHolds(below100, '')).toBe(false);
  });

  it('exists says whether the field is there (null counts as absent)', () => {
    expect(bodyHolds({ exists: true }, 'POCKET-1', 'pocketReference')).toBe(true);
    expect(bodyHolds({ exists: true }, undefined, 'pocketReference')).toBe(false);
    expect(bodyHolds({ exists: true }, null, 'pocketReference')).toBe(false);
    expect(bodyHolds({ exists: false }, undefined, 'pocketReference')).toBe(true);
    expect(bodyHolds({ exists: false }, '', 'pocketReference')).toBe(false);
  });

  it('every key of a condition, and every condition of the body, must hold', () => {
    expect(bodyHolds({ exists: true, matches: '^4' }, '4111111111111111', 'cardNumber')).toBe(true);
    expect(bodyHolds({ exists: true, matches: '^4' }, '5123450000000008', 'cardNumber')).toBe(false);
    const small = rule('small-account', { operation: 'initiatePayment', body: { paymentType: { equals: 'ACCOUNT' }, amount: { lessThan: '100.00' } } }, answer('S7'));
    expect(matches(small, initiate('ACCOUNT', { amount: '99.99' }))).toBe(true);
    expect(matches(small, initiate('ACCOUNT', { amount: '150.00' }))).toBe(false);
    expect(matches(small, initiate('CARD', { amount: '99.99' }))).toBe(false);
  });
});

describe('header conditions', () => {
  const testMode = rule('test-mode', { operation: 'listOrders', headers: { 'X-Test-Mode': { equals: 'on' } } }, answer('00'));
  const facts = (headers: Facts['headers']): Facts => ({ operation: 'listOrders', body: {}, headers });

  it('look up the header by its lower-cased name, as the request facts hold them', () => {
    expect(matches(testMode, facts({ 'x-test-mode': 'on' }))).toBe(true);
    expect(matches(testMode, facts({ 'x-test-mode': 'off' }))).toBe(false);
    expect(matches(testMode, facts({}))).toBe(false);
  });

  it('can ask for a header to be absent', () => {
    const noAgent = rule('no-agent', { operation: 'listOrders', headers: { 'User-Agent': { exists: false } } }, answer('00'));
    expect(matches(noAgent, facts({}))).toBe(true);
    expect(matches(noAgent, facts({ 'user-agent': 'curl/8' }))).toBe(false);
  });
});

describe('payment conditions', () => {
  const validate = (payment?: ReturnType<typeof storedPayment>): Facts => ({ operation: 'validatePayment', body: { otp: '123456' }, headers: {}, payment });

  it('exists says whether the request names a stored payment', () => {
    const known = rule('known', { operation: 'validatePayment', payment: { exists: true } }, answer('00'));
    const unknown = rule('unknown', { operation: 'validatePayment', payment: { exists: false } }, answer('S12'));
    expect(matches(known, validate(storedPayment()))).toBe(true);
    expect(matches(known, validate())).toBe(false);
    expect(matches(unknown, validate())).toBe(true);
    expect(matches(unknown, validate(storedPayment()))).toBe(false);
  });

  it('status, method and scenario look at the stored payment, and fail without one', () => {
    const pendingCard = rule(
      'pending-card',
      { operation: 'validatePayment', payment: { status: { equals: 'PENDING' }, method: { in: ['CARD', 'ACCOUNT'] }, scenario: { equals: 'card-stays-pending' } } },
      answer('20'),
    );
    expect(matches(pendingCard, validate(storedPayment()))).toBe(true);
    expect(matches(pendingCard, validate(storedPayment({ method: 'ACCOUNT' })))).toBe(true);
    expect(matches(pendingCard, validate(storedPayment({ status: 'SUCCESSFUL' })))).toBe(false);
    expect(matches(pendingCard, validate(storedPayment({ method: 'MOMO' })))).toBe(false);
    expect(matches(pendingCard, validate(storedPayment({ scenario: 'card-succeeds-after-authentication' })))).toBe(false);
    expect(matches(pendingCard, validate())).toBe(false);
  });
});

describe('operations and variants', () => {
  const cardOrAccount = rule('card-or-account', { operation: ['initiatePayment', 'createCheckoutLink'], variant: ['CARD', 'ACCOUNT'] }, answer('00'));

  it('a rule matches the operations it names, and only the variants it lists', () => {
    expect(matches(cardOrAccount, initiate('CARD'))).toBe(true);
    expect(matches(cardOrAccount, initiate('ACCOUNT'))).toBe(true);
    expect(matches(cardOrAccount, initiate('MOMO'))).toBe(false);
    expect(matches(cardOrAccount, initiate(undefined))).toBe(false);
    expect(matches(cardOrAccount, { operation: 'refundPayment', body: {}, headers: {} })).toBe(false);
    const everyVariant = rule('initiated', { operation: 'initiatePayment' }, answer('00'));
    expect(matches(everyVariant, initiate('TRANSFER'))).toBe(true);
  });

  it('appliesTo looks at the operation and variant only, and takes a missing variant as any', () => {
    const declined = rule('declined', { operation: 'initiatePayment', variant: ['CARD'], body: { cardNumber: { equals: '4000000000000002' } } }, answer('S12'));
    expect(appliesTo(declined, 'initiatePayment', 'CARD')).toBe(true);
    expect(appliesTo(declined, 'initiatePayment', 'ACCOUNT')).toBe(false);
    expect(appliesTo(declined, 'initiatePayment')).toBe(true);
    expect(appliesTo(declined, 'validatePayment')).toBe(false);
    expect(appliesTo(cardOrAccount, 'createCheckoutLink')).toBe(true);
  });
});

// No rule of the values draws a number there; should one come to, this source holds it every time.
const shipped = new ScenarioEngine(await loadCatalogue(), () => 0.999);

describe('the shipped catalogue', () => {
  const body = { currency: 'NGN', country: 'NG', paymentReference: 'SBREF-UNIT-1' };

  it.each<[string, Facts]>([
    ['card-declined', initiate('CARD', { ...body, amount: '1500.00', cardNumber: '4000000000000002' })],
    ['card-authentication-required', initiate('CARD', { ...body, amount: '1500.00', cardNumber: '5399838383838381' })],
    ['amount-below-minimum', initiate('ACCOUNT', { ...body, amount: '99.99', accountNumber: '0123456789', bankCode: '058' })],
    ['account-pending', initiate('ACCOUNT', { ...body, amount: '100.00', accountNumber: '0123456789', bankCode: '058' })],
    ['duplicate-reference', initiate('ACCOUNT', { ...body, amount: '99.99' }, { payment: storedPayment({ method: 'ACCOUNT' }) })],
    ['otp-card-stays-pending', { operation: 'validatePayment', body: { otp: '123456' }, headers: {}, payment: storedPayment() }],
    // The 100.00 minimum is the account payment's alone (docs/decisions.md#d17-declined-card-keeps-reference).
    ['checkout-link-created', { operation: 'createCheckoutLink', body: { ...body, amount: '50.00' }, headers: {} }],
    ['order-created', { operation: 'createOrder', body: { ...body, amount: '50.00' }, headers: {} }],
    ['card-authentication-required', initiate('CARD', { ...body, amount: '50.00', cardNumber: '5399838383838381' })],
  ])('decides %s as the catalogue documents', (expected, facts) => {
    expect(shipped.decide(facts).name).toBe(expected);
  });

  it('is what the API reference says of the minimum amount: account initiates only', () => {
    const document = parse(readFileSync(new URL('../../../openapi/payments-api.yaml', import.meta.url), 'utf8'));
    const row = (document.info.description as string).split('\n').find((line) => line.includes('below `100.00`'));
    expect(row).toContain('initiate `ACCOUNT`; checkout links, orders and other payments take any amount above zero');
  });
});
