import express, { type RequestHandler, type Request, type Response, type Router } from 'express';
import type { Journal } from '../control/journal.js';
import { httpOutcome, type Answer, type Links, type Operation, type OperationEnv, type Write } from '../domain/answer.js';
import { authenticateMerchant, checkPublicKey, exchangeKey, exchangeKeys, merchantOfPublicKey } from '../domain/authentication.js';
import { computeHash, createCheckoutLink } from '../domain/checkout.js';
import { commitWrites } from '../domain/commit.js';
import { createOrder, listOrders, updateOrders } from '../domain/orders.js';
import { cancelPayment, completePayment, initiatePayment, refundPayment } from '../domain/payments.js';
import { factsOf, type Body } from '../domain/request.js';
import { REASON_HEADER } from '../domain/state-machine.js';
import { queryPayment } from '../domain/status-query.js';
import { ApiError, badRequest, methodNotAllowed, notFound } from '../errors.js';
import type { Merchant } from '../model/records.js';
import type { OperationId } from '../model/operations.js';
import { SCENARIO_HEADER, type ScenarioSelector } from '../scenarios/selector.js';
import type { Store } from '../store/store.js';
import { operationId, type HttpOperation } from '../validation/operations.js';
import { beginExchange, exchangeOf, sendJson, type ApiExchange } from './exchange.js';
import { delayMs, dropConnection, pause, type HungConnections } from './faults.js';
import { recordOnClose } from './journal-recorder.js';
import { headerSafe } from './render-error.js';
import type { RequestLog } from './request-log.js';
import { validateBody } from './validate.js';

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

/** The domain operation of each operationId of openapi/payments-api.yaml. */
const OPERATIONS: Record<OperationId, Operation> = {
  exchangeKeys,
  computeHash,
  initiatePayment,
  createCheckoutLink,
  createOrder,
  updateOrders,
  listOrders,
  validatePayment: completePayment,
  completeMomoPayment: completePayment,
  refundPayment,
  cancelPayment,
  queryPayment,
};

/** Methods whose body is ignored: clients such as the provider's Node SDK send one on GET (README decision). */
const BODYLESS = new Set(['GET', 'HEAD', 'DELETE']);

/** Refund and cancel answer credential and parameter errors in the provider's own body (README decisions). */
const PROVIDER_ERRORS = new Set<OperationId>(['refundPayment', 'cancelPayment']);

/** One operation of the document, ready to serve: how its path matches, and what its steps need to know. */
interface Route {
  id: OperationId;
  operation: HttpOperation;
  method: string;
  /** the path with `{name}` parameters, as the document writes it */
  path: string;
  /** for a path with parameters: its pattern and the parameters' names, in order */
  pattern?: RegExp;
  names: string[];
  /** refund and cancel take Basic credentials too (spec, Authentication rule 2) */
  allowBasic: boolean;
  /** the hash endpoint has no security at the provider: without credentials its merchant is the body's publicKey */
  optionalAuth: boolean;
  providerErrors: boolean;
}

/**
 * The Payments API v2 under `/api/v2`, one way through (README, "One way
 * through"): a request is journalled, routed to its operation, and then
 * goes authentication (from the headers) -> JSON body -> validation against
 * the document -> the merchant -> facts -> selection (header, override,
 * values; a fault that changes nothing happens here) -> the operation ->
 * commit of what it stores -> delay or lose-response -> the envelope. Each
 * step hands the next what it learnt, typed, on the request's exchange.
 */
