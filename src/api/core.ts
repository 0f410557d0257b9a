import { API_BASE } from '../model/bases.js';
import { hostRefusal } from '../guards/host.js';
import { noteForGoLive } from '../go-live/facts.js';
import { recordExchange } from '../journal/recorder.js';
import { API_BASES, apiBaseOf } from './api-bases.js';
import { errorAnswer, faultAnswer, respond, type ApiAnswer } from './api-answer.js';
import { corsPreflight, refuseForeignPage } from './cross-origin.js';
import type { ApiDependencies } from './dependencies.js';
import { beginExchange, type ApiExchange, type ApiRequest } from './exchange.js';
import { readRequest } from './read-request.js';
import { router } from './routing.js';
import { unitOfWork } from './unit-of-work.js';
import { validateBody } from './validate.js';

export { API_BASE };
export { API_BASES, apiBaseOf, isApiTarget, type ApiBase } from './api-bases.js';
export type { ApiAnswer, ConnectionFault } from './api-answer.js';
export { EXPOSED_HEADERS } from './cross-origin.js';
export type { ApiDependencies } from './dependencies.js';

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
 * answered by errorAnswer. The steps that keep state (the routes, CORS, the
 * unit of work) are made here once, not per request: this is the path
 * bench/compare.mjs measures.
 */
export function paymentsApi(deps: ApiDependencies): PaymentsApi {
  const routeFor = router(deps.operations, deps.strict);
  // A merchant's browser code calls the Payments API from its own origin (--cors).
  const preflight = deps.cors ? corsPreflight() : undefined;
  // Without --cors, no page of another site may change anything: a form or a no-cors fetch needs no preflight to be sent.
  const pagesOfOtherSites = !deps.cors;
  const operate = unitOfWork(deps);
  const random = deps.selector.engine.random;

  // The transport reaches the API only for targets under an API base (isApiTarget, or express's mount).
  const exchange = (request: ApiRequest): ApiExchange => beginExchange(request, (apiBaseOf(request.target) ?? API_BASES[0]).server, deps.now());

  async function handleApi(request: ApiRequest, begun = exchange(request)): Promise<ApiAnswer> {
    // A browser must not read a JSON answer, or a value echoed in one, as a script or a page.
    begun.headers['X-Content-Type-Options'] = 'nosniff';
    // Against DNS rebinding: a page that made its own name point at the sandbox still sends that name.
    const refusal = hostRefusal(deps.allowedHosts, request.headers.host, false);
    if (refusal) return errorAnswer(refusal, begun, random);
    const preflightStatus = preflight?.(request, begun);
    if (preflightStatus) return { status: preflightStatus, headers: begun.headers, exchange: begun };
    begun.journalled = true;
    try {
      return await serve(request, begun);
    } catch (error) {
      return errorAnswer(error, begun, random);
    }
  }

  // The checks in their order (docs/decisions.md#d22-check-order), then the unit of work and the answer.
  async function serve(request: ApiRequest, begun: ApiExchange): Promise<ApiAnswer> {
    if (pagesOfOtherSites) refuseForeignPage(request);
    const { route, params } = routeFor(request.method, begun.path, begun.base);
    begun.operation = route.id;
    const merchant = await readRequest(deps, route, request, begun, params);
    const checked = { method: request.method, path: begun.path, query: begun.query, headers: request.headers, body: begun.sent };
    const body = validateBody(route.operation, checked, begun, route.check);
    const answer = await deps.store.transaction(() => operate(route, request, begun, merchant, body, params));
    if (typeof answer === 'string') return faultAnswer(begun, answer);
    return respond(request, begun, answer, random);
  }

  // Once journalled, what the go-live report needs of the request and nowhere else is kept with the merchant.
  const record = (begun: ApiExchange): void => {
    if (!begun.journalled) return;
    const entry = recordExchange(begun, deps);
    // What a header or an override forced is QA's doing; a reused reference the state machine found under a forced rule is not.
    const forced = begun.selection?.forced === true && begun.selection.rule.name === entry.scenario;
    void noteForGoLive(entry, forced, deps.store);
  };
  return { exchange, handleApi, record };
}
