/** The spec's HTTP error body (spec, Errors > HTTP-level errors); the key exchange endpoint's 404 carries `error` only. */
export interface ErrorBody {
  message?: string;
  error: string;
}

/**
 * The provider's error envelope, where the spec shows no error body (refund,
 * cancel, the hash endpoint): `{status: "ERROR", data: {code, message}}`
 * (the provider's public OpenAPI description, 400Response2-11, 403Response2-3).
 */
export interface ErrorEnvelope {
  status: 'ERROR';
  data: { code: string; message: string };
}

/**
 * The one error type of the sandbox. Anything that must answer with an HTTP
 * error throws an ApiError; the error renderer (src/http/render-error.ts) is
 * the only place that turns it into a response.
 */
export class ApiError extends Error {
  /** the rule that decided this answer, for the X-Sandbox-Scenario header */
  scenario?: string;

  /**
   * @param status  HTTP status code (400, 401, 403, 404, 405 or 500).
   * @param body    the response body, sent as it is.
   * @param headers extra response headers (Allow of a 405)
   */
  constructor(
    readonly status: number,
    readonly body: ErrorBody | ErrorEnvelope,
    scenario?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super('error' in body ? (body.message ?? body.error) : body.data.message);
    this.name = 'ApiError';
    this.scenario = scenario;
  }
}

// Each refusal carries the name of the catalogue rule that gives the same
// answer on demand (scenarios/payments.yaml), for the X-Sandbox-Scenario header.

/** The provider's text for a request that could not be read (external-api.yml, 400Response). */
export const UNREADABLE = 'There has been a problem with reading or understanding the request.';

/** The provider's text for an unknown resource (external-api.yml, 404Response1). */
export const NOT_FOUND_TEXT = 'The server can not find the requested resource';

/**
 * 400 Bad Request: the request could not be read (malformed JSON and the like).
 * The body carries the provider's text; `why` goes to the X-Sandbox-Detail header.
 */
export const badRequest = (why: string): ApiError =>
  new ApiError(400, { message: 'Bad Request', error: UNREADABLE }, 'bad-request', { 'X-Sandbox-Detail': why });

/** 400 with `error: "INPUT"`: the request was read but a field is wrong; `message` names it. */
export const inputError = (message: string): ApiError =>
  new ApiError(400, { message, error: 'INPUT' }, 'invalid-input');

/** 400 Payment Type cannot be null (spec, Errors): initiate body without paymentType. */
export const paymentTypeMissing = (): ApiError =>
  new ApiError(400, { message: 'Payment Type cannot be null', error: 'INPUT' }, 'payment-type-missing');

/**
 * The refusals of a body the spec or the provider words itself, where the
 * document's check would name every offending field in the sandbox's words:
 * an operation's entry in src/domain/registry.ts holds its own, and the
 * check of a request (src/validation/check-request.ts) applies them.
 */
export interface BodyRefusals {
  /**
   * A field the body must not leave out nor send `null`: when the body is
   * refused, this refusal comes first, whatever else is wrong and before any
   * leniency (the initiate's paymentType, 400 Payment Type cannot be null;
   * spec, Errors).
   */
  refusedFirst?: { field: string; refusal: () => ApiError };
  /**
   * The provider's `<Field> cannot be null` / INPUT for the first of these
   * fields the refusal finds left out or `null`, in this order; the body's
   * other refusals keep the sandbox's words
   * (docs/decisions.md#d64-subscription-null-messages).
   */
  nullMessages?: ReadonlyArray<readonly [field: string, message: string]>;
}

/** 401 Invalid Authentication Token (spec, Authentication rule 4). */
export const invalidToken = (): ApiError =>
  new ApiError(401, { message: 'Invalid Authentication Token', error: 'INPUT' }, 'invalid-token');

/** 403 Header Token Missing (spec, Authentication rule 4). */
export const headerTokenMissing = (): ApiError =>
  new ApiError(403, { message: 'Header Token Missing', error: 'PERMISSION' }, 'header-token-missing');

/** 403 Confirm Merchant Environment (spec, Authentication rule 5): live credentials in the sandbox. */
export const wrongEnvironment = (): ApiError =>
  new ApiError(403, { message: 'Confirm Merchant Environment', error: 'PERMISSION' }, 'wrong-environment');

/** 413: a body larger than the sandbox reads (`limit` bytes), in the spec's error body. */
export const payloadTooLarge = (limit: number): ApiError =>
  new ApiError(413, { message: 'Payload Too Large', error: `The request body is larger than ${limit} bytes` }, 'payload-too-large');

/**
 * 404 Not Found with the provider's text; `what` (which resource could not be
 * found) goes to the X-Sandbox-Detail header.
 */
export const notFound = (what: string): ApiError =>
  new ApiError(404, { message: 'Not Found', error: NOT_FOUND_TEXT }, 'not-found', { 'X-Sandbox-Detail': what });

/**
 * 404 `{"error":"Not Found"}`, `error` only: the key exchange's, for any
 * other method on its path and any path below it (spec, endpoint 1;
 * docs/decisions.md#d23-unknown-paths).
 */
export const keysNotFound = (): ApiError => new ApiError(404, { error: 'Not Found' }, 'keys-not-found');

