import { inputError, missingParameter, type BodyRefusals } from '../errors.js';
import { refuseEmptyRequired, relax, unredirectableUrls } from './leniency.js';
import { closestName, propertyNamesAt } from './closest-name.js';
import { requestViolations, type HttpOperation, type RequestToCheck, type Violation } from './operations.js';

/** How strictly a request is checked. */
export interface CheckOptions {
  /** accept what the provider's clients send beyond the spec's types, with warnings (false: `--strict`, or the control API) */
  lenient: boolean;
  /**
   * refuse a parameter error with the provider's `Invalid/Missing parameters`
   * body: the operations of the provider's error family (src/domain/registry.ts)
   */
  providerErrors?: boolean;
  /** the operation's own words for some refusals of its body (its entry in src/domain/registry.ts) */
  bodyRefusals?: BodyRefusals;
}

/** A request that passed: its body to act on, and the leniencies it needed. */
export interface CheckedRequest {
  /** the body to act on: relaxed when a leniency applied, else as sent */
  body: unknown;
  /** one sentence per leniency used (README, "Accepted beyond the spec"); empty when none */
  warnings: string[];
}

/**
 * Checks a request against its operation in the OpenAPI document. When
 * lenient, what the provider's clients send beyond the spec's types is
 * accepted with warnings, and the relaxed body must pass the document too.
 * @param request header names lower case; `body` as parsed
 * @param raw     the body's bytes, to read numbers exactly
 * @throws ApiError the refusal of `bodyRefusals.refusedFirst` for a body
 *   without its field (the initiate's 400 Payment Type cannot be null, spec,
 *   Errors); the provider's `Invalid/Missing parameters` body for refund,
 *   cancel and the card operations (`options.providerErrors`); 400 INPUT
 *   `<Field> cannot be null` for a body without one of the fields
 *   `bodyRefusals.nullMessages` names (a subscription's,
 *   docs/decisions.md#d64-subscription-null-messages); otherwise 400 INPUT
 *   with a message that names every offending field.
 */
export function checkRequest(operation: HttpOperation, request: RequestToCheck, raw: Buffer | undefined, options: CheckOptions): CheckedRequest {
  let violations = requestViolations(operation, request);
  // A URL the document takes may still be one the pages never redirect to: the client hears of it all the same.
  if (violations.length === 0) return { body: request.body, warnings: unredirectableUrls(request.body) };
  const body = request.body as Record<string, unknown> | undefined;
  const first = options.bodyRefusals?.refusedFirst;
  if (first && typeof body === 'object' && body !== null && (body[first.field] ?? null) === null) throw first.refusal();
  let relaxedBody = request.body;
  const warnings = new Set<string>();
  if (options.lenient) {
    const first = relax(violations, request.body, raw);
    relaxedBody = first.body;
    first.warnings.forEach((warning) => warnings.add(warning));
    violations = first.rejected;
    // Numbers read as strings, nulls and empty strings left out: the new body must pass the document too.
    if (first.changed) {
      const second = relax(requestViolations(operation, { ...request, body: relaxedBody }), relaxedBody, undefined);
      second.warnings.forEach((warning) => warnings.add(warning));
      violations = refuseEmptyRequired(second.rejected, first.emptied);
    }
  }
  if (violations.length === 0) return { body: relaxedBody, warnings: [...warnings] };
  if (options.providerErrors) throw missingParameter(fieldOf(violations[0]!));
  const nullMessages = options.bodyRefusals?.nullMessages;
  const providerWords = nullMessages ? nullMessageOf(nullMessages, violations, body) : undefined;
  throw inputError(providerWords ?? describe(violations, { body: request.body, schema: bodySchema(operation) }));
}

// The message of the first listed field the violations find missing (lenient: a null is left out first) or null
// (strict: a null is a wrong type), if any; the other violations keep the sandbox's own message.
function nullMessageOf(messages: NonNullable<BodyRefusals['nullMessages']>, violations: Violation[], body: Record<string, unknown> | undefined): string | undefined {
  const missing = new Set(violations.filter((violation) => violation.keyword === 'required' && violation.where === 'body').map(fieldOf));
  const found = messages.find(([field]) => missing.has(field) || (body?.[field] === null && violations.some((violation) => violation.where === `body.${field}`)));
  return found?.[1];
}

