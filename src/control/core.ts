import type { IncomingHttpHeaders } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { BodyStream } from '../api/body.js';
import { renderError } from '../api/error-answer.js';
import { ApiError, inputError } from '../errors.js';
import type { EventSink } from '../events/source.js';
import { hostRefusal, type AllowedHosts } from '../guards/host.js';
import type { ControlOperationId } from '../model/operations.js';
import { CONTROL_BASE } from '../model/bases.js';
import { checkRequest, requestToCheck } from '../validation/check-request.js';
import { operationId, type HttpOperation } from '../validation/operations.js';
import { readControlBody } from './body.js';
import { brokenRulesRefusal, unknownQueryRefusal } from './constraints.js';
import { controlContext, type ControlDependencies } from './context.js';
import { controlTokenCheck, foreignRequestRefusal } from './guards.js';
import { unknownMerchantRefusal } from './known-merchant.js';
import type { ControlAnswer, ControlInput, ControlOperation } from './operation.js';
import { CONTROL_OPERATIONS } from './registry.js';

export { CONTROL_BASE };

/** One control request as a transport hands it to the core: node's HTTP server (listener.ts), `Sandbox.handle()` or a fixtures step. */
export interface ControlRequest {
  /** upper case */
  method: string;
  /** the target below the control base: path and query, as sent (`/payments?limit=5`) */
  target: string;
  /** lower-case names, as node's HTTP server gives them */
  headers: IncomingHttpHeaders;
  /** the body as a stream, read only once the request is known to be allowed, up to its operation's limit */
  body: () => BodyStream;
}

/** How the request came: over a connection (a stream can be served), or in process (`Sandbox.handle()`, a fixtures step). */
export type ControlTransport = 'connection' | 'in-process';

/** A control answer as a transport writes it: status, headers, and a body of text, of pieces, or a live stream. */
export interface ControlResponse {
  status: number;
  /** names as set; `X-Content-Type-Options: nosniff` on every answer */
  headers: Record<string, string>;
  /** the body's text; absent for a 204, a HEAD, pieces or a stream */
  text?: string;
  /** the body a piece at a time (GET /snapshot) */
  chunks?: Iterable<string>;
  /** the live event stream (GET /events): subscribe a sink; returns its unsubscribe */
  open?: (sink: EventSink) => () => void;
}

/** An operation of the registry as the core routes to it. */
export interface RoutedOperation {
  id: ControlOperationId;
  entry: ControlOperation;
  /** its operation in the document, which validates its requests */
  operation: HttpOperation;
  /** the document names no security for it (`security: []`): no control token asked */
  open: boolean;
  /** the path's parameters, decoded */
  params: Record<string, string>;
}

/** The control API without a transport. */
export interface ControlCore {
  /**
   * The operation a method and path (below the control base) resolve to, as
   * the core routes them: in any case, with or without a trailing slash.
   * @throws ApiError 400 INPUT for a path parameter that cannot be decoded
   */
  operationOf(method: string, path: string): RoutedOperation | undefined;
  /**
   * Every operation at a path, whatever its method, in the registry's order.
   * @throws ApiError 400 INPUT for a path parameter that cannot be decoded
   */
  operationsAt(path: string): RoutedOperation[];
  /** Serves one request; every refusal is an answer, in the control API's shape `{message, error}`. */
  serve(request: ControlRequest, transport: ControlTransport): Promise<ControlResponse>;
}

/**
 * The control API under `/__sandbox` (openapi/control-api.yaml; README, "The
 * control API") as one pipeline over the registry (registry.ts): Host ->
 * route -> same-origin and media type -> control token (unless the document
 * opens the operation) -> documented query parameters only -> body, up to
 * the operation's limit -> validation against the document -> the rules its
 * descriptions state -> the store as every replica left it (for operations
 * that read it) -> the merchant its path names known (for operations that
 * store something for it) -> the run -> the answer. Errors are rendered once
 * (renderError), as `{message, error}`.
 * @throws Error at start when the registry and the document disagree on an operation's route, or an
 *   operation asks for a known merchant without a `{publicKey}` in its path
 */
