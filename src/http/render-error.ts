import type { ErrorRequestHandler } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, badRequest, internalError, notFound, payloadTooLarge, storeUnavailable } from '../errors.js';
import { StoreUnavailableError } from '../store/store.js';
import { exchangeOf, sendJson } from './exchange.js';
import { delayMs, pause } from './faults.js';

/**
 * The one place errors become responses: an ApiError as its status and body;
 * a body that could not be read as 400 Bad Request (spec, Errors); anything
 * else as 500 Internal Server Error / PROCESSING, logged to stderr. Payments
 * API answers name their rule in X-Sandbox-Scenario and keep a selected delay.
 */
export function renderError(random: () => number, apiBase: string): ErrorRequestHandler {
  return async (error, req, res, _next) => {
    if (req.originalUrl.startsWith(apiBase)) return renderApiError(error, req, res, random);
    const apiError = toApiError(error);
    res.set(headerSafe(apiError.headers));
    sendJson(res, apiError.status, apiError.body, req.method === 'HEAD');
  };
}

/**
 * Renders an error of a Payments API request, on node's own request and
 * response: as renderError does, naming the rule in X-Sandbox-Scenario and
 * keeping the selection's delay.
 * @param random the draws of a ranged delay (seeded by --seed)
 */
export async function renderApiError(error: unknown, req: IncomingMessage, res: ServerResponse, random: () => number): Promise<void> {
  const apiError = toApiError(error);
  res.setHeader('X-Sandbox-Scenario', apiError.scenario ?? 'internal-error');
  const delay = delayMs(exchangeOf(res)?.selection?.action?.delay, random);
  if (delay > 0) res.setHeader('X-Sandbox-Delay', String(delay));
  await pause(delay);
  for (const [name, value] of Object.entries(headerSafe(apiError.headers))) res.setHeader(name, value);
  sendJson(res, apiError.status, apiError.body, req.method === 'HEAD');
}

function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof StoreUnavailableError) return storeUnavailable();
  const status = (error as { status?: unknown }).status;
  // A file the static handler does not have.
  if (status === 404) return notFound('No such file');
  if (status === 413) return payloadTooLarge(Number((error as { limit?: unknown }).limit) || 0);
  // body-parser's other errors (malformed JSON, a bad charset, an unreadable stream) carry a 4xx status.
  if (typeof status === 'number' && status >= 400 && status < 500) return badRequest((error as Error).message);
  console.error('payments-sandbox: unexpected error:', error);
  return internalError();
}

/** Header values as they can be set: printable ASCII only, anything else `?` (a detail or reason can quote what a client sent, and setting anything else would throw). */
export function headerSafe(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, value.replace(/[^\x20-\x7e]/g, '?')]));
}
