import type { Body } from '../domain/request.js';
import { checkRequest, requestToCheck, type CheckOptions, type IncomingRequest } from '../validation/check-request.js';
import type { HttpOperation } from '../validation/operations.js';
import type { ApiExchange } from './exchange.js';

/** The response header that lists the leniencies a request needed, joined with `; ` (README, "Accepted beyond the spec"). */
export const WARNINGS_HEADER = 'X-Sandbox-Warnings';

/** How strictly a request is validated. */
export type ValidationOptions = CheckOptions;

/**
 * The validation step of the Payments API (src/validation/check-request.ts
 * does the checking).
 * @returns the body to act on: relaxed when a leniency applied (the warnings
 *   then go to `exchange.warnings` and the X-Sandbox-Warnings header), else
 *   as sent (`exchange.sent` stays as sent); {} when there is none
 * @throws ApiError for a request the document refuses
 */
export function validateBody(operation: HttpOperation, req: IncomingRequest, exchange: ApiExchange, options: ValidationOptions): Body {
  const checked = checkRequest(operation, requestToCheck(req), exchange.raw, options);
  warn(exchange, checked.warnings);
  return (checked.body ?? {}) as Body;
}

/**
 * Adds warnings to the exchange's (for the journal) and to the
 * X-Sandbox-Warnings header: the validation step's leniencies, and what an
 * operation accepted beyond the spec (src/domain/answer.ts, Answer.warnings).
 * @param warnings one sentence each, printable ASCII (a header's value)
 */
export function warn(exchange: ApiExchange, warnings: readonly string[]): void {
  if (warnings.length === 0) return;
  exchange.warnings = [...(exchange.warnings ?? []), ...warnings];
  exchange.headers[WARNINGS_HEADER] = exchange.warnings.join('; ');
}