export function controlCore(deps: ControlDependencies & { allowedHosts: AllowedHosts }): ControlCore {
  const context = controlContext(deps);
  const routes = routesOf(deps.controlOperations);
  const tokenRefusal = controlTokenCheck(deps.controlToken);

  function operationsAt(path: string): RoutedOperation[] {
    const segments = (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path).split('/');
    const found: RoutedOperation[] = [];
    for (const route of routes) {
      if (route.segments.length !== segments.length) continue;
      const params = paramsOf(route.segments, segments);
      if (params) found.push({ ...route.routed, params });
    }
    return found;
  }

  function operationOf(method: string, path: string): RoutedOperation | undefined {
    const asked = method === 'HEAD' ? 'GET' : method;
    return operationsAt(path).find((routed) => routed.operation.method.toUpperCase() === asked);
  }

  async function serve(request: ControlRequest, transport: ControlTransport): Promise<ControlResponse> {
    try {
      return await served(request, transport);
    } catch (error) {
      const rendered = renderError(error);
      return { status: rendered.status, headers: { ...rendered.headers, ...NOSNIFF }, text: request.method === 'HEAD' ? undefined : rendered.text };
    }
  }

  async function served(request: ControlRequest, transport: ControlTransport): Promise<ControlResponse> {
    const refusedHost = hostRefusal(deps.allowedHosts, request.headers.host, true);
    if (refusedHost) throw refusedHost;
    const [path = '/', search] = request.target.split(/\?(.*)/s);
    let routed: RoutedOperation | undefined;
    let undecodable: unknown;
    try {
      routed = operationOf(request.method, path);
    } catch (error) {
      undecodable = error;
    }
    const foreign = foreignRequestRefusal(request.method, request.headers, routed?.entry.body === 'fixtures');
    if (foreign) throw foreign;
    const refused = tokenRefusal(request.headers.authorization);
    // A path that cannot be decoded, or names nothing, is answered once the request is known to be allowed.
    if (!routed) throw refused ?? undecodable ?? new ApiError(404, { message: 'Not Found', error: 'NOT_FOUND' });
    if (refused && !routed.open) throw refused;
    const { entry, operation, params } = routed;
    const query = parseQuery(search ?? '') as ControlInput['query'];
    let body: unknown;
    try {
      body = await checked(request, operation, entry, path, query);
    } catch (error) {
      // An operation the document opens is open for the requests it documents: any other is a control request like the rest.
      throw refused ?? error;
    }
    // Sandbox.handle() and fixture steps have no connection, and wait for an answer's end, which a stream never reaches.
    if (entry.stream && transport === 'in-process') {
      throw inputError(`${request.method} /__sandbox${path} is a stream that never ends: open it over HTTP, not through Sandbox.handle() or a fixtures step`);
    }
    if (entry.reads === 'state') await deps.store.refresh();
    // Read after the refresh: a merchant another replica's key exchange made is known here too.
    const stranger = entry.knownMerchant ? unknownMerchantRefusal(deps.store, params.publicKey!) : undefined;
    if (stranger) throw stranger;
    const answer = await entry.run({ params, query, body, headers: request.headers }, context);
    return responseOf(answer, request.method === 'HEAD');
  }

  return { operationOf, operationsAt, serve };
}

// The request checked against its operation: documented query parameters only, the body read up to its limit,
// validation against the document (no leniency: the control API takes exactly what it says), the rules its
// descriptions state. Returns the body as parsed.
async function checked(request: ControlRequest, operation: HttpOperation, entry: ControlOperation, path: string, query: ControlInput['query']): Promise<unknown> {
  const unknown = unknownQueryRefusal(operation, query);
  if (unknown) throw unknown;
  const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await readControlBody(request.body(), entry.body);
  checkRequest(operation, requestToCheck({ method: request.method, path, query, headers: request.headers, body }), undefined, { lenient: false });
  const broken = brokenRulesRefusal(operation, body);
  if (broken) throw broken;
  return body;
}

const NOSNIFF = { 'X-Content-Type-Options': 'nosniff' };

// A run's answer as a transport writes it.
function responseOf(answer: ControlAnswer, head: boolean): ControlResponse {
  if ('open' in answer) return { status: 200, headers: { ...NOSNIFF }, open: answer.open };
  if ('chunks' in answer) return { status: answer.status, headers: { 'Content-Type': answer.type, ...NOSNIFF }, chunks: head ? [] : answer.chunks };
  if ('text' in answer) return { status: answer.status, headers: { 'Content-Type': answer.type, ...NOSNIFF }, text: head ? undefined : answer.text };
  if (answer.body === undefined) return { status: answer.status, headers: { ...NOSNIFF } };
  const text = JSON.stringify(answer.body);
  return { status: answer.status, headers: { 'Content-Type': 'application/json; charset=utf-8', ...NOSNIFF }, text: head ? undefined : text };
}

interface Route {
  /** the path's segments: text in lower case, or `{name}` */
  segments: string[];
  routed: Omit<RoutedOperation, 'params'>;
}

// The registry's routes, in its order (the document's), each checked against the document.
function routesOf(operations: HttpOperation[]): Route[] {
  const byId = new Map(operations.map((operation) => [operationId(operation), operation]));
  return Object.entries(CONTROL_OPERATIONS).map(([id, entry]: [string, ControlOperation]) => {
    const operation = byId.get(id);
    const [method, path] = entry.route.split(' ') as [string, string];
    if (!operation || operation.method.toUpperCase() !== method || operation.path !== path) {
      throw new Error(`the control registry's ${id} is ${entry.route}, which openapi/control-api.yaml does not have`);
    }
    const segments = path.split('/').map((segment) => (/^\{[^}]+\}$/.test(segment) ? segment : segment.toLowerCase()));
    if (entry.knownMerchant && !segments.includes('{publicKey}')) {
      throw new Error(`the control registry's ${id} asks for a known merchant, but its path ${path} names none`);
    }
    const open = operation.security !== undefined && operation.security.length === 0;
    return { segments, routed: { id: id as ControlOperationId, entry, operation, open } };
  });
}

// The parameters of a path that matches a route's segments (static ones in any case), or undefined.
function paramsOf(route: string[], sent: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let at = 0; at < route.length; at += 1) {
    const pattern = route[at]!;
    const segment = sent[at]!;
    if (pattern.startsWith('{')) {
      if (segment === '') return undefined;
      params[pattern.slice(1, -1)] = decodeParam(segment);
    } else if (pattern !== segment.toLowerCase()) return undefined;
  }
  return params;
}

// A path parameter as express decodes it.
function decodeParam(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw inputError(`Failed to decode param '${value.slice(0, 100)}'`);
  }
}
