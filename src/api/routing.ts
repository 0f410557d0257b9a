import type { Credentials } from '../domain/operation.js';
import { errorFamilyOf, requestRulesOf } from '../domain/registry.js';
import { badRequest, methodNotAllowed, notFound, type ApiError } from '../errors.js';
import { API_BASE } from '../model/bases.js';
import type { OperationId } from '../model/operations.js';
import type { CheckOptions } from '../validation/check-request.js';
import { operationId, type HttpOperation } from '../validation/operations.js';

/** One operation of the document, ready to serve: how its path matches, and what its steps need to know. */
export interface Route {
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
  /** where its merchant comes from (its registry entry's RequestRules) */
  credentials: Credentials;
  /** what other methods on its path, and paths below it, answer, when not 405 or the provider's 404 (RequestRules) */
  pathNotFound?: () => ApiError;
  /** how its body is checked, made once: leniency (unless `--strict`), its error family, its entry's bodyRefusals */
  check: CheckOptions;
}

/** A request's route, and its path's parameters, decoded. */
export interface Routed {
  route: Route;
  params: Record<string, string>;
}

/**
 * Finds the route of a request's method and path (below `server`, ApiBase.server), as express matches
 * paths: without regard to case, one trailing slash allowed; HEAD is answered as GET.
 * @throws ApiError 405 with Allow for a known path asked with another method; its entry's own 404
 *   (pathNotFound: the key exchange's `{error}`) on its path and below it; otherwise 404
 *   (docs/decisions.md#d23-unknown-paths); 400 for a path parameter that cannot be decoded
 */
export type RouteFor = (method: string, path: string, server: string) => Routed;

/**
 * The routes of the document's operations, in tables built once: by path, then the paths with parameters in
 * the document's order.
 * @param strict `--strict`: the validation step takes no leniency
 */
export function router(operations: HttpOperation[], strict: boolean): RouteFor {
  const routes = operations.map((operation) => routeOf(operation, strict));
  const byPath = new Map<string, Route[]>();
  for (const route of routes) {
    const key = `${route.server}${route.path}`.toLowerCase();
    byPath.set(key, [...(byPath.get(key) ?? []), route]);
  }
  const parametric = routes.filter((route) => route.pattern !== undefined);
  // The paths below a route whose entry answers its own 404 there (the key exchange's, /encrypt/keys/...).
  const ownNotFound = routes.filter((route) => route.pathNotFound !== undefined).map((route) => ({ route, below: new RegExp(`^${escapeRegExp(route.path)}/`, 'i') }));

  return (asked, sent, server) => {
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
    // The key exchange keeps the spec's 404 `{error}` for anything but its POST (spec, endpoint 1).
    const pathNotFound = candidates?.[0]?.pathNotFound ?? ownNotFound.find((own) => own.route.server === server && own.below.test(path))?.route.pathNotFound;
    if (pathNotFound) throw pathNotFound();
    if (candidates) throw methodNotAllowed(asked, `${server}${sent}`, candidates.map((candidate) => candidate.method));
    throw notFound(`No resource at ${asked} ${server}${sent}`);
  };
}

function routeOf(operation: HttpOperation, strict: boolean): Route {
  const names: string[] = [];
  const source = operation.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{([^}]+)\}/g, (_whole, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  const id = operationId(operation) as OperationId;
  const rules = requestRulesOf(id);
  const providerErrors = errorFamilyOf(id) === 'provider';
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
    providerErrors,
    credentials: rules.credentials ?? 'headers',
    pathNotFound: rules.pathNotFound,
    check: { lenient: !strict, providerErrors, bodyRefusals: rules.bodyRefusals },
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
