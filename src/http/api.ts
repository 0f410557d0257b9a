import cors from 'cors';
import express, { type RequestHandler } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { declaresJson } from '../guards/media-type.js';
import { carriesBody, foreignOrigin, UNSAFE_METHODS } from '../guards/origin.js';
import type { Journal } from '../journal/journal.js';
import { httpOutcome, type Answer, type Links, type Operation, type OperationEnv, type PayloadEnvelope, type Write } from '../domain/answer.js';
import { authenticateMerchant, checkPublicKey, exchangeKey, exchangeKeys, merchantOfPublicKey } from '../domain/authentication.js';
import { computeHash, createCheckoutLink } from '../domain/checkout.js';
import type { MerchantClocks } from '../clock/clocks.js';
import { commitWrites, type Outbox } from '../domain/commit.js';
import { createOrder, createOrderAfterPayment, getOrderByOrderId, getOrderByReference, listOrders, updateOrders } from '../domain/orders.js';
import { cancelPayment, completePayment, initiatePayment, refundPayment } from '../domain/payments.js';
import { authorisePayment, authorisePayment3ds, capturePayment, chargeCard, chargeToken, createCardToken, tokenizeCard } from '../domain/card-operations.js';
import { listBanks, listNetworks } from '../domain/lookups.js';
import { createRefund } from '../domain/refunds.js';
import { chargeTokenBulk, searchTokenBulk } from '../domain/bulk-charges.js';
import { chargeSubscription, createSubscription, getSubscription, listSubscriptions, updateSubscription } from '../domain/subscriptions.js';
import { factsOf, type Body } from '../domain/request.js';
import { REASON_HEADER } from '../domain/state-machine.js';
import { queryPayment, queryPaymentV3 } from '../domain/status-query.js';
import { ApiError, badRequest, foreignOriginRefused, methodNotAllowed, notFound, unsupportedMediaType } from '../errors.js';
import type { Merchant } from '../model/records.js';
import { PROVIDER_ERROR_OPERATIONS, type OperationId } from '../model/operations.js';
import { SCENARIO_HEADER, type ScenarioSelector } from '../scenarios/selector.js';
import type { Store } from '../store/store.js';
import { operationId, type HttpOperation } from '../validation/operations.js';
import { beginExchange, exchangeOf, sendJson, type ApiExchange } from './exchange.js';
import { delayMs, dropConnection, pause, type HungConnections } from './faults.js';
import { hostRefusal, type AllowedHosts } from '../guards/host.js';
import { recordOnClose } from './journal-recorder.js';
import { headerSafe, renderApiError } from './render-error.js';
import type { RequestLog } from '../log/request-log.js';
import { validateBody } from './validate.js';

/** What the Payments API router needs. */
export interface ApiDependencies {
  operations: HttpOperation[];
  store: Store;
  selector: ScenarioSelector;
  journal: Journal;
  hung: HungConnections;
  links: Links;
  /** real time, ISO 8601 UTC: when a merchant is first seen */
  now: () => string;
  /** each merchant's clock (README, "Time"): the time its payments and notifications carry */
  clocks: MerchantClocks;
  /** what makes the notifications of a payment's change, stored with it (README, "Notifications") */
  outbox: Outbox;
  /** refuse what only the provider's clients send, as the spec's types say (`--strict`) */
  strict: boolean;
  /** one line per request (`--log-level`, `--log-format`); absent: no log */
  log?: RequestLog;
  /** the Host names it answers to */
  allowedHosts: AllowedHosts;
  /** answer browsers of any origin (`--cors`), state-changing requests of pages of other sites included; off by default */
  cors?: boolean;
}

/** The base path of the Payments API (spec, Conventions: `{base_url}` ends in `/api/v2`). */
export const API_BASE = '/api/v2';

/** The headers a browser client may read: the sandbox's own, which say how a request was answered. */
export const EXPOSED_HEADERS = ['X-Sandbox-Scenario', 'X-Sandbox-Warnings', 'X-Sandbox-Reason', 'X-Sandbox-Detail', 'X-Sandbox-Delay'];

