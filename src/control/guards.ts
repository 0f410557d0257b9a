import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { RequestHandler } from 'express';
import { ApiError } from '../errors.js';

/**
 * The guards in front of the control API, so that neither a web page the
 * developer happens to visit nor a stranger on the network can drive it
 * (README, "The control API"; control-api.yaml, "Access"). Each refuses in
 * the control API's error shape, `{message, error}`. The Payments API
 * refuses what a web page sends uninvited by the same rules (foreignOrigin,
 * declaresJson), in its own error shape (src/http/api.ts).
 */

/** The methods that change state; the others only read. */
export const UNSAFE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Cross-site request forgery: a state-changing request must come from no
 * page, or from a page of the sandbox itself.
 * - an `Origin` other than the request's own host, or `Sec-Fetch-Site:
 *   cross-site` (foreignOrigin): 403 FORBIDDEN (browsers send Origin with
 *   every POST and DELETE, form posts and `no-cors` fetches included);
 * - a body, or a Content-Type, other than `application/json`: 415
 *   UNSUPPORTED_MEDIA_TYPE. An HTML form can only send form or text types,
 *   and a page's script cannot send JSON elsewhere without a preflight the
 *   sandbox never grants. A request with neither body nor Content-Type
 *   (`curl -X POST .../reset`) passes.
 */
export function sameOriginJson(): RequestHandler {
  return (req, _res, next) => {
    if (!UNSAFE_METHODS.has(req.method)) return next();
    const origin = foreignOrigin(req.headers);
    if (origin !== undefined) {
      return next(new ApiError(403, { message: `A request from ${origin} cannot change the sandbox: the control API takes state-changing requests from its own pages only`, error: 'FORBIDDEN' }));
    }
    const type = req.headers['content-type'];
    if ((type !== undefined || carriesBody(req.headers)) && mediaTypeOf(type) !== 'application/json') {
      return next(new ApiError(415, { message: `The control API reads application/json bodies only, not ${type ?? 'a body without Content-Type'}`, error: 'UNSUPPORTED_MEDIA_TYPE' }));
    }
    next();
  };
}

/**
 * With a control token (`--control-token`), every control request but those
 * of `open` paths (the health check container orchestrators poll) must carry
 * `Authorization: Bearer <token>`; otherwise 401 UNAUTHORIZED with a
 * `WWW-Authenticate: Bearer` challenge. Without one, every request passes.
 * @param token the token; undefined or empty: no token asked
 * @param open paths below the control base that need none
 */
export function controlToken(token: string | undefined, open: readonly string[]): RequestHandler {
  const expected = token ? digest(token) : undefined;
  return (req, _res, next) => {
    if (expected === undefined || open.includes(req.path)) return next();
    const given = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
    // Digests of equal length, so the comparison takes the same time whatever was sent.
    if (given !== undefined && timingSafeEqual(digest(given), expected)) return next();
    const message = given === undefined ? 'The control API needs Authorization: Bearer <control token>' : 'The control token is not the one the sandbox was started with';
    next(new ApiError(401, { message, error: 'UNAUTHORIZED' }, undefined, { 'WWW-Authenticate': 'Bearer realm="payments-sandbox control API"' }));
  };
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/**
 * The origin of a request a web page of another site sent, or undefined for
 * one sent by no page (no `Origin`: curl, the SDKs, a server) or by a page of
 * the sandbox itself. Another site: an `Origin` whose scheme, host and port
 * are not the ones the request was sent to (`null` included, which sandboxed
 * frames and local files send), or `Sec-Fetch-Site: cross-site`.
 * @returns the Origin as sent (at most 100 characters), or `another site` when only Sec-Fetch-Site tells
 */
export function foreignOrigin(headers: IncomingHttpHeaders): string | undefined {
  const origin = headers.origin;
  if (origin !== undefined && !sameOrigin(origin, headers.host)) return origin.slice(0, 100);
  // What the browser says of the page that sent the request, whatever the Origin claims.
  if (headers['sec-fetch-site'] === 'cross-site') return origin?.slice(0, 100) ?? 'another site';
  return undefined;
}

/** True when a request carries a body: a length above zero, or one sent in chunks. */
export function carriesBody(headers: IncomingHttpHeaders): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

/** The media type of a Content-Type header, lower case, without its parameters (`charset`); undefined without the header. */
export function mediaTypeOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const semicolon = header.indexOf(';');
  return (semicolon < 0 ? header : header.slice(0, semicolon)).trim().toLowerCase();
}

/**
 * True for a Content-Type that declares JSON: `application/json` or a
 * structured `application/<name>+json`, in any case, with any parameters
 * (`application/json; charset=utf-8`).
 */
export function declaresJson(header: string | undefined): boolean {
  // What every known client sends, answered before anything is sliced.
  if (header === 'application/json') return true;
  const type = mediaTypeOf(header);
  return type !== undefined && (type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json')));
}

// Same origin for the sandbox: the Origin's host and port are the ones the request was sent to.
function sameOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined) return false;
  try {
    const from = new URL(origin);
    return from.host === new URL(`${from.protocol}//${host}`).host;
  } catch {
    return false;
  }
}
