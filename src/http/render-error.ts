import type { ErrorRequestHandler } from 'express';
import { renderError } from '../api/error-answer.js';

/**
 * Errors of what express serves itself (the pages, the dashboard, the API
 * reference), as every part of the sandbox renders them (renderError). A
 * Payments API error that reaches express anyway names its rule in
 * X-Sandbox-Scenario, as the API's answers do.
 */
export function expressErrors(apiBase: string): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const rendered = renderError(error);
    if (req.originalUrl.startsWith(apiBase)) res.setHeader('X-Sandbox-Scenario', rendered.error.scenario ?? 'internal-error');
    res.statusCode = rendered.status;
    res.set(rendered.headers);
    res.setHeader('Content-Length', Buffer.byteLength(rendered.text));
    res.end(req.method === 'HEAD' ? undefined : rendered.text);
  };
}
