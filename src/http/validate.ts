import type { RequestHandler } from 'express';
import { inputError, missingParameter, paymentTypeMissing } from '../errors.js';
import { relax } from '../validation/leniency.js';
import { operationId, requestViolations, type HttpOperation, type RequestToCheck, type Violation } from '../validation/operations.js';

/** The response header that lists the leniencies a request needed, joined with `; ` (README, "Accepted beyond the spec"). */
export const WARNINGS_HEADER = 'X-Sandbox-Warnings';

/** Operations whose refusals carry the provider's `Invalid/Missing parameters = <field>` body (README decisions). */
const PARAMETER_ERRORS = new Set(['refundPayment', 'cancelPayment']);

/** How strictly a router validates. */
export interface ValidationOptions {
  /** accept what the provider's clients send beyond the spec's types, with warnings (false: `--strict`, or the control API) */
  lenient: boolean;
}

/**
 * Checks a request against its operation in the OpenAPI document and refuses
 * it in the spec's error body: 400 Payment Type cannot be null for an
 * initiate body without paymentType (spec, Errors), the provider's
 * `Invalid/Missing parameters` body for refund and cancel, otherwise 400
 * INPUT with a message that names every offending field.
 *
 * When lenient, what the provider's clients send beyond the spec's types is
 * accepted: `req.body` becomes the relaxed body, the body as sent stays in
 * `res.locals.sentBody`, and the warnings go to `res.locals.warnings` and the
 * X-Sandbox-Warnings header.
 */
export function validateRequest(operation: HttpOperation, options: ValidationOptions): RequestHandler {
  const id = operationId(operation);
  return (req, res, next) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
    }
    // Every body was read as JSON whatever its Content-Type said, and a GET's was not read at all (src/http/api.ts).
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    else for (const name of ['content-type', 'content-length', 'transfer-encoding']) delete headers[name];
    const request: RequestToCheck = { method: req.method, path: req.path, query: req.query as Record<string, string>, headers, body: req.body };
    let violations = requestViolations(operation, request);
    if (violations.length === 0) return next();
    const body = req.body as Record<string, unknown> | undefined;
    if (id === 'initiatePayment' && typeof body === 'object' && body !== null && (body.paymentType ?? null) === null) {
      return next(paymentTypeMissing());
    }
    if (options.lenient) {
      let relaxed = relax(violations, req.body, res.locals.rawBody as Buffer | undefined);
      const warnings = new Set(relaxed.warnings);
      // Numbers read as strings and nulls left out: the new body must pass the document too.
      if (relaxed.changed) {
        relaxed = { ...relax(requestViolations(operation, { ...request, body: relaxed.body }), relaxed.body, undefined), body: relaxed.body };
        for (const warning of relaxed.warnings) warnings.add(warning);
      }
      violations = relaxed.rejected;
      if (warnings.size > 0) {
        res.locals.sentBody = req.body;
        res.locals.warnings = [...warnings];
        res.set(WARNINGS_HEADER, [...warnings].join('; '));
        req.body = relaxed.body;
      }
      if (violations.length === 0) return next();
    }
    if (PARAMETER_ERRORS.has(id)) return next(missingParameter(fieldOf(violations[0]!)));
    next(inputError(describe(violations)));
  };
}

/** One sentence per violation, each naming its field: "amount must match pattern ...; cvv is required". */
export function describe(violations: Violation[]): string {
  const sentences = violations
    .filter((violation) => violation.keyword !== 'if')
    .map((violation) => {
      const field = violation.where.split('.').slice(1).join('.');
      if (violation.keyword === 'required') {
        const missing = /property '([^']+)'/.exec(violation.message)?.[1];
        if (missing) return `${field ? `${field}.` : ''}${missing} is required`;
        return 'a request body is required';
      }
      const what = violation.message.replace(/^(Request|Response) (body|path|query|header)( (property|parameter) \S+)? ?/, '');
      if (what.startsWith(`${field} `)) return what;
      return field ? `${field} ${what}` : what;
    });
  return [...new Set(sentences)].join('; ');
}

// The field a refusal names: the missing property, or the one whose value is wrong.
function fieldOf(violation: Violation): string {
  if (violation.keyword === 'required') return /property '([^']+)'/.exec(violation.message)?.[1] ?? 'body';
  return violation.where.split('.').slice(1).join('.') || 'body';
}
