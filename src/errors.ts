/**
 * The one error type of the sandbox. Anything that must answer with an HTTP
 * error throws an ApiError; the error renderer (src/http/render-error.ts) is
 * the only place that turns it into a response.
 *
 * The body is the spec's HTTP error shape (spec, Errors > HTTP-level errors):
 * `{message, error}`; the key exchange endpoint's 404 carries `error` only.
 */
export class ApiError extends Error {
  /** the rule that decided this answer, for the X-Sandbox-Scenario header */
  scenario?: string;

  /**
   * @param status HTTP status code (400, 401, 403, 404 or 500 in the spec).
   * @param body   the response body, sent as it is.
   */
  constructor(
    readonly status: number,
    readonly body: { message?: string; error: string },
    scenario?: string,
  ) {
    super(body.message ?? body.error);
    this.name = 'ApiError';
    this.scenario = scenario;
  }
}

// Each refusal carries the name of the catalogue rule that gives the same
// answer on demand (scenarios/payments.yaml), for the X-Sandbox-Scenario header.

/** 400 Bad Request: the request could not be read (malformed JSON and the like). */
export const badRequest = (why: string): ApiError =>
  new ApiError(400, { message: 'Bad Request', error: why }, 'bad-request');

/** 400 with `error: "INPUT"`: the request was read but a field is wrong; `message` names it. */
export const inputError = (message: string): ApiError =>
  new ApiError(400, { message, error: 'INPUT' }, 'invalid-input');

/** 400 Payment Type cannot be null (spec, Errors): initiate body without paymentType. */
export const paymentTypeMissing = (): ApiError =>
  new ApiError(400, { message: 'Payment Type cannot be null', error: 'INPUT' }, 'payment-type-missing');

/** 401 Invalid Authentication Token (spec, Authentication rule 4). */
export const invalidToken = (): ApiError =>
  new ApiError(401, { message: 'Invalid Authentication Token', error: 'INPUT' }, 'invalid-token');

/** 403 Header Token Missing (spec, Authentication rule 4). */
export const headerTokenMissing = (): ApiError =>
  new ApiError(403, { message: 'Header Token Missing', error: 'PERMISSION' }, 'header-token-missing');

/** 403 Confirm Merchant Environment (spec, Authentication rule 5): live credentials in the sandbox. */
export const wrongEnvironment = (): ApiError =>
  new ApiError(403, { message: 'Confirm Merchant Environment', error: 'PERMISSION' }, 'wrong-environment');

/** 404 Not Found; `what` says which resource could not be found. */
export const notFound = (what: string): ApiError =>
  new ApiError(404, { message: 'Not Found', error: what }, 'not-found');

/** 500 with `error: "PROCESSING"` (spec, Errors): the documented server-side refusals. */
export const processingError = (message: string, scenario: string): ApiError =>
  new ApiError(500, { message, error: 'PROCESSING' }, scenario);

/** 500 Internal Server Error / PROCESSING: an unexpected failure (spec, Errors). */
export const internalError = (): ApiError => processingError('Internal Server Error', 'internal-error');
