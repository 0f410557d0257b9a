import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { ApiError } from '../errors.js';
import { mediaTypeOf } from '../guards/media-type.js';
import { carriesBody, foreignOrigin, UNSAFE_METHODS } from '../guards/origin.js';

/**
 * The guards in front of the control API, so that neither a web page the
 * developer happens to visit nor a stranger on the network can drive it
 * (README, "The control API"; control-api.yaml, "Access"). Each refuses in
 * the control API's error shape, `{message, error}`. The Payments API
 * refuses what a web page sends uninvited by the same rules (foreignOrigin,
 * declaresJson, src/guards/), in its own error shape (src/api/core.ts).
 */

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
