import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
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

/** The media types of a fixtures document in YAML, which POST /fixtures reads beside JSON: none is one a page may send without a preflight. */
export const YAML_TYPES: ReadonlySet<string> = new Set(['application/yaml', 'application/x-yaml', 'text/yaml']);

/**
 * Cross-site request forgery: a state-changing request must come from no
 * page, or from a page of the sandbox itself.
 * - an `Origin` other than the request's own host, or `Sec-Fetch-Site:
 *   cross-site` (foreignOrigin): 403 FORBIDDEN (browsers send Origin with
 *   every POST and DELETE, form posts and `no-cors` fetches included);
 * - a body, or a Content-Type, other than `application/json` (or YAML, where
 *   `yaml` says the operation reads it): 415 UNSUPPORTED_MEDIA_TYPE. An HTML
 *   form can only send form or text types, and a page's script cannot send
 *   JSON or YAML elsewhere without a preflight the sandbox never grants. A
 *   request with neither body nor Content-Type (`curl -X POST .../reset`) passes.
 * @returns the refusal, or undefined when the request may go on
 */
export function foreignRequestRefusal(method: string, headers: IncomingHttpHeaders, yaml = false): ApiError | undefined {
  if (!UNSAFE_METHODS.has(method)) return undefined;
  const origin = foreignOrigin(headers);
  if (origin !== undefined) {
    return new ApiError(403, { message: `A request from ${origin} cannot change the sandbox: the control API takes state-changing requests from its own pages only`, error: 'FORBIDDEN' });
  }
  const type = headers['content-type'];
  const media = mediaTypeOf(type);
  if ((type !== undefined || carriesBody(headers)) && media !== 'application/json' && !(yaml && media !== undefined && YAML_TYPES.has(media))) {
    const takes = yaml ? 'application/json or application/yaml bodies' : 'application/json bodies only';
    return new ApiError(415, { message: `The control API reads ${takes}, not ${type ?? 'a body without Content-Type'}`, error: 'UNSUPPORTED_MEDIA_TYPE' });
  }
  return undefined;
}

/**
 * With a control token (`--control-token`), a control request must carry
 * `Authorization: Bearer <token>`; otherwise 401 UNAUTHORIZED with a
 * `WWW-Authenticate: Bearer` challenge. Without one, every request passes.
 * @param token the token; undefined or empty: no token asked
 * @returns the check of one request's Authorization header: its refusal, or undefined
 */
export function controlTokenCheck(token: string | undefined): (authorization: string | undefined) => ApiError | undefined {
  const expected = token ? digest(token) : undefined;
  return (authorization) => {
    if (expected === undefined) return undefined;
    const given = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    // Digests of equal length, so the comparison takes the same time whatever was sent.
    if (given !== undefined && timingSafeEqual(digest(given), expected)) return undefined;
    const message = given === undefined ? 'The control API needs Authorization: Bearer <control token>' : 'The control token is not the one the sandbox was started with';
    return new ApiError(401, { message, error: 'UNAUTHORIZED' }, undefined, { 'WWW-Authenticate': 'Bearer realm="payments-sandbox control API"' });
  };
}

/** foreignRequestRefusal as express middleware, for what express serves under the control base (the MCP endpoint). */
export function sameOriginJson(): RequestHandler {
  return (req, _res, next) => next(foreignRequestRefusal(req.method, req.headers));
}

/** controlTokenCheck as express middleware, for what express serves under the control base (the MCP endpoint). */
export function controlToken(token: string | undefined): RequestHandler {
  const check = controlTokenCheck(token);
  return (req, _res, next) => next(check(req.headers.authorization));
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();
