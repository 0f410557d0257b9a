import express, { type RequestHandler, type Response, type Router } from 'express';
import type { Answer, Links, OperationContext } from '../domain/answer.js';
import { httpOutcome } from '../domain/answer.js';
import { authenticateMerchant, checkPublicKey, exchangeKey, exchangeKeys, merchantOfPublicKey } from '../domain/authentication.js';
import { computeHash, createCheckoutLink } from '../domain/checkout.js';
import type { Merchant } from '../model/records.js';
import { createOrder, listOrders, updateOrders } from '../domain/orders.js';
import { cancelPayment, completePayment, initiatePayment, refundPayment } from '../domain/payments.js';
import { queryPayment } from '../domain/status-query.js';
import { REASON_HEADER } from '../domain/state-machine.js';
import type { RequestLog } from './request-log.js';
import { headerSafe } from './render-error.js';
import { ApiError, methodNotAllowed, notFound } from '../errors.js';
import type { OperationId } from '../model/operations.js';
import { SCENARIO_HEADER, type ScenarioSelector, type Selection } from '../scenarios/selector.js';
import type { Store } from '../store/store.js';
import { operationId, type HttpOperation } from '../validation/operations.js';
import { delayMs, dropConnection, pause, type HungConnections } from './faults.js';
import { factsOf, type RequestFacts } from './request-facts.js';
import { journalRecorder } from './journal-recorder.js';
import type { Journal } from '../control/journal.js';
import { validateRequest } from './validate.js';

/** What the Payments API router needs. */
export interface ApiDependencies {
  operations: HttpOperation[];
  store: Store;
  selector: ScenarioSelector;
  journal: Journal;
  hung: HungConnections;
  links: Links;
  now: () => string;
  /** refuse what only the provider's clients send, as the spec's types say (`--strict`) */
  strict: boolean;
  /** one line per request (`--log-level`, `--log-format`); absent: no log */
  log?: RequestLog;
}

type Body = Record<string, unknown>;
type Operation = (ctx: OperationContext, body: Body, params: Record<string, string>) => Answer;

/** The domain operation of each operationId of openapi/payments-api.yaml. */
const OPERATIONS: Record<OperationId, Operation> = {
  exchangeKeys: (ctx) => exchangeKeys(ctx),
  computeHash,
  initiatePayment,
  createCheckoutLink,
  createOrder,
  updateOrders,
  listOrders: (ctx) => listOrders(ctx),
  validatePayment: (ctx, body) => completePayment(ctx, 'validatePayment', body),
  completeMomoPayment: (ctx, body) => completePayment(ctx, 'completeMomoPayment', body),
  refundPayment,
  cancelPayment,
  queryPayment: (ctx, _body, params) => queryPayment(ctx, String(params.paymentReference)),
};

/** Methods whose body is ignored: clients such as the provider's Node SDK send one on GET (README decision). */
const BODYLESS = new Set(['GET', 'HEAD', 'DELETE']);

/** Refund and cancel answer credential and parameter errors in the provider's own body (README decisions). */
const PROVIDER_ERRORS = new Set<OperationId>(['refundPayment', 'cancelPayment']);

/**
 * The Payments API v2 under `/api/v2`: one route per operation of the
 * OpenAPI document. A request goes: journal -> authentication (from the
 * headers) -> JSON body -> validation against the document -> the body's
 * merchant -> selection (header, override, values) -> the operation -> group
 * commit -> delay or fault -> the envelope.
 */
export function apiRouter(deps: ApiDependencies): Router {
  const router = express.Router();
  router.use(journalRecorder(deps));
  const methods = new Map<string, string[]>();
  for (const operation of deps.operations) {
    const id = operationId(operation) as OperationId;
    const path = operation.path.replace(/\{([^}]+)\}/g, ':$1');
    const method = operation.method.toLowerCase() as 'get' | 'post' | 'put';
    methods.set(path, [...(methods.get(path) ?? []), operation.method.toUpperCase()]);
    router[method](path, (_req, res, next) => {
      res.locals.operation = id;
      next();
    }, ...handlersFor(id, operation, deps));
  }
  // A known path asked with another method says which method it takes; the key
  // exchange keeps the spec's 404 `{error}` for anything but its POST (spec, endpoint 1).
  methods.delete('/encrypt/keys');
  for (const [path, allowed] of methods) {
    router.all(path, (req) => {
      throw methodNotAllowed(req.method, `${req.baseUrl}${req.path}`, allowed);
    });
  }
  // The key exchange answers its 404 with `error` only (spec, endpoint 1).
  router.all(['/encrypt/keys', '/encrypt/keys/{*rest}'], () => {
    throw new ApiError(404, { error: 'Not Found' }, 'keys-not-found');
  });
  router.all('/{*rest}', (req) => {
    throw notFound(`No resource at ${req.method} ${req.baseUrl}${req.path}`);
  });
  return router;
}

// Read every body as JSON, whatever its Content-Type says: the API speaks nothing else.
// The bytes are kept so that a number sent where the spec wants a string is read exactly.
const bodyOfUpTo = (limit: string): RequestHandler =>
  express.json({
    type: (req) => !BODYLESS.has(req.method ?? ''),
    limit,
    verify: (_req, res, buffer) => {
      (res as unknown as Response).locals.rawBody = buffer;
    },
  });