/** A request as node's server hands it over, with what express adds when the express app serves it, and the body once read. */
export type ApiRequest = IncomingMessage & { body?: unknown; originalUrl?: string };

/**
 * The prefixes the Payments API is served under: `/api/v2`, and `/api/v3`,
 * where the provider's current documentation queries a payment (README
 * decision 56). `server` is the base its operations' paths are relative to:
 * the document's `/api/v2`, or `/api` for an operation that names its own
 * server (`/v3/payments/query/{paymentReference}`).
 */
export const API_BASES = [
  { prefix: API_BASE, server: API_BASE },
  { prefix: '/api/v3', server: '/api' },
] as const;

/** One of API_BASES. */
export type ApiBase = (typeof API_BASES)[number];

/** The API base a request target is under (matched without regard to case, as express matches paths), if any. */
export function apiBaseOf(url: string | undefined): ApiBase | undefined {
  if (url === undefined) return undefined;
  return API_BASES.find(({ prefix }) => {
    if (url.length < prefix.length || url.slice(0, prefix.length).toLowerCase() !== prefix) return false;
    const next = url[prefix.length];
    return next === undefined || next === '/' || next === '?';
  });
}

/** True when a request target is under one of API_BASES. */
export const isApiTarget = (url: string | undefined): boolean => apiBaseOf(url) !== undefined;

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
  authorisePayment,
  authorisePayment3ds,
  capturePayment,
  chargeCard,
  tokenizeCard,
  completeCardOtp: completePayment,
  listBanks,
  listNetworks,
  createOrderAfterPayment,
  getOrderByReference,
  getOrderByOrderId,
  createRefund,
  queryPaymentV3,
  createCardToken,
  chargeToken,
  createSubscription,
  getSubscription,
  listSubscriptions,
  listCustomerSubscriptions: listSubscriptions,
  listKeyCustomerSubscriptions: listSubscriptions,
  listOwnCustomerSubscriptions: listSubscriptions,
  updateSubscription,
  chargeSubscription,
  chargeTokenBulk,
  searchTokenBulk,
};

/** Methods whose body is ignored: clients such as the provider's Node SDK send one on GET (README decision). */
const BODYLESS = new Set(['GET', 'HEAD', 'DELETE']);