/** What a request looks like to the check, as node's and express's requests carry it. */
export interface IncomingRequest {
  method: string;
  path: string;
  query: unknown;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** A request as the validator sees it: lower-case header names, and a body only when one was read. */
export function requestToCheck(req: IncomingRequest): RequestToCheck {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  // Every body was read as JSON whatever its Content-Type said, and a GET's was not read at all.
  if (req.body !== undefined) headers['content-type'] = 'application/json';
  else for (const name of ['content-type', 'content-length', 'transfer-encoding']) delete headers[name];
  return { method: req.method, path: req.path, query: req.query as Record<string, string>, headers, body: req.body };
}

/** The most sentences a refusal's message carries; the rest are counted. */
const MAX_SENTENCES = 10;

/** The longest sentence kept whole, in characters: one quotes the property name a client made up. */
const MAX_SENTENCE = 300;

/** What `describe` may read beside the violations: the body as sent and its schema, to name items and suggest names. */
export interface DescribeContext {
  body?: unknown;
  /** the operation's body schema, dereferenced (HttpOperation's `request.body.contents[0].schema`) */
  schema?: unknown;
}

/** The body schema of an operation, dereferenced as prism parsed it; undefined when it takes no body. */
export function bodySchema(operation: HttpOperation): unknown {
  return operation.request?.body?.contents?.[0]?.schema;
}

/**
 * One sentence per violation, each naming its field: "amount must match
 * pattern ...; cvv is required". At most MAX_SENTENCES of them, each cut at
 * MAX_SENTENCE characters, then "and N more": a body of 10,000 wrong order
 * items is refused in a message of a few lines (README, "Bounds").
 * With `context`, an array item that has a string `id` is named by it too
 * (`steps.0 (id card1)`), and a property the schema does not know is
 * followed by the closest one it does ("did you mean 'expect'?").
 */
export function describe(violations: Violation[], context: DescribeContext = {}): string {
  const sentences = violations
    .filter((violation) => violation.keyword !== 'if')
    .map((violation) => {
      const segments = violation.where.split('.').slice(1);
      const field = named(segments, context.body);
      if (violation.keyword === 'required') {
        const missing = /property '([^']+)'/.exec(violation.message)?.[1];
        if (missing) return `${field ? `${field}.` : ''}${missing} is required`;
        return 'a request body is required';
      }
      const unknown = violation.keyword === 'additionalProperties' ? /; found '([^']*)'$/.exec(violation.message)?.[1] : undefined;
      if (unknown !== undefined) {
        const suggestion = closestName(unknown, propertyNamesAt(context.schema, segments));
        return `${field ? `${field} has` : 'the body has'} an unknown field '${unknown}'${suggestion === undefined ? '' : `: did you mean '${suggestion}'?`}`;
      }
      const what = violation.message.replace(/^(Request|Response) (body|path|query|header)( (property|parameter) \S+)? ?/, '');
      const plain = segments.join('.');
      if (what.startsWith(`${plain} `)) return field === plain ? what : `${field}${what.slice(plain.length)}`;
      return field ? `${field} ${what}` : what;
    });
  const distinct = [...new Set(sentences)];
  const kept = distinct.slice(0, MAX_SENTENCES).map((sentence) => (sentence.length > MAX_SENTENCE ? `${sentence.slice(0, MAX_SENTENCE)}…` : sentence));
  return distinct.length > MAX_SENTENCES ? `${kept.join('; ')}; and ${distinct.length - MAX_SENTENCES} more` : kept.join('; ');
}

// The dotted path of a field, each array item that carries a string `id` named by it: `steps.2 (id refund1).expect`.
function named(segments: readonly string[], body: unknown): string {
  let value = body;
  return segments
    .map((segment) => {
      value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[segment] : undefined;
      const id = /^\d+$/.test(segment) && typeof value === 'object' && value !== null ? (value as { id?: unknown }).id : undefined;
      return typeof id === 'string' && id.length <= 64 ? `${segment} (id ${id})` : segment;
    })
    .join('.');
}

// The field a refusal names: the missing property, or the one whose value is wrong.
function fieldOf(violation: Violation): string {
  if (violation.keyword === 'required') return /property '([^']+)'/.exec(violation.message)?.[1] ?? 'body';
  return violation.where.split('.').slice(1).join('.') || 'body';
}
