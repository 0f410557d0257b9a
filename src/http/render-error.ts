import type { ErrorRequestHandler } from 'express';
import { ApiError, badRequest, internalError } from '../errors.js';

/**
 * The one place errors become responses: an ApiError as its status and body;
 * a body that could not be read as 400 Bad Request (spec, Errors); anything
 * else as 500 Internal Server Error / PROCESSING, logged to stderr.
 */
export const renderError: ErrorRequestHandler = (error, _req, res, _next) => {
  const apiError = toApiError(error);
  if (apiError.scenario) res.set('X-Sandbox-Scenario', apiError.scenario);
  res.status(apiError.status).json(apiError.body);
};

function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const status = (error as { status?: unknown }).status;
  // body-parser's errors (malformed JSON, a body too large, a bad charset) carry a 4xx status.
  if (typeof status === 'number' && status >= 400 && status < 500) return badRequest((error as Error).message);
  console.error('payments-sandbox: unexpected error:', error);
  return internalError();
}