/** 404 in the provider's order-service shape, e.g. "Orders Not Found" (external-api.yml, Order404Response1-2). */
export const ordersNotFound = (message: 'Orders Not Found' | 'Transaction Not Found', scenario: string): ApiError =>
  new ApiError(404, { message, error: 'NOT_FOUND' }, scenario);

/** 404 Subscription Not Found: a billingId that is none of the merchant's subscriptions (external-api.yml, 404Response2). */
export const subscriptionNotFound = (billingId: string): ApiError =>
  new ApiError(404, { message: 'Subscription Not Found', error: 'NOT_FOUND' }, 'subscription-not-found', { 'X-Sandbox-Detail': `No subscription with billingId ${billingId.slice(0, 100)}` });

/**
 * 405 for a known path asked with another method, naming the method it takes
 * (docs/decisions.md#d23-unknown-paths, docs/decisions.md#d49-node-sdk-gets: the Node SDK sends
 * refund and cancel as GET).
 */
export const methodNotAllowed = (method: string, path: string, allowed: string[]): ApiError =>
  new ApiError(
    405,
    { message: 'Method Not Allowed', error: `${method} is not supported by ${path}: send ${allowed.join(' or ')}` },
    'method-not-allowed',
    { Allow: allowed.join(', ') },
  );

/** The provider's error envelope (`status: ERROR`, code S12) with its HTTP status. */
export const providerError = (status: number, message: string, scenario: string): ApiError =>
  new ApiError(status, { status: 'ERROR', data: { code: 'S12', message } }, scenario);

/** 400 Invalid/Missing parameters = <field>: refund and cancel (external-api.yml, 400Response2-6). */
export const missingParameter = (field: string): ApiError =>
  providerError(400, `Invalid/Missing parameters = ${field}`, 'invalid-parameters');

/** 400 No authorised transaction found for this reference: refund or cancel of a payment never paid (external-api.yml, 400Response11). */
export const noAuthorisedTransaction = (reason?: string): ApiError => {
  const error = providerError(400, 'No authorised transaction found for this reference', 'no-authorised-transaction');
  if (reason !== undefined) error.headers['X-Sandbox-Reason'] = reason;
  return error;
};

/**
 * 403 Bad credentials: Basic credentials of refund and cancel that name no
 * merchant, or a public key the credentials are not for (external-api.yml,
 * 403Response2-3).
 */
export const badCredentials = (invalidPublicKey: boolean): ApiError =>
  providerError(403, invalidPublicKey ? 'Bad credentials = invalid public key' : 'Bad credentials', 'bad-credentials');

/** 500 with `error: "PROCESSING"` (spec, Errors): the documented server-side refusals. */
export const processingError = (message: string, scenario: string): ApiError =>
  new ApiError(500, { message, error: 'PROCESSING' }, scenario);

/**
 * 503 Store unavailable / PROCESSING: the store could not write (a full disk);
 * nothing of the request was kept, and the store retries by itself (README, "Storage").
 */
export const storeUnavailable = (): ApiError =>
  new ApiError(503, { message: 'Store unavailable', error: 'PROCESSING' }, 'store-unavailable');

/** 500 Internal Server Error / PROCESSING: an unexpected failure (spec, Errors). */
export const internalError = (): ApiError => processingError('Internal Server Error', 'internal-error');

/**
 * 403 / PERMISSION: a state-changing request a web page of another site sent
 * (its `Origin`, or `Sec-Fetch-Site: cross-site`), which the Payments API
 * answers only with `--cors` (README, "Who may drive the sandbox").
 * @param origin the page's origin as sent, or `another site`
 */
export const foreignOriginRefused = (origin: string): ApiError =>
  new ApiError(
    403,
    { message: `A page of ${origin} cannot call the Payments API: only clients that are no web page, and pages of the sandbox itself, can, unless it is started with --cors`, error: 'PERMISSION' },
    'origin-not-allowed',
  );

/**
 * 415 Unsupported Media Type: a body whose Content-Type does not declare JSON
 * (a form, `text/plain`, none at all), as the production API refuses it
 * (spec, Conventions: bodies are sent with `Content-Type: application/json`).
 * @param type the Content-Type as sent; undefined when the body came without one
 */
export const unsupportedMediaType = (type: string | undefined): ApiError =>
  new ApiError(
    415,
    { message: 'Unsupported Media Type', error: `The Payments API reads JSON bodies (Content-Type: application/json), not ${type === undefined ? 'a body without Content-Type' : type.slice(0, 100)}` },
    'unsupported-media-type',
  );

/**
 * 503 Merchant limit reached / PROCESSING: a new merchant when the sandbox
 * already keeps `limit` of them; nothing is stored, and the merchants it has
 * keep working (docs/decisions.md#d44-merchant-limit). `X-Sandbox-Detail` says
 * what to do.
 */
export const merchantLimitReached = (limit: number): ApiError =>
  new ApiError(503, { message: 'Merchant limit reached', error: 'PROCESSING' }, 'merchant-limit', {
    'X-Sandbox-Detail': `The sandbox keeps at most ${limit} merchants and has that many: use a key pair it knows, start it on a new store file, or raise --max-merchants`,
  });
