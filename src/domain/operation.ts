import type { ApiError, BodyRefusals } from '../errors.js';
import type { Merchant } from '../model/records.js';
import type { Selection } from '../scenarios/selector.js';
import type { Store } from '../store/store.js';
import type { Answer, OperationEnv, PayloadEnvelope } from './answer.js';
import { referenceOf, sharedFacts, type Body, type RequestFacts, type RequestParts } from './request.js';

/**
 * The shape of one Payments API operation, as the registry
 * (src/domain/registry.ts) holds it: its route, the facts it derives from
 * its request, what it runs, the family of its refusals, and, for the few
 * the pipeline treats apart, the rules of its request (RequestRules)
 * (docs/design.md, "Adding an operation").
 */

/** A method and a path as openapi/payments-api.yaml writes them, e.g. `POST /payments/initiates`. */
export type Route = `${'GET' | 'POST' | 'PUT'} /${string}`;

/**
 * Whose body a refusal of the request's credentials or parameters takes:
 * the spec's (`spec`: 401 `{error}`, 400 INPUT), or the provider's own
 * `{"status":"ERROR","data":{"code":"S12",...}}` (`provider`: refund and
 * cancel, and the card operations of their family; external-api.yml,
 * 400Response1-11; docs/decisions.md#d31-refund-cancel-errors).
 */
export type ErrorFamily = 'spec' | 'provider';

/**
 * Where the merchant a request acts for comes from. `headers`: the
 * credentials of its Authorization header, as the document's security asks
 * (a bearer token; Basic too for refund and cancel, spec Authentication
 * rule 2; none needed by the hash endpoint and the bank list, whose merchant
 * is then the body's or the path's publicKey). `body-key`: the key
 * exchange's (spec, endpoint 1): no header is read, the merchant is the one
 * of the body's `<secret>.<public>` key, and one a reset released is bound
 * again to the key it brings (docs/decisions.md#d27-reset-releases-keys).
 */
export type Credentials = 'headers' | 'body-key';

/** What an operation's entry says about its request beyond its route, facts and run; each omitted for most. */
export interface RequestRules {
  /** where its merchant comes from; `headers` when omitted */
  credentials?: Credentials;
  /**
   * What any other method on its path, and any path below it, answers instead
   * of 405 or the provider's 404 (the key exchange's `{"error":"Not Found"}`;
   * docs/decisions.md#d23-unknown-paths)
   */
  pathNotFound?: () => ApiError;
  /** the spec's or the provider's own words for some refusals of its body (the initiate's paymentType, a subscription's fields) */
  bodyRefusals?: BodyRefusals;
}

/**
 * Derives what one operation needs beyond the shared facts, from the
 * validated request and the store (read only). Each call reads the body once;
 * the operation's run then reads only these facts.
 */
export type FactsOf<F> = (parts: RequestParts, shared: RequestFacts, store: Store) => F;

/**
 * Runs one operation: its facts and the selection (the rule chosen before it
 * ran: header, override, or the request's values; README, "Choosing a
 * scenario") in, one answer out.
 * @throws ApiError for an HTTP refusal or a rule with an HTTP outcome
 */
export type Run<F> = (facts: RequestFacts & F, selection: Selection, env: OperationEnv) => Answer | Answer<PayloadEnvelope>;

/** One operation of the registry. `F` is the shape of the facts it derives itself. */
export interface Operation<F extends object> extends RequestRules {
  /** its method and path in openapi/payments-api.yaml (a test checks the two agree) */
  route: Route;
  errors: ErrorFamily;
  /**
   * The body the shared facts are read from, when the operation takes more
   * than one shape of it (POST /payments/otp, docs/decisions.md#d51-card-otp); the body
   * as validated otherwise.
   */
  body?: (body: Body) => Body;
  /** the paymentReference the request names, when not the body's or the path's (request.ts, referenceOf) */
  reference?: (body: Body, params: Record<string, string>) => string | undefined;
  facts: FactsOf<F>;
  run: Run<F>;
}

/** Facts of an operation that needs none beyond the shared ones. */
export const noFacts: FactsOf<object> = () => ({});

/** One request's operation, ready to run: its facts, computed once, and its run bound to them. */
export interface PreparedOperation {
  /** the shared facts and the operation's own, one object: what the selection and the journal read */
  facts: RequestFacts;
  /**
   * Runs the operation on its facts.
   * @throws ApiError for an HTTP refusal or a rule with an HTTP outcome
   */
  run(selection: Selection, env: OperationEnv): Answer | Answer<PayloadEnvelope>;
}

/** An operation as the registry holds it: whatever its own facts, it prepares a request the same way. */
export interface RegisteredOperation extends RequestRules {
  route: Route;
  errors: ErrorFamily;
  /**
   * The shared facts (request.ts), then the operation's own, read once from
   * the validated request and the store.
   * @param merchant the merchant it acts for, stored or new (`newMerchant`)
   * @param store    read only: the payment, order or orders the request names
   */
  prepare(parts: RequestParts, merchant: Merchant, newMerchant: boolean, store: Store): PreparedOperation;
}

/**
 * One operation, its facts and its run checked against each other by the
 * compiler.
 * @param more the body's or the reference's reading, and the request's rules (RequestRules), for the few operations that need them
 */
export function operation<F extends object>(
  route: Route,
  errors: ErrorFamily,
  facts: FactsOf<F>,
  run: Run<F>,
  more: Pick<Operation<F>, 'body' | 'reference' | keyof RequestRules> = {},
): Operation<F> & RegisteredOperation & { factsOf: TypedFacts<F> } {
  const entry: Operation<F> = { route, errors, facts, run, ...more };
  const factsOf: TypedFacts<F> = (parts, merchant, newMerchant, store) => {
    const body = entry.body ? entry.body(parts.body) : parts.body;
    const reference = entry.reference ? entry.reference(body, parts.params) : referenceOf(body, parts.params);
    const shared = sharedFacts(parts, body, reference, merchant, newMerchant, store);
    return Object.assign(shared, facts(parts, shared, store));
  };
  return {
    ...entry,
    factsOf,
    prepare(parts, merchant, newMerchant, store) {
      const all = factsOf(parts, merchant, newMerchant, store);
      return { facts: all, run: (selection, env) => run(all, selection, env) };
    },
  };
}

/** The facts of one request of an operation, typed as its run reads them: the shared ones, then its own (RegisteredOperation.prepare). */
export type TypedFacts<F> = (parts: RequestParts, merchant: Merchant, newMerchant: boolean, store: Store) => RequestFacts & F;
