import type { ErrorRequestHandler, Response } from 'express';
import { headerSafe, toApiError } from '../api/error-answer.js';

/**
 * The one place errors of the express app (the control API, the pages)
 * become responses, as src/api/error-answer.ts says. The Payments API
 * renders its own (src/api/core.ts); one that reaches express anyway names
 * its rule in X-Sandbox-Scenario, as the API's answers do.
 */
export function renderError(apiBase: string): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const apiError = toApiError(error);
    if (req.originalUrl.startsWith(apiBase)) res.setHeader('X-Sandbox-Scenario', apiError.scenario ?? 'internal-error');
    res.set(headerSafe(apiError.headers));
    sendJson(res, apiError.status, apiError.body, req.method === 'HEAD');
  };
}

// `body` as JSON with `status`, its length said.
function sendJson(res: Response, status: number, body: unknown, head: boolean): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(head ? undefined : text);
}
