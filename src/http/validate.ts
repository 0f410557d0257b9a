import type { RequestHandler } from 'express';
import { checkRequest, requestToCheck, type CheckOptions } from '../validation/check-request.js';
import type { HttpOperation } from '../validation/operations.js';

/** The response header that lists the leniencies a request needed, joined with `; ` (README, "Accepted beyond the spec"). */
export const WARNINGS_HEADER = 'X-Sandbox-Warnings';

/** How strictly a router validates. */
export type ValidationOptions = CheckOptions;

/**
 * The validation step of a router (src/validation/check-request.ts does the
 * checking): a refusal goes to the error renderer; an accepted request
 * continues with `req.body` as relaxed, the body as sent in
 * `res.locals.sentBody`, and the warnings in `res.locals.warnings` and the
 * X-Sandbox-Warnings header.
 */
export function validateRequest(operation: HttpOperation, options: ValidationOptions): RequestHandler {
  return (req, res, next) => {
    const checked = checkRequest(operation, requestToCheck(req), res.locals.rawBody as Buffer | undefined, options);
    if (checked.warnings.length > 0) {
      res.locals.sentBody = req.body;
      res.locals.warnings = checked.warnings;
      res.set(WARNINGS_HEADER, checked.warnings.join('; '));
      req.body = checked.body;
    }
    next();
  };
}