/** One operation of the document, ready to serve: how its path matches, and what its steps need to know. */
interface Route {
  id: OperationId;
  operation: HttpOperation;
  method: string;
  /** the path with `{name}` parameters, as the document writes it */
  path: string;
  /** the base `path` is relative to: the operation's own server's path, or the document's (ApiBase.server) */
  server: string;
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
 * The Payments API v2 under `/api/v2`, one way through (docs/design.md, "A
 * request: one way through"), served on node's own request and response: express's
 * per-request machinery would cost more than everything the sandbox does.
 * A request is refused for a foreign Host (and answered as a CORS preflight
 * with `--cors`), then journalled, refused when a web page of another site
 * sent it to change something (unless `--cors`), routed to its operation,
 * and goes authentication (from the headers) -> Content-Type -> JSON body ->
 * validation against the document -> the merchant -> facts -> selection (header, override, values;
 * a fault that changes nothing happens here) -> the operation -> commit of
 * what it stores -> delay or lose-response -> the envelope. Each step hands
 * the next what it learnt, typed, on the request's exchange; every error is
 * rendered by renderApiError.
 */
export function apiListener(deps: ApiDependencies): (req: ApiRequest, res: ServerResponse) => void {
  const routes = deps.operations.map(routeOf);
  const byPath = new Map<string, Route[]>();
  for (const route of routes) {
    const key = `${route.server}${route.path}`.toLowerCase();
    byPath.set(key, [...(byPath.get(key) ?? []), route]);
  }
  const parametric = routes.filter((route) => route.pattern !== undefined);
  const random = deps.selector.engine.random;
  // Without a minimum in the catalogue, account payments take any amount above zero.
  const accountMinimum = deps.selector.engine.accountMinimum() ?? '0.01';
  const decide: OperationEnv['decide'] = (facts) => deps.selector.engine.decide(facts);
  // A merchant's browser code calls the Payments API from its own origin.
  const corsHandler = deps.cors ? cors({ origin: true, exposedHeaders: EXPOSED_HEADERS, maxAge: 600 }) : undefined;
  // Without --cors, no page of another site may change anything: a form or a no-cors fetch needs no preflight to be sent.
  const pagesOfOtherSites = !deps.cors;
  return (req, res) => {
    // A browser must not read a JSON answer, or a value echoed in one, as a script or a page.
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // Against DNS rebinding: a page that made its own name point at the sandbox still sends that name.
    const refusal = hostRefusal(deps.allowedHosts, req.headers.host, false);
    if (refusal) return void renderApiError(refusal, req, res, random);
    // cors and body-parser are typed for express, but read and write only what node's request and response have.
    if (corsHandler) corsHandler(req, res as never, () => begin(req, res));
    else begin(req, res);
  };

  function begin(req: ApiRequest, res: ServerResponse): void {
    const target = req.originalUrl ?? req.url ?? '/';
    const mark = target.indexOf('?');
    // The listener is reached only for targets under an API base (isApiTarget, or express's mount).
    const server = (apiBaseOf(target) ?? API_BASES[0]).server;
    const path = (mark < 0 ? target : target.slice(0, mark)).slice(server.length) || '/';
    const exchange = beginExchange(res, path, mark < 0 ? '' : target.slice(mark + 1));
    recordOnClose(req, res, exchange, deps);
    serve(req, res, exchange, server).catch((error: unknown) => renderApiError(error, req, res, random));
  }

  async function serve(req: ApiRequest, res: ServerResponse, exchange: ApiExchange, server: string): Promise<void> {
    if (pagesOfOtherSites && (UNSAFE_METHODS.has(req.method ?? '') || carriesBody(req.headers))) {
      const origin = foreignOrigin(req.headers);
      if (origin !== undefined) throw foreignOriginRefused(origin);
    }
    const { route, params } = routeFor(req.method ?? 'GET', exchange.path, server);
    exchange.operation = route.id;
    const merchant = await readRequest(route, req, res, params);
    const checked = { method: req.method ?? 'GET', path: exchange.path, query: exchange.query, headers: req.headers, body: req.body };
    const body = validateBody(route.operation, checked, res, exchange, { lenient: !deps.strict });
    const known = resolveMerchant(route, merchant, body);
    const stored = deps.store.merchant(known.publicKey);
    const newMerchant = stored === undefined;
    // Only the key exchange binds a stored merchant again: any other request's merchant may have been read before its body, and replaced since.
    const bindsMerchant = newMerchant || (route.id === 'exchangeKeys' && stored !== known);
    const parts = { operation: route.id, body, sent: (req.body ?? {}) as Body, params, query: exchange.query, headers: req.headers };
    const facts = (exchange.facts = factsOf(parts, known, newMerchant, deps.store));
    // The one decision about the request, before the operation runs: a fault that must
    // change nothing, or a forced HTTP error, happens here, before anything is stored.
    const header = req.headers[SCENARIO_HEADER];
    const selection = (exchange.selection = deps.selector.select(facts, typeof header === 'string' ? header : undefined));
    const fault = selection.action?.fault;
    if (fault === 'drop-connection') return dropConnection(req, exchange, fault);
    if (fault === 'hang') return deps.hung.hold(req, exchange, fault);
    if (selection.forced && selection.rule.then.http) throw httpOutcome(selection.rule);
    const env: OperationEnv = { links: deps.links, now: () => deps.clocks.now(known.publicKey), accountMinimum, decide };
    const answer = OPERATIONS[route.id](facts, selection, env);
    // A new merchant, or one a key exchange bound again after a reset, is stored once its request is answered (README decisions 2, 27).
    await commitWrites(deps.store, bindsMerchant ? [merchantWrite(known), ...answer.writes] : answer.writes, deps.outbox);
    return respond(req, res, exchange, answer);
  }

  // The route of the request's path and method. A known path asked with another method says which
  // method it takes; the key exchange keeps the spec's 404 `{error}` for anything but its POST (spec, endpoint 1).
  function routeFor(asked: string, sent: string, server: string): { route: Route; params: Record<string, string> } {
    const path = sent.length > 1 && sent.endsWith('/') ? sent.slice(0, -1) : sent;
    const method = asked === 'HEAD' ? 'GET' : asked;
    let candidates = byPath.get(`${server}${path}`.toLowerCase());
    let params: Record<string, string> = {};
    if (!candidates) {
      for (const route of parametric) {
        if (route.server !== server) continue;
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
    if (candidates) throw methodNotAllowed(asked, `${server}${sent}`, candidates.map((candidate) => candidate.method));
    throw notFound(`No resource at ${asked} ${server}${sent}`);
  }

  // Credentials come from the headers, so a request without valid ones is refused before its body is
  // read: a stranger's megabyte costs neither parsing nor memory (README decision 22).
  async function readRequest(route: Route, req: ApiRequest, res: ServerResponse, params: Record<string, string>): Promise<Merchant | undefined> {
    let merchant: Merchant | undefined;
    if (route.id !== 'exchangeKeys' && !(route.optionalAuth && req.headers.authorization === undefined)) {
      merchant = authenticateMerchant(deps.store, req.headers.authorization, route.allowBasic, deps.now());
      checkPublicKey(merchant, params.publicKey);
    }
    checkContentType(req);
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
  async function respond(req: ApiRequest, res: ServerResponse, exchange: ApiExchange, answer: Answer | Answer<PayloadEnvelope>): Promise<void> {
    res.setHeader('X-Sandbox-Scenario', answer.scenario);
    // A reference can carry any text: the reason is made header-safe as the error renderer's details are.
    if (answer.reason !== undefined) res.setHeader(REASON_HEADER, headerSafe({ reason: answer.reason }).reason!);
    const action = exchange.selection?.action;
    if (action) {
      const delay = delayMs(action.delay, random);
      if (delay > 0) res.setHeader('X-Sandbox-Delay', String(delay));
      await pause(delay);
      if (action.fault === 'lose-response') return dropConnection(req, exchange, action.fault);
    }
    sendJson(res, answer.status ?? 200, answer.body, req.method === 'HEAD');
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
    server: serverPathOf(operation),
    pattern: names.length > 0 ? new RegExp(`^${source}/?$`, 'i') : undefined,
    names,
    allowBasic: (operation.security ?? []).some((set) => set.some((scheme) => scheme.type === 'http' && scheme.scheme === 'basic')),
    optionalAuth: (operation.security ?? []).some((set) => set.length === 0),
    providerErrors: PROVIDER_ERROR_OPERATIONS.has(operationId(operation) as OperationId),
  };
}

// The path of the operation's first server (`http://{host}:{port}/api/v2` gives `/api/v2`): its own, or the document's.
function serverPathOf(operation: HttpOperation): string {
  const url = operation.servers?.[0]?.url ?? '';
  const path = /^[a-z][a-z0-9+.-]*:\/\/[^/]*(\/[^?#]*)?/i.exec(url)?.[1] ?? API_BASE;
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

// A path parameter as express decodes it.
function decodeParam(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw badRequest(`Failed to decode param '${value}'`);
  }
}

/**
 * Refuses (415) a body whose Content-Type does not declare JSON, as the
 * production API does (spec, Conventions): a web page can send a form or
 * `text/plain` without a preflight, never JSON. Every client the sandbox
 * knows (the provider's SDKs and examples, the README's curl) sends
 * `application/json`. A request with neither body nor Content-Type passes,
 * and so does any GET, HEAD or DELETE, whose body is ignored.
 */
function checkContentType(req: ApiRequest): void {
  if (BODYLESS.has(req.method ?? '')) return;
  const type = req.headers['content-type'];
  if ((type !== undefined || carriesBody(req.headers)) && !declaresJson(type)) throw unsupportedMediaType(type);
}

// Reads every body as JSON once checkContentType let it through: `application/*+json` and any charset too.
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

function readBody(parser: RequestHandler, req: ApiRequest, res: ServerResponse): Promise<void> {
  return new Promise((resolve, reject) => {
    void parser(req as never, res as never, (error?: unknown) => (error ? reject(error) : resolve()));
  });
}
