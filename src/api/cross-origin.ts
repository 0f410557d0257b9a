import { createRequire } from 'node:module';
import { carriesBody, foreignOrigin, UNSAFE_METHODS } from '../guards/origin.js';
import { foreignOriginRefused } from '../errors.js';
import type { ApiExchange, ApiRequest } from './exchange.js';

/**
 * The Payments API and the pages of other sites (README, "Who may drive the
 * sandbox"): with `--cors` a merchant's browser code calls it from its own
 * origin, preflight included; without, no page of another site may change
 * anything.
 */

/** The headers a browser client may read: the sandbox's own, which say how a request was answered. */
export const EXPOSED_HEADERS = ['X-Sandbox-Scenario', 'X-Sandbox-Warnings', 'X-Sandbox-Reason', 'X-Sandbox-Detail', 'X-Sandbox-Delay'];

/** Answers a CORS preflight: the status it answered with (the headers are on the exchange), or undefined when the request is none. */
export type Preflight = (request: ApiRequest, exchange: ApiExchange) => number | undefined;

/**
 * The CORS step of `--cors`, made once: the cors library's headers (any
 * origin, the sandbox's own headers exposed, a preflight kept 10 minutes),
 * set on the exchange as on a response.
 */
export function corsPreflight(): Preflight {
  // Required only with --cors: a start without it loads none of the library.
  const cors = createRequire(import.meta.url)('cors') as typeof import('cors');
  const handler = cors({ origin: true, exposedHeaders: EXPOSED_HEADERS, maxAge: 600 });
  return (request, exchange) => {
    let ended = false;
    const headers = exchange.headers;
    const response = {
      statusCode: 200,
      getHeader: (name: string) => headers[name],
      setHeader: (name: string, value: string) => void (headers[name] = String(value)),
      end: () => void (ended = true),
    };
    handler(request, response, () => undefined);
    return ended ? response.statusCode : undefined;
  };
}

/**
 * Refuses a state-changing request a web page of another site sent, before
 * anything else is read (docs/decisions.md#d22-check-order, rule 1): a form
 * or a no-cors fetch needs no preflight to be sent. Not called with `--cors`.
 * @throws ApiError 403 / PERMISSION (foreignOriginRefused)
 */
export function refuseForeignPage(request: ApiRequest): void {
  if (!UNSAFE_METHODS.has(request.method) && !carriesBody(request.headers)) return;
  const origin = foreignOrigin(request.headers);
  if (origin !== undefined) throw foreignOriginRefused(origin);
}
