import type { RequestHandler } from 'express';
import { inputError, paymentTypeMissing } from '../errors.js';
import { operationId, requestViolations, type HttpOperation, type Violation } from '../validation/operations.js';

/**
 * Checks a request against its operation in the OpenAPI document and refuses
 * it in the spec's error body: 400 Payment Type cannot be null for an
 * initiate body without paymentType (spec, Errors), otherwise 400 INPUT with a
 * message that names every offending field.
 */
export function validateRequest(operation: HttpOperation): RequestHandler {
  const initiate = operationId(operation) === 'initiatePayment';
  return (req, _res, next) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
    }
    // Every body was read as JSON whatever its Content-Type said (src/http/api.ts).
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    const violations = requestViolations(operation, {
      method: req.method,
      path: req.path,
      query: req.query as Record<string, string>,
      headers,
      body: req.body,
    });
    if (violations.length === 0) return next();
    const body = req.body as Record<string, unknown> | undefined;
    if (initiate && typeof body === 'object' && body !== null && (body.paymentType ?? null) === null) {
      return next(paymentTypeMissing());
    }
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
      return field ? `${field} ${what}` : what;
    });
  return [...new Set(sentences)].join('; ');
}
