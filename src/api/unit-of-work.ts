import { httpOutcome, type Answer, type OperationEnv, type PayloadEnvelope, type Write } from '../domain/answer.js';
import { putWrites } from '../domain/commit.js';
import { prepareOperation } from '../domain/registry.js';
import type { Body } from '../domain/request.js';
import type { Merchant } from '../model/records.js';
import { SCENARIO_HEADER } from '../scenarios/selector.js';
import type { ApiDependencies } from './dependencies.js';
import type { ApiExchange, ApiRequest } from './exchange.js';
import { bindsMerchant, merchantOf } from './merchant.js';
import type { Route } from './routing.js';

/** A fault that must change nothing, chosen before the operation runs: the transport carries it out. */
export type FaultBeforeRun = 'drop-connection' | 'hang';

/**
 * One request's unit of work, from its merchant to the puts (docs/design.md, "One request, end to end", steps
 * 8-12), for the store's transaction: on a shared store it runs after every change other replicas committed.
 * @param merchant the credentials' merchant (readRequest), undefined when none were read
 * @param body     the validated body (validateBody)
 * @returns the operation's answer, its writes put; or the fault that must change nothing
 * @throws ApiError for a refused merchant, a forced HTTP error, or the operation's own refusal: nothing is stored
 */
export type UnitOfWork = (
  route: Route, request: ApiRequest, exchange: ApiExchange, merchant: Merchant | undefined, body: Body, params: Record<string, string>,
) => Answer | Answer<PayloadEnvelope> | FaultBeforeRun;

/** The unit of work over the sandbox's store, catalogue and clocks, made once. */
export function unitOfWork(deps: ApiDependencies): UnitOfWork {
  // Without a minimum in the catalogue, account payments take any amount above zero.
  const accountMinimum = deps.selector.engine.accountMinimum() ?? '0.01';
  const decide: OperationEnv['decide'] = (facts) => deps.selector.engine.decide(facts);
  return (route, request, exchange, merchant, body, params) => {
    const known = merchantOf(deps, route, merchant, body, params);
    const stored = deps.store.merchant(known.publicKey);
    const newMerchant = stored === undefined;
    const binds = bindsMerchant(route, stored, known);
    const parts = { operation: route.id, body, sent: (exchange.sent ?? {}) as Body, params, query: exchange.query, headers: request.headers };
    const prepared = prepareOperation(parts, known, newMerchant, deps.store);
    const facts = (exchange.facts = prepared.facts);
    // The one decision about the request, before the operation runs: a fault that must
    // change nothing, or a forced HTTP error, happens here, before anything is stored.
    const header = request.headers[SCENARIO_HEADER];
    const selection = (exchange.selection = deps.selector.select(facts, typeof header === 'string' ? header : undefined));
    const fault = selection.action?.fault;
    if (fault === 'drop-connection' || fault === 'hang') return fault;
    if (selection.forced && selection.rule.then.http) throw httpOutcome(selection.rule);
    const env: OperationEnv = { links: deps.links, now: () => deps.clocks.now(known.publicKey), accountMinimum, decide };
    const answered = prepared.run(selection, env);
    // A new merchant, or one a key exchange bound again after a reset, is stored once its request is answered
    // (docs/decisions.md#d02-merchants-on-first-use, docs/decisions.md#d27-reset-releases-keys).
    putWrites(deps.store, binds ? [merchantWrite(known), ...answered.writes] : answered.writes, deps.outbox);
    return answered;
  };
}

const merchantWrite = (merchant: Merchant): Write => ({ kind: 'merchant', merchant });
