import { ApiError, badRequest, internalError, notFound, payloadTooLarge, storeUnavailable } from '../errors.js';
import { StoreUnavailableError } from '../store/store.js';

/**
 * What an error becomes as an answer, for every part of the sandbox: an
 * ApiError as it is; a store that cannot write as 503; a body that could not
 * be read as 400 Bad Request (spec, Errors), or 413 beyond its limit;
 * anything else as 500 Internal Server Error / PROCESSING, logged to stderr.
 * The Payments API renders it in src/api/api-answer.ts, the express app in
 * src/http/render-error.ts.
 */
export function toApiError(error: unknown): ApiError {
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

/** An error as it is answered: its status, its headers (its own, header-safe, and the JSON body's type) and its body's text. */
export interface RenderedError {
  error: ApiError;
  status: number;
  headers: Record<string, string>;
  text: string;
}

/**
 * The one place an error becomes an answer, for both APIs and the pages:
 * toApiError's ApiError, its body (each API's own envelope, chosen where it
 * was thrown) as JSON. The Payments API adds its rule's name and delay
 * (src/api/api-answer.ts); express's error handler writes it (src/http/render-error.ts).
 */
export function renderError(error: unknown): RenderedError {
  const apiError = toApiError(error);
  return { error: apiError, status: apiError.status, headers: { ...headerSafe(apiError.headers), 'Content-Type': 'application/json; charset=utf-8' }, text: JSON.stringify(apiError.body) };
}
