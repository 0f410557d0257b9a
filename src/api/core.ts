import cors from 'cors';
import { API_BASE } from '../model/bases.js';
import { declaresJson } from '../guards/media-type.js';
import { carriesBody, foreignOrigin, UNSAFE_METHODS } from '../guards/origin.js';
import type { Journal } from '../journal/journal.js';
import { httpOutcome, type Answer, type Links, type OperationEnv, type PayloadEnvelope, type Write } from '../domain/answer.js';
import { authenticateMerchant, checkPublicKey, exchangeKey, merchantOfPublicKey } from '../domain/authentication.js';
import type { MerchantClocks } from '../clock/clocks.js';
import { putWrites, type Outbox } from '../domain/commit.js';
import type { Credentials } from '../domain/operation.js';
import { errorFamilyOf, prepareOperation, requestRulesOf } from '../domain/registry.js';
import type { Body } from '../domain/request.js';
import { REASON_HEADER } from '../domain/state-machine.js';
import { ApiError, badRequest, type BodyRefusals, foreignOriginRefused, methodNotAllowed, notFound, unsupportedMediaType } from '../errors.js';
import type { Merchant } from '../model/records.js';
import type { OperationId } from '../model/operations.js';
import { SCENARIO_HEADER, type ScenarioSelector } from '../scenarios/selector.js';
import type { Store } from '../store/store.js';
import { operationId, type HttpOperation } from '../validation/operations.js';
import { hostRefusal, type AllowedHosts } from '../guards/host.js';
import { recordExchange } from '../journal/recorder.js';
import type { RequestLog } from '../log/request-log.js';
import { BODYLESS } from './body.js';
import { delayMs, pause } from './delay.js';
import { headerSafe, toApiError } from './error-answer.js';
import { beginExchange, type ApiExchange, type ApiRequest } from './exchange.js';
import { validateBody, warn } from './validate.js';

/** What the Payments API needs. */
export interface ApiDependencies {
  operations: HttpOperation[];
  store: Store;
  selector: ScenarioSelector;
  journal: Journal;
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

export { API_BASE };

/** The headers a browser client may read: the sandbox's own, which say how a request was answered. */
export const EXPOSED_HEADERS = ['X-Sandbox-Scenario', 'X-Sandbox-Warnings', 'X-Sandbox-Reason', 'X-Sandbox-Detail', 'X-Sandbox-Delay'];

/**
 * The prefixes the Payments API is served under: `/api/v2`, and `/api/v3`,
 * where the provider's current documentation queries a payment
 * (docs/decisions.md#d56-status-query-v3). `server` is the base its operations' paths are relative
 * to: the document's `/api/v2`, or `/api` for an operation that names its own
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
  /** where its merchant comes from (its registry entry, RequestRules) */
  credentials: Credentials;
  /** what other methods on its path and paths below it answer, when not 405 or the provider's 404 (RequestRules) */
  pathNotFound?: () => ApiError;
  /** its body's refusals in the spec's or the provider's own words (RequestRules) */
  bodyRefusals?: BodyRefusals;
}

/** A fault that closes or holds the connection instead of an answer: the transport carries it out. */
export type ConnectionFault = 'drop-connection' | 'hang' | 'lose-response';

/**
 * The answer to one Payments API request, for its transport to write, or
 * the fault to carry out instead. A delay the rule asked for has been waited
 * already.
 */
export interface ApiAnswer {
  /** the HTTP status; 0 with a fault */
  status: number;
  /** the headers, by name as set, in the order set: the same object as `exchange.headers` */
  headers: Record<string, string>;
  /** the JSON text; undefined when there is no body to send (HEAD, a CORS preflight, a fault) */
  body?: string;
  /** close the connection without an answer (drop-connection, lose-response), or hold it open (hang) */
  fault?: ConnectionFault;
  /** the request's way through, for PaymentsApi.record once the connection is done with */
  exchange: ApiExchange;
}

/** The Payments API without a transport (src/api/core.ts). */
export interface PaymentsApi {
  /**
   * Starts a request's exchange (its path, query and arrival time) before
   * anything is read, for a transport that must record it even when the
   * connection closes before the answer.
   */
  exchange(request: ApiRequest): ApiExchange;
  /**
   * Answers one request, one way through (docs/design.md, "One request, end to end"). Never
   * rejects: every error is an answer.
   * @param exchange the one `exchange(request)` started; a new one without it
   */
  handleApi(request: ApiRequest, exchange?: ApiExchange): Promise<ApiAnswer>;
  /**
   * Records the request in the journal, and the log, once its connection is
   * done with: after its answer was written, or the fault carried out.
   * Nothing for a request refused before it is journalled (a foreign Host, a
   * CORS preflight). Call it once per exchange.
   */
  record(exchange: ApiExchange): void;
}

