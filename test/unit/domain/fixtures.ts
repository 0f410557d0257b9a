import { expect } from 'vitest';
import { ApiError } from '../../../src/errors.js';
import type { Answer, OperationEnv, Write } from '../../../src/domain/answer.js';
import { OPERATIONS, type FactsFor } from '../../../src/domain/registry.js';
import type { Body } from '../../../src/domain/request.js';
import { linkingReferenceOf } from '../../../src/domain/merchants.js';
import type { OperationId } from '../../../src/model/operations.js';
import type { Merchant, Order, Payment } from '../../../src/model/records.js';
import { loadCatalogue } from '../../../src/scenarios/catalogue.js';
import { ScenarioEngine } from '../../../src/scenarios/engine.js';
import type { Scenario } from '../../../src/scenarios/scenario.js';
import type { Selection } from '../../../src/scenarios/selector.js';
import { Store } from '../../../src/store/store.js';
import { orderRecord } from '../../store/fixtures.js';
import { storedPayment } from '../scenarios/rules.js';

/**
 * Tiny hand-made fixtures for the unit tests of the operations
 * (src/domain/), run without HTTP: facts are built by the real factsOf over
 * an in-memory store, selections by hand from the shipped catalogue.
 */

export const NOW = '2026-01-01T00:00:00.000Z';
/** when the records put by a test were made: before NOW, so a test can tell kept timestamps from new ones */
export const BEFORE = '2025-06-01T08:00:00.000Z';

export const MERCHANT: Merchant = { publicKey: 'SBTESTPUBK_unitdomain01', secretKey: 'SBTESTSECK_unitdomain01', createdAt: BEFORE };
export const OTHER: Merchant = { publicKey: 'SBTESTPUBK_unitdomain02', secretKey: 'SBTESTSECK_unitdomain02', createdAt: BEFORE };

export const ENV: OperationEnv = {
  links: {
    authenticate: (l) => `http://sb/pages/authenticate/${l}`,
    checkout: (l) => `http://sb/pages/checkout/${l}`,
  },
  now: () => NOW,
  accountMinimum: '100.00',
  decide: (facts) => ENGINE.decide(facts),
};

/** The shipped catalogue, in the order its rules are tried. */
export const CATALOGUE: readonly Scenario[] = await loadCatalogue();

/** An engine over the shipped catalogue (no shipped rule chosen by values has a probability). */
export const ENGINE = new ScenarioEngine(CATALOGUE, () => 0);

/** The shipped rule of that name. */
export function scenario(name: string): Scenario {
  const found = CATALOGUE.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no shipped scenario ${name}`);
  return found;
}

/**
 * A selection made by hand: `rule` answers; `byValues` is the rule the
 * request's values would choose (`rule` unless forced); a reused reference
 * is answered by `reused` (the initiate's duplicate-reference by default).
 */
export function selection(rule: Scenario, options: { forced?: boolean; byValues?: Scenario; reused?: string } = {}): Selection {
  return {
    rule,
    forced: options.forced ?? false,
    byValues: options.byValues ?? rule,
    reusedReference: () => scenario(options.reused ?? 'duplicate-reference'),
  };
}

/** An in-memory store that knows MERCHANT (and OTHER). */
export async function newStore(): Promise<Store> {
  const store = await Store.open();
  store.putMerchant(MERCHANT);
  store.putMerchant(OTHER);
  return store;
}

/**
 * The facts of a request of MERCHANT, by the operation's own facts in the
 * registry. `sent` is the body as the client sent it (the body itself by default).
 */
export function factsFor<K extends OperationId>(
  store: Store,
  operation: K,
  body: Body,
  more: { params?: Record<string, string>; sent?: Body; merchant?: Merchant } = {},
): FactsFor<K> {
  const parts = { operation, body, sent: more.sent ?? body, params: more.params ?? {}, headers: {} };
  // The registry's entry of `operation` makes the facts its run reads; the compiler cannot follow a generic key to it.
  return OPERATIONS[operation].factsOf(parts, more.merchant ?? MERCHANT, false, store) as FactsFor<K>;
}

/** A payment of MERCHANT (SUCCESSFUL, by card, unless `fields` say otherwise), with its real linkingReference; put in `store` when given. */
export function payment(fields: Partial<Payment> = {}, store?: Store): Payment {
  const paymentReference = fields.paymentReference ?? 'SBREF-DOMAIN-1';
  const record = storedPayment({
    publicKey: MERCHANT.publicKey,
    paymentReference,
    linkingReference: linkingReferenceOf(MERCHANT, paymentReference),
    card: { bin: '512345', last4: '0008', token: 'SBCTK_unitdomaintoken0001' },
    createdAt: BEFORE,
    updatedAt: BEFORE,
    ...fields,
  });
  // `card: undefined` in `fields`: a payment with no card.
  for (const key of Object.keys(record) as Array<keyof Payment>) if (record[key] === undefined) delete record[key];
  store?.putPayment(record);
  return store ? store.payment(record.publicKey, paymentReference)! : record;
}

/** An order of MERCHANT (or of the merchant `publicKey` names) with its items, put in `store`. */
export function order(store: Store, paymentReference: string, items: Array<Pick<Order['items'][number], 'orderId' | 'amount' | 'productId'>>, publicKey = MERCHANT.publicKey): Order {
  const record: Order = {
    ...orderRecord(publicKey, paymentReference),
    items: items.map((item) => ({ currency: 'NGN', productDescription: `item ${item.orderId}`, createdAt: BEFORE, updatedAt: BEFORE, ...item })),
    createdAt: BEFORE,
    updatedAt: BEFORE,
  };
  store.putOrder(record);
  return record;
}

/** Everything the store holds, to check that an operation changed none of it. */
export function contents(store: Store): string {
  return JSON.stringify([store.merchants(), ...[MERCHANT, OTHER].map((m) => [store.payments(m.publicKey), store.orders(m.publicKey)])]);
}

/** Runs an operation and checks that it stored nothing itself (the answer's writes are the caller's to store). */
export function untouched<T>(store: Store, run: () => T): T {
  const before = contents(store);
  try {
    return run();
  } finally {
    expect(contents(store)).toBe(before);
  }
}

/** The ApiError `run` throws; fails the test when it throws none. */
export function thrown(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error('expected an ApiError, but nothing was thrown');
}

/** The one payment an answer (or a customer's step) writes; fails unless it writes exactly that. */
export function onePayment(answer: { writes: readonly Write[] }): Payment {
  expect(answer.writes.map((write) => write.kind)).toEqual(['payment']);
  return (answer.writes[0] as Extract<Write, { kind: 'payment' }>).payment;
}

/** The envelope's code and message, and the answer's scenario, reason and number of writes, side by side. */
export const summary = (answer: Answer) => ({
  code: answer.body.data.code,
  message: answer.body.data.message,
  scenario: answer.scenario,
  reason: answer.reason,
  writes: answer.writes.length,
});
