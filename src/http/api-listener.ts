import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJson } from '../api/body.js';
import type { ApiAnswer, PaymentsApi } from '../api/core.js';
import type { ApiRequest } from '../api/exchange.js';
import type { HungConnections } from './faults.js';

/** A request as node's server hands it over, with what express adds when the express app serves it (its mount strips the base from `url`). */
export type NodeApiRequest = IncomingMessage & { body?: unknown; originalUrl?: string };

/**
 * The Payments API on node's request and response: what the HTTP and HTTPS
 * servers call for every target under an API base (and the express app's
 * mount of those bases). It hands the core (src/api/core.ts) the request,
 * with its body read from the socket only when the core asks, writes the
 * answer, or carries out its fault: closes the connection (drop-connection,
 * lose-response) or holds it (hang, in `hung`, until the client gives up,
 * HANG_LIMIT_MS passes or the sandbox closes). The request is journalled
 * once its connection is done with (the response's `close`).
 */
export function apiListener(api: PaymentsApi, hung: HungConnections): (req: NodeApiRequest, res: ServerResponse) => void {
  return (req, res) => {
    const request: ApiRequest = { method: req.method ?? 'GET', target: req.originalUrl ?? req.url ?? '/', headers: req.headers, readBody: (limit) => readJson(req, limit) };
    const exchange = api.exchange(request);
    res.once('close', () => api.record(exchange));
    api
      .handleApi(request, exchange)
      .then((answer) => deliver(req, res, answer))
      // handleApi answers every error; should writing the answer itself fail, the connection is closed.
      .catch(() => req.socket.destroy());
  };

  function deliver(req: NodeApiRequest, res: ServerResponse, answer: ApiAnswer): void {
    if (answer.fault === undefined) {
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    } else if (answer.fault === 'hang') hung.hold(req);
    else req.socket.destroy();
  }
}