/**
 * The Payments API v2 under `/api/v2` (and `/api/v3`), without a transport:
 * a request (method, target, headers, and a lazy body reader) in, an answer
 * (status, headers, JSON text, or a fault) out. Node's HTTP servers reach it
 * through src/http/api-listener.ts, `Sandbox.handle()` through
 * src/api/handle.ts; express's per-request machinery would cost more than
 * everything the sandbox does.
 * A request is refused for a foreign Host (and answered as a CORS preflight
 * with `--cors`), then journalled, refused when a web page of another site
 * sent it to change something (unless `--cors`), routed to its operation,
 * and goes authentication (from the headers) -> Content-Type -> JSON body ->
 * validation against the document -> the merchant -> facts -> selection (header, override, values;
 * a fault that changes nothing happens here) -> the operation -> commit of
 * what it stores -> delay or lose-response -> the envelope. Each step hands
 * the next what it learnt, typed, on the request's exchange; every error is
 * answered by errorAnswer.
 */
export function paymentsApi(deps: ApiDependencies): PaymentsApi {
  const routes = deps.operations.map(routeOf);
  const byPath = new Map<string, Route[]>();
  for (const route of routes) {
    const key = `${route.server}${route.path}`.toLowerCase();
    byPath.set(key, [...(byPath.get(key) ?? []), route]);
  }
  const parametric = routes.filter((route) => route.pattern !== undefined);
  // The paths below a route whose entry answers its own 404 there (the key exchange's, /encrypt/keys/...).
  const ownNotFound = routes.filter((route) => route.pathNotFound !== undefined).map((route) => ({ route, below: new RegExp(`^${escapeRegExp(route.path)}/`, 'i') }));
  const random = deps.selector.engine.random;
  // Without a minimum in the catalogue, account payments take any amount above zero.
  const accountMinimum = deps.selector.engine.accountMinimum() ?? '0.01';
  const decide: OperationEnv['decide'] = (facts) => deps.selector.engine.decide(facts);
  // A merchant's browser code calls the Payments API from its own origin.
  const corsHandler = deps.cors ? cors({ origin: true, exposedHeaders: EXPOSED_HEADERS, maxAge: 600 }) : undefined;
  // Without --cors, no page of another site may change anything: a form or a no-cors fetch needs no preflight to be sent.
  const pagesOfOtherSites = !deps.cors;

  // Whether a key exchange finds its merchant bound as it would bind it: on a shared store the record read
  // again from another replica's change is an equal copy, not the same object.
  const sameMerchant = (stored: Merchant | undefined, known: Merchant): boolean =>
    stored === known || (stored !== undefined && JSON.stringify(stored) === JSON.stringify(known));

  // The transport reaches the API only for targets under an API base (isApiTarget, or express's mount).
  const exchange = (request: ApiRequest): ApiExchange => beginExchange(request, (apiBaseOf(request.target) ?? API_BASES[0]).server, deps.now());

  async function handleApi(request: ApiRequest, begun = exchange(request)): Promise<ApiAnswer> {
    // A browser must not read a JSON answer, or a value echoed in one, as a script or a page.
    begun.headers['X-Content-Type-Options'] = 'nosniff';
    // Against DNS rebinding: a page that made its own name point at the sandbox still sends that name.
    const refusal = hostRefusal(deps.allowedHosts, request.headers.host, false);
    if (refusal) return errorAnswer(refusal, begun);
    const preflightStatus = corsHandler && preflight(request, begun);
    if (preflightStatus) return { status: preflightStatus, headers: begun.headers, exchange: begun };
    begun.journalled = true;
    try {
      return await serve(request, begun);
    } catch (error) {
      return errorAnswer(error, begun);
    }
  }

  // The cors library's headers, set on the exchange as on a response; the status of a preflight it answered itself.
  function preflight(request: ApiRequest, begun: ApiExchange): number | undefined {
    let ended = false;
    const headers = begun.headers;
    const response = {
      statusCode: 200,
      getHeader: (name: string) => headers[name],
      setHeader: (name: string, value: string) => void (headers[name] = String(value)),
      end: () => void (ended = true),
    };
    corsHandler!(request, response, () => undefined);
    return ended ? response.statusCode : undefined;
  }

  async function serve(request: ApiRequest, begun: ApiExchange): Promise<ApiAnswer> {
    if (pagesOfOtherSites && (UNSAFE_METHODS.has(request.method) || carriesBody(request.headers))) {
      const origin = foreignOrigin(request.headers);
      if (origin !== undefined) throw foreignOriginRefused(origin);
    }
    const { route, params } = routeFor(request.method, begun.path, begun.base);
    begun.operation = route.id;
    const merchant = await readRequest(route, request, begun, params);
    const checked = { method: request.method, path: begun.path, query: begun.query, headers: request.headers, body: begun.sent };
    const body = validateBody(route.operation, checked, begun, { lenient: !deps.strict, providerErrors: route.providerErrors, bodyRefusals: route.bodyRefusals });
    // One unit of work from the merchant to the puts: on a shared store it runs after every change other replicas committed.
    const answer = await deps.store.transaction(() => {
      const known = resolveMerchant(route, merchant, body, params);
      const stored = deps.store.merchant(known.publicKey);
      const newMerchant = stored === undefined;
      // Only the key exchange's key binds a stored merchant again: any other request's merchant may have been read before its body, and replaced since.
      const bindsMerchant = newMerchant || (route.credentials === 'body-key' && !sameMerchant(stored, known));
      const parts = { operation: route.id, body, sent: (begun.sent ?? {}) as Body, params, query: begun.query, headers: request.headers };
      const prepared = prepareOperation(parts, known, newMerchant, deps.store);
      const facts = (begun.facts = prepared.facts);
      // The one decision about the request, before the operation runs: a fault that must
      // change nothing, or a forced HTTP error, happens here, before anything is stored.
      const header = request.headers[SCENARIO_HEADER];
      const selection = (begun.selection = deps.selector.select(facts, typeof header === 'string' ? header : undefined));
      const fault = selection.action?.fault;
      if (fault === 'drop-connection' || fault === 'hang') return fault;
      if (selection.forced && selection.rule.then.http) throw httpOutcome(selection.rule);
      const env: OperationEnv = { links: deps.links, now: () => deps.clocks.now(known.publicKey), accountMinimum, decide };
      const answered = prepared.run(selection, env);
      // A new merchant, or one a key exchange bound again after a reset, is stored once its request is answered
      // (docs/decisions.md#d02-merchants-on-first-use, docs/decisions.md#d27-reset-releases-keys).
      putWrites(deps.store, bindsMerchant ? [merchantWrite(known), ...answered.writes] : answered.writes, deps.outbox);
      return answered;
    });
    if (typeof answer === 'string') return faultAnswer(begun, answer);
    return respond(request, begun, answer);
  }

  // The route of the request's path and method. A known path asked with another method says which
  // method it takes; the key exchange keeps the spec's 404 `{error}` for anything but its POST (spec, endpoint 1;
  // its entry's pathNotFound, docs/decisions.md#d23-unknown-paths).
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
    const route = candidates?.find((candidate) => candidate.method === method);
    if (route) return { route, params };
    const pathNotFound = candidates?.[0]?.pathNotFound ?? ownNotFound.find((own) => own.route.server === server && own.below.test(path))?.route.pathNotFound;
    if (pathNotFound) throw pathNotFound();
    if (candidates) throw methodNotAllowed(asked, `${server}${sent}`, candidates.map((candidate) => candidate.method));
    throw notFound(`No resource at ${asked} ${server}${sent}`);
  }

  // On a shared store a merchant another replica made a moment ago is not yet in this one's memory: refused
  // credentials are checked again once the log's new entries are read (at once where one process holds the
  // store). A known merchant costs no query: the unit of work reads them anyway before the request changes anything.
  async function authenticateWithRefresh(authenticate: () => Merchant): Promise<Merchant> {
    try {
      return authenticate();
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      await deps.store.refresh();
      return authenticate();
    }
  }

  // Credentials come from the headers, so a request without valid ones is refused before its body is
  // read: a stranger's megabyte costs neither parsing nor memory (docs/decisions.md#d22-check-order).
  async function readRequest(route: Route, request: ApiRequest, begun: ApiExchange, params: Record<string, string>): Promise<Merchant | undefined> {
    let merchant: Merchant | undefined;
    if (route.credentials === 'headers' && !(route.optionalAuth && request.headers.authorization === undefined)) {
      const authenticate = (): Merchant => {
        const found = authenticateMerchant(deps.store, request.headers.authorization, route.allowBasic, deps.now());
        checkPublicKey(found, params.publicKey);
        return found;
      };
      merchant = await authenticateWithRefresh(authenticate);
    }
    checkContentType(request);
    const read = await request.readBody(merchant === undefined ? 'stranger' : 'merchant');
    begun.sent = read.body;
    begun.raw = read.raw;
    return merchant;
  }

  // The merchant the request acts for: the credentials', checked against the body's publicKey; the
  // key exchange's key; or, for the hash endpoint and the bank list without credentials, the body's or the path's publicKey.
  function resolveMerchant(route: Route, merchant: Merchant | undefined, body: Body, params: Record<string, string>): Merchant {
    if (route.credentials === 'body-key') return exchangeKey(deps.store, String(body.key), deps.now());
    if (merchant === undefined) return merchantOfPublicKey(deps.store, body.publicKey ?? params.publicKey);
    checkPublicKey(merchant, body.publicKey, route.providerErrors);
    return merchant;
  }

  // The answer's headers, its delay or lose-response, then the envelope.
  async function respond(request: ApiRequest, begun: ApiExchange, answer: Answer | Answer<PayloadEnvelope>): Promise<ApiAnswer> {
    begun.headers['X-Sandbox-Scenario'] = answer.scenario;
    if (answer.warnings) warn(begun, answer.warnings);
    // A reference can carry any text: the reason is made header-safe as the error answer's details are.
    if (answer.reason !== undefined) begun.headers[REASON_HEADER] = headerSafe({ reason: answer.reason }).reason!;
    const action = begun.selection?.action;
    if (action) {
      const delay = delayMs(action.delay, random);
      if (delay > 0) begun.headers['X-Sandbox-Delay'] = String(delay);
      await pause(delay);
      if (action.fault === 'lose-response') return faultAnswer(begun, action.fault);
    }
    return jsonAnswer(begun, answer.status ?? 200, answer.body, request.method === 'HEAD');
  }

  // An error as the answer: an ApiError as it is, others as toApiError says; it names its rule in
  // X-Sandbox-Scenario and keeps the selection's delay.
  async function errorAnswer(error: unknown, begun: ApiExchange): Promise<ApiAnswer> {
    const apiError = toApiError(error);
    const headers = begun.headers;
    headers['X-Sandbox-Scenario'] = apiError.scenario ?? 'internal-error';
    const delay = delayMs(begun.selection?.action?.delay, random);
    if (delay > 0) headers['X-Sandbox-Delay'] = String(delay);
    await pause(delay);
    const safe = headerSafe(apiError.headers);
    for (const name in safe) headers[name] = safe[name]!;
    return jsonAnswer(begun, apiError.status, apiError.body, begun.request.method === 'HEAD');
  }

  return { exchange, handleApi, record: (begun) => void (begun.journalled && recordExchange(begun, deps)) };
}

