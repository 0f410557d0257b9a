import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import type { Answer, Links, OperationContext } from '../domain/answer.js';
import { httpOutcome } from '../domain/answer.js';
import { authenticate, checkPublicKey, exchangeKeys, merchantOfPublicKey } from '../domain/authentication.js';
import { computeHash, createCheckoutLink } from '../domain/checkout.js';
import { parseExchangeKey, type Merchant } from '../domain/merchants.js';
import { createOrder, listOrders, updateOrders } from '../domain/orders.js';
import { cancelPayment, completePayment, initiatePayment, refundPayment, variantOf } from '../domain/payments.js';
import { queryPayment } from '../domain/status-query.js';
import { ApiError, methodNotAllowed, notFound } from '../errors.js';
import type { OperationId } from '../scenarios/catalogue.js';
import { SCENARIO_HEADER, type ScenarioSelector, type Selection } from '../scenarios/selector.js';
import type { Store } from '../store/store.js';
import { operationId, type HttpOperation } from '../validation/operations.js';
import { actionFor, delayMs, dropConnection, pause, type HungConnections } from './faults.js';
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
}

type Body = Record<string, unknown>;
type Operation = (ctx: OperationContext, body: Body, params: Record<string, string>) => Answer;

/** The handler of each operationId of openapi/payments-api.yaml but exchangeKeys, which has no merchant yet. */
const OPERATIONS: Record<Exclude<OperationId, 'exchangeKeys'>, Operation> = {
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
 * OpenAPI document. A request goes: journal -> JSON body -> authentication ->
 * validation against the document -> scenario selectors (header, override) ->
 * the operation -> group commit -> delay or fault -> the envelope.
 */
export function apiRouter(deps: ApiDependencies): Router {
  const router = express.Router();
  router.use(journalRecorder(deps));
  // Read every body as JSON, whatever its Content-Type says: the API speaks nothing else.
  // The bytes are kept so that a number sent where the spec wants a string is read exactly.
  router.use(
    express.json({
      type: (req) => !BODYLESS.has(req.method ?? ''),
      limit: '1mb',
      verify: (_req, res, buffer) => {
        (res as unknown as Response).locals.rawBody = buffer;
      },
    }),
  );
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

function handlersFor(id: OperationId, operation: HttpOperation, deps: ApiDependencies): RequestHandler[] {
  const validate = validateRequest(operation, { lenient: !deps.strict });
  if (id === 'exchangeKeys') {
    return [
      validate,
      select(deps, id),
      answer(deps, (req, res) => exchangeKeys(deps.store, String((req.body as Body).key), deps.now(), () => decide(deps, req, res, { operation: id, body: req.body as Body }))),
    ];
  }
  const allowBasic = (operation.security ?? []).some((set) => set.some((scheme) => scheme.type === 'http' && scheme.scheme === 'basic'));
  const providerBody = PROVIDER_ERRORS.has(id);
  // The hash endpoint has no security at the provider: without credentials its merchant is the body's publicKey.
  const optional = (operation.security ?? []).some((set) => set.length === 0);
  const authenticated: RequestHandler = (req, res, next) => {
    if (optional && req.headers.authorization === undefined) return next();
    const merchant = authenticate(deps.store, req.headers.authorization, allowBasic, deps.now());
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
  const run = OPERATIONS[id];
  return [authenticated, validate, checkBody, select(deps, id), answer(deps, (req, res) => run(context(deps, req, res), (req.body ?? {}) as Body, req.params as Record<string, string>))];
}

// The header and override selectors choose before the operation runs, so that
// a fault that must change nothing (drop-connection, hang) or a forced HTTP
// error happens before anything is stored.
function select(deps: ApiDependencies, operation: OperationId): RequestHandler {
  return (req, res, next) => {
    const body = (req.body ?? {}) as Body;
    const merchant = res.locals.merchant as Merchant | undefined;
    const selection = deps.selector.select(
      {
        operation,
        variant: operation === 'initiatePayment' ? variantOf(body) : undefined,
        publicKey: merchant?.publicKey ?? parseExchangeKey(String(body.key ?? ''))?.publicKey,
      },
      req.get(SCENARIO_HEADER),
    );
    res.locals.selection = selection;
    const early = actionFor(selection.action, selection.forced);
    res.locals.action = early;
    if (early?.fault === 'drop-connection') return dropConnection(req, res, early.fault);
    if (early?.fault === 'hang') return deps.hung.hold(req, res, early.fault);
    if (selection.forced?.then.http) throw httpOutcome(selection.forced);
    next();
  };
}

function decide(deps: ApiDependencies, req: Request, res: Response, facts: Parameters<OperationContext['decide']>[0]) {
  const selection = res.locals.selection as Selection;
  return selection.forced ?? deps.selector.engine.decide({ ...facts, headers: req.headers });
}

function context(deps: ApiDependencies, req: Request, res: Response): OperationContext {
  return {
    merchant: res.locals.merchant as Merchant,
    sent: (res.locals.sentBody ?? req.body ?? {}) as Body,
    store: deps.store,
    links: deps.links,
    now: deps.now,
    decide: (facts) => decide(deps, req, res, facts),
  };
}

// Answers only once every change the operation made is on disk (group commit),
// then carries out the delay or fault of the deciding rule or the selector.
function answer(deps: ApiDependencies, operate: (req: Request, res: Response) => Answer): RequestHandler {
  return async (req, res) => {
    const result = operate(req, res);
    await deps.store.commit();
    const action = actionFor((res.locals.selection as Selection).action, result.rule);
    res.locals.action = action;
    res.set('X-Sandbox-Scenario', result.scenario);
    if (action?.fault === 'hang') return deps.hung.hold(req, res, action.fault);
    if (action?.fault === 'drop-connection') return dropConnection(req, res, action.fault);
    const delay = delayMs(action?.delay, deps.selector.engine.random);
    if (delay > 0) res.set('X-Sandbox-Delay', String(delay));
    await pause(delay);
    if (action?.fault === 'lose-response') return dropConnection(req, res, action.fault);
    res.status(result.status).json(result.body);
  };
}