/** The body of a merchant's request: up to 1 MB (README decision 21). */
const jsonBody = bodyOfUpTo('1mb');

/**
 * The body of a request no credentials vouch for (the key exchange, the hash
 * endpoint without a token): up to 64 KB, far more than a key pair or a
 * checkout payload, so that strangers cannot make the sandbox read megabytes.
 */
const strangersBody = bodyOfUpTo('64kb');

function handlersFor(id: OperationId, operation: HttpOperation, deps: ApiDependencies): RequestHandler[] {
  const validate = validateRequest(operation, { lenient: !deps.strict });
  const run = OPERATIONS[id];
  if (id === 'exchangeKeys') {
    const keyHolder: RequestHandler = (req, res, next) => {
      res.locals.merchant = exchangeKey(deps.store, String((req.body as Body).key), deps.now());
      next();
    };
    return [strangersBody, validate, keyHolder, select(deps, id), answer(deps, (ctx) => run(ctx, {}, {}))];
  }
  const allowBasic = (operation.security ?? []).some((set) => set.some((scheme) => scheme.type === 'http' && scheme.scheme === 'basic'));
  const providerBody = PROVIDER_ERRORS.has(id);
  // The hash endpoint has no security at the provider: without credentials its merchant is the body's publicKey.
  const optional = (operation.security ?? []).some((set) => set.length === 0);
  const authenticated: RequestHandler = (req, res, next) => {
    if (optional && req.headers.authorization === undefined) return next();
    const merchant = authenticateMerchant(deps.store, req.headers.authorization, allowBasic, deps.now());
    checkPublicKey(merchant, req.params.publicKey);
    res.locals.merchant = merchant;
    next();
  };
  const checkBody: RequestHandler = (req, res, next) => {
    const publicKey = (req.body as Body | undefined)?.publicKey;
    if (res.locals.merchant === undefined) res.locals.merchant = merchantOfPublicKey(deps.store, publicKey);
    else checkPublicKey(res.locals.merchant as Merchant, publicKey, providerBody);
    next();
  };
  // Credentials come from the headers, so a request without valid ones is refused before its body is
  // read: a stranger's megabyte costs neither parsing nor memory (README decision 22).
  const body: RequestHandler = (req, res, next) => (res.locals.merchant === undefined ? strangersBody : jsonBody)(req, res, next);
  return [authenticated, body, validate, checkBody, select(deps, id), answer(deps, (ctx, facts) => run(ctx, facts.body as Body, facts.params))];
}

// The one decision about a request, before the operation runs: the rule that
// answers (header, override, values), and the delay or fault. A fault that must
// change nothing (drop-connection, hang) or a forced HTTP error happens here,
// before anything is stored.
function select(deps: ApiDependencies, operation: OperationId): RequestHandler {
  return (req, res, next) => {
    const facts = factsOf(operation, res.locals.merchant as Merchant, (req.body ?? {}) as Body, req.params as Record<string, string>, req.headers, deps.store);
    res.locals.facts = facts;
    const selection = deps.selector.select(facts, req.get(SCENARIO_HEADER));
    res.locals.selection = selection;
    res.locals.action = selection.action;
    const fault = selection.action?.fault;
    if (fault === 'drop-connection') return dropConnection(req, res, fault);
    if (fault === 'hang') return deps.hung.hold(req, res, fault);
    if (selection.forced && selection.rule.then.http) throw httpOutcome(selection.rule);
    next();
  };
}

// Runs the operation; remembers a new merchant once its request is answered
// (a refused one creates none); answers only once every change is on disk
// (group commit); then carries out the selection's delay or lose-response.
function answer(deps: ApiDependencies, operate: (ctx: OperationContext, facts: RequestFacts & { params: Record<string, string> }) => Answer): RequestHandler {
  return async (req, res) => {
    const facts = res.locals.facts as RequestFacts;
    const selection = res.locals.selection as Selection;
    const ctx: OperationContext = {
      merchant: facts.merchant,
      sent: (res.locals.sentBody ?? req.body ?? {}) as Body,
      store: deps.store,
      links: deps.links,
      selection,
      now: deps.now,
    };
    const result = operate(ctx, { ...facts, params: req.params as Record<string, string> });
    if (!deps.store.merchant(facts.merchant.publicKey)) deps.store.putMerchant(facts.merchant);
    await deps.store.commit();
    res.set('X-Sandbox-Scenario', result.scenario);
    // A reference can carry any text: the reason is made header-safe as the error renderer's details are.
    if (result.reason !== undefined) res.set(headerSafe({ [REASON_HEADER]: result.reason }));
    const action = selection.action;
    const delay = delayMs(action?.delay, deps.selector.engine.random);
    if (delay > 0) res.set('X-Sandbox-Delay', String(delay));
    await pause(delay);
    if (action?.fault === 'lose-response') return dropConnection(req, res, action.fault);
    res.status(200).json(result.body);
  };
}
