import { authenticateMerchant, checkPublicKey } from '../domain/authentication.js';
import { ApiError, unsupportedMediaType } from '../errors.js';
import { declaresJson } from '../guards/media-type.js';
import { carriesBody } from '../guards/origin.js';
import type { Merchant } from '../model/records.js';
import { BODYLESS } from './body.js';
import type { ApiDependencies } from './dependencies.js';
import type { ApiExchange, ApiRequest } from './exchange.js';
import type { Route } from './routing.js';

/** What reading a request needs: the store its merchants are in, and real time (a new merchant's first sight). */
export type ReaderDependencies = Pick<ApiDependencies, 'store' | 'now'>;

/**
 * Reads a routed request: its credentials, from the headers, then its
 * Content-Type, and only then its body, onto the exchange (`sent`, `raw`).
 * A request without valid credentials is refused before its body is read: a
 * stranger's megabyte costs neither parsing nor memory
 * (docs/decisions.md#d22-check-order). No credentials are read for a route
 * whose merchant comes from its body (`credentials: 'body-key'`), nor when
 * none were sent to one that needs none (the hash endpoint, the bank list);
 * their body is read as a stranger's (64 KB).
 * @returns the merchant of the credentials; undefined when none were read
 * @throws ApiError 403/401 for credentials (src/domain/authentication.ts),
 *   415 for a body that is not JSON, 400 or 413 for one that cannot be read
 */
export async function readRequest(deps: ReaderDependencies, route: Route, request: ApiRequest, exchange: ApiExchange, params: Record<string, string>): Promise<Merchant | undefined> {
  let merchant: Merchant | undefined;
  if (route.credentials === 'headers' && !(route.optionalAuth && request.headers.authorization === undefined)) {
    merchant = await authenticateWithRefresh(deps, route, request, params);
  }
  checkContentType(request);
  const read = await request.readBody(merchant === undefined ? 'stranger' : 'merchant');
  exchange.sent = read.body;
  exchange.raw = read.raw;
  return merchant;
}

// On a shared store a merchant another replica made a moment ago is not yet in this one's memory: refused
// credentials are checked again once the log's new entries are read (at once where one process holds the
// store). A known merchant costs no query: the unit of work reads them anyway before the request changes anything.
async function authenticateWithRefresh(deps: ReaderDependencies, route: Route, request: ApiRequest, params: Record<string, string>): Promise<Merchant> {
  try {
    return authenticate(deps, route, request, params);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status >= 500) throw error;
    await deps.store.refresh();
    return authenticate(deps, route, request, params);
  }
}

// The merchant of the Authorization header, which must be the path's publicKey's when the path names one.
function authenticate(deps: ReaderDependencies, route: Route, request: ApiRequest, params: Record<string, string>): Merchant {
  const found = authenticateMerchant(deps.store, request.headers.authorization, route.allowBasic, deps.now());
  checkPublicKey(found, params.publicKey);
  return found;
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