/**
 * Every Payments API answer, errors included: `body` as JSON with `status`,
 * kept on the exchange for the journal.
 */
function jsonAnswer(exchange: ApiExchange, status: number, body: unknown, head: boolean): ApiAnswer {
  exchange.responseBody = body;
  exchange.status = status;
  const text = JSON.stringify(body);
  exchange.headers['Content-Type'] = 'application/json; charset=utf-8';
  exchange.headers['Content-Length'] = String(Buffer.byteLength(text));
  return { status, headers: exchange.headers, body: head ? undefined : text, exchange };
}

// No answer: the transport closes or holds the connection, and the journal records status 0 and the fault.
function faultAnswer(exchange: ApiExchange, fault: ConnectionFault): ApiAnswer {
  exchange.fault = fault;
  return { status: 0, headers: exchange.headers, fault, exchange };
}

const merchantWrite = (merchant: Merchant): Write => ({ kind: 'merchant', merchant });

function routeOf(operation: HttpOperation): Route {
  const names: string[] = [];
  const source = operation.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{([^}]+)\}/g, (_whole, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  const id = operationId(operation) as OperationId;
  const rules = requestRulesOf(id);
  return {
    id,
    operation,
    method: operation.method.toUpperCase(),
    path: operation.path,
    server: serverPathOf(operation),
    pattern: names.length > 0 ? new RegExp(`^${source}/?$`, 'i') : undefined,
    names,
    allowBasic: (operation.security ?? []).some((set) => set.some((scheme) => scheme.type === 'http' && scheme.scheme === 'basic')),
    optionalAuth: (operation.security ?? []).some((set) => set.length === 0),
    providerErrors: errorFamilyOf(id) === 'provider',
    credentials: rules.credentials ?? 'headers',
    pathNotFound: rules.pathNotFound,
    bodyRefusals: rules.bodyRefusals,
  };
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&');

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
function checkContentType(request: ApiRequest): void {
  if (BODYLESS.has(request.method)) return;
  const type = request.headers['content-type'];
  if ((type !== undefined || carriesBody(request.headers)) && !declaresJson(type)) throw unsupportedMediaType(type);
}