export function apiRouter(deps: ApiDependencies): Router {
  const routes = deps.operations.map(routeOf);
  const byPath = new Map<string, Route[]>();
  for (const route of routes) byPath.set(route.path.toLowerCase(), [...(byPath.get(route.path.toLowerCase()) ?? []), route]);
  const parametric = routes.filter((route) => route.pattern !== undefined);
  const env: OperationEnv = { links: deps.links, now: deps.now };
  const router = express.Router();
  router.use((req, res, next) => {
    const exchange = beginExchange(res);
    recordOnClose(req, res, exchange, deps);
    serve(req, res, exchange).catch(next);
  });
  return router;

  async function serve(req: Request, res: Response, exchange: ApiExchange): Promise<void> {
    const { route, params } = routeFor(req);
    exchange.operation = route.id;
    const merchant = await readRequest(route, req, res, params);
    const body = validateBody(route.operation, req, res, exchange, { lenient: !deps.strict });
    const known = resolveMerchant(route, merchant, body);
    const newMerchant = deps.store.merchant(known.publicKey) === undefined;
    const parts = { operation: route.id, body, sent: (req.body ?? {}) as Body, params, headers: req.headers };
    const facts = (exchange.facts = factsOf(parts, known, newMerchant, deps.store));
    // The one decision about the request, before the operation runs: a fault that must
    // change nothing, or a forced HTTP error, happens here, before anything is stored.
    const header = req.headers[SCENARIO_HEADER];
    const selection = (exchange.selection = deps.selector.select(facts, typeof header === 'string' ? header : undefined));
    const fault = selection.action?.fault;
    if (fault === 'drop-connection') return dropConnection(req, exchange, fault);
    if (fault === 'hang') return deps.hung.hold(req, exchange, fault);
    if (selection.forced && selection.rule.then.http) throw httpOutcome(selection.rule);
    const answer = OPERATIONS[route.id](facts, selection, env);
    // A new merchant is remembered once a request it made is answered (README decision 2).
    await commitWrites(deps.store, newMerchant ? [merchantWrite(known), ...answer.writes] : answer.writes);
    return respond(req, res, exchange, answer);
  }

  // The route of the request's path and method. A known path asked with another method says which
  // method it takes; the key exchange keeps the spec's 404 `{error}` for anything but its POST (spec, endpoint 1).
  function routeFor(req: Request): { route: Route; params: Record<string, string> } {
    const path = req.path.length > 1 && req.path.endsWith('/') ? req.path.slice(0, -1) : req.path;
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    let candidates = byPath.get(path.toLowerCase());
    let params: Record<string, string> = {};
    if (!candidates) {
      for (const route of parametric) {
        const found = route.pattern!.exec(path);
        if (!found) continue;
        candidates = [...(candidates ?? []), route];
        params = Object.fromEntries(route.names.map((name, index) => [name, decodeParam(found[index + 1]!)]));
      }
    }
    const keyExchange = candidates?.[0]?.id === 'exchangeKeys' || /^\/encrypt\/keys\//i.test(path);
    const route = candidates?.find((candidate) => candidate.method === method);
    if (route) return { route, params };
    if (keyExchange) throw new ApiError(404, { error: 'Not Found' }, 'keys-not-found');
    if (candidates) throw methodNotAllowed(req.method, `${req.baseUrl}${req.path}`, candidates.map((candidate) => candidate.method));
    throw notFound(`No resource at ${req.method} ${req.baseUrl}${req.path}`);
  }

  // Credentials come from the headers, so a request without valid ones is refused before its body is
  // read: a stranger's megabyte costs neither parsing nor memory (README decision 22).
  async function readRequest(route: Route, req: Request, res: Response, params: Record<string, string>): Promise<Merchant | undefined> {
    let merchant: Merchant | undefined;
    if (route.id !== 'exchangeKeys' && !(route.optionalAuth && req.headers.authorization === undefined)) {
      merchant = authenticateMerchant(deps.store, req.headers.authorization, route.allowBasic, deps.now());
      checkPublicKey(merchant, params.publicKey);
    }
    await readBody(merchant === undefined ? strangersBody : jsonBody, req, res);
    return merchant;
  }

  // The merchant the request acts for: the credentials', checked against the body's publicKey; the
  // key exchange's key; or, for the hash endpoint without credentials, the body's publicKey.
  function resolveMerchant(route: Route, merchant: Merchant | undefined, body: Body): Merchant {
    if (route.id === 'exchangeKeys') return exchangeKey(deps.store, String(body.key), deps.now());
    if (merchant === undefined) return merchantOfPublicKey(deps.store, body.publicKey);
    checkPublicKey(merchant, body.publicKey, route.providerErrors);
    return merchant;
  }

  // The answer's headers, its delay or lose-response, then the envelope.
  async function respond(req: Request, res: Response, exchange: ApiExchange, answer: Answer): Promise<void> {
    res.setHeader('X-Sandbox-Scenario', answer.scenario);
    // A reference can carry any text: the reason is made header-safe as the error renderer's details are.
    if (answer.reason !== undefined) res.setHeader(REASON_HEADER, headerSafe({ reason: answer.reason }).reason!);
    const action = exchange.selection?.action;
    if (action) {
      const delay = delayMs(action.delay, deps.selector.engine.random);
      if (delay > 0) res.setHeader('X-Sandbox-Delay', String(delay));
      await pause(delay);
      if (action.fault === 'lose-response') return dropConnection(req, exchange, action.fault);
    }
    sendJson(res, 200, answer.body, req.method === 'HEAD');
  }
}

const merchantWrite = (merchant: Merchant): Write => ({ kind: 'merchant', merchant });

function routeOf(operation: HttpOperation): Route {
  const names: string[] = [];
  const source = operation.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{([^}]+)\}/g, (_whole, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return {
    id: operationId(operation) as OperationId,
    operation,
    method: operation.method.toUpperCase(),
    path: operation.path,
    pattern: names.length > 0 ? new RegExp(`^${source}/?$`, 'i') : undefined,
    names,
    allowBasic: (operation.security ?? []).some((set) => set.some((scheme) => scheme.type === 'http' && scheme.scheme === 'basic')),
    optionalAuth: (operation.security ?? []).some((set) => set.length === 0),
    providerErrors: PROVIDER_ERRORS.has(operationId(operation) as OperationId),
  };
}

// A path parameter as express decodes it.
function decodeParam(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw badRequest(`Failed to decode param '${value}'`);
  }
}

// Reads every body as JSON, whatever its Content-Type says: the API speaks nothing else.
// The bytes are kept so that a number sent where the spec wants a string is read exactly.
function bodyOfUpTo(limit: string): RequestHandler {
  return express.json({
    type: (req) => !BODYLESS.has(req.method ?? ''),
    limit,
    verify: (_req, res, buffer) => {
      const exchange = exchangeOf(res);
      if (exchange) exchange.raw = buffer;
    },
  });
}

/** The body of a merchant's request: up to 1 MB (README decision 21). */
const jsonBody = bodyOfUpTo('1mb');

/**
 * The body of a request no credentials vouch for (the key exchange, the hash
 * endpoint without a token): up to 64 KB, far more than a key pair or a
 * checkout payload, so that strangers cannot make the sandbox read megabytes.
 */
const strangersBody = bodyOfUpTo('64kb');

function readBody(parser: RequestHandler, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    void parser(req, res, (error?: unknown) => (error ? reject(error) : resolve()));
  });
}
