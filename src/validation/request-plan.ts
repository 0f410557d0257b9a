import type { ErrorObject } from 'ajv';
import type { RequestToCheck } from './http-shapes.js';
import type { Violation } from './violations.js';

/**
 * How one operation's requests are checked, read once from prism's parsed
 * operation (src/validation/request-schemas.ts) and kept as plain JSON in
 * the prepared files. The checks themselves are ajv validators compiled
 * from the same schemas prism compiles; this module runs them the way
 * prism's `validateInput` does, so that the violations, their order and
 * their messages are prism's own (checked against prism in
 * test/unit/validation/compiled-check.test.ts and at every build).
 */
export interface RequestPlan {
  /** the operation's path template, e.g. `/payments/query/{paymentReference}` */
  template: string;
  /** absent: the operation takes no body, and a non-empty one is refused (415) */
  body?: {
    required: boolean;
    /** the media types the document lists, for the 415 message */
    mediaTypes: string[];
    /** the name of the body's compiled validator; absent when the document gives no schema */
    validator?: string;
  };
  query?: ParameterPlan;
  path?: ParameterPlan;
}

/** The parameters of one place (query or path), validated together as one object, as prism does. */
export interface ParameterPlan {
  /** the name of the compiled validator of `{<lower-case name>: value}` */
  validator: string;
  parameters: Array<{ name: string; array: boolean }>;
}

/** An ajv validator as compiled, standalone or at run time. */
export type CompiledValidator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/** The validators of a plan, by name. */
export type Validators = Record<string, CompiledValidator>;

/** A checker for one operation: its path matcher is built once, never per request. */
export class CompiledCheck {
  private readonly pathMatcher: RegExp | undefined;

  /**
   * @param plan       the operation's plan
   * @param validators the compiled validators the plan names
   * @throws Error when the plan names a validator that is not there (prepared files out of step)
   */
  constructor(
    private readonly plan: RequestPlan,
    private readonly validators: Validators,
  ) {
    for (const name of [plan.body?.validator, plan.query?.validator, plan.path?.validator]) {
      if (name !== undefined && typeof validators[name] !== 'function') throw new Error(`the prepared validators lack ${name}: run npm run build`);
    }
    this.pathMatcher = plan.path ? templateMatcher(plan.template) : undefined;
  }

  /** Violations of a request, in prism's order (body, query, path); empty when it conforms. */
  violations(request: RequestToCheck): Violation[] {
    const found: Violation[] = [];
    this.checkBody(request, found);
    const query = this.plan.query;
    if (query) this.checkParameters(query, 'query', request.query, found);
    const path = this.plan.path;
    if (path) this.checkParameters(path, 'path', this.pathParameters(request.path), found);
    return found;
  }

  private checkBody(request: RequestToCheck, found: Violation[]): void {
    const body = this.plan.body;
    // Any falsy body counts as absent for the required check, as in prism.
    if (body?.required && !request.body) {
      found.push({ where: '', keyword: 'required', message: 'Body parameter is required' });
      return;
    }
    const contentType = request.headers['content-type'];
    const mediaType = contentType === undefined ? undefined : contentType.split(';')[0]!.trim().toLowerCase();
    if ((Number.parseInt(request.headers['content-length'] ?? '', 10) || 0) !== 0) {
      if (!body) {
        found.push({ where: '', keyword: '415', message: 'No supported content types, but request included a non-empty body' });
        return;
      }
      if (mediaType !== undefined && !body.mediaTypes.some((listed) => mediaTypeMatches(mediaType, listed))) {
        found.push({ where: '', keyword: '415', message: `Supported content types: ${body.mediaTypes.join(',')}` });
        return;
      }
    }
    if (body?.validator === undefined || request.body === undefined || request.body === null) return;
    this.run(body.validator, request.body, 'body', found);
  }

  private checkParameters(plan: ParameterPlan, prefix: 'query' | 'path', target: Record<string, unknown>, found: Violation[]): void {
    const lowered: Record<string, unknown> = {};
    for (const key of Object.keys(target)) lowered[key.toLowerCase()] = target[key];
    const values: Record<string, unknown> = {};
    for (const parameter of plan.parameters) {
      const value = prefix === 'query' ? formValue(lowered[parameter.name], parameter.array) : simpleValue(lowered[parameter.name], parameter.array);
      // Falsy values are left out, so an empty one counts as missing.
      if (value) values[parameter.name] = value;
    }
    this.run(plan.validator, values, prefix, found);
  }

  private pathParameters(path: string): Record<string, unknown> {
    const match = this.pathMatcher!.exec(path);
    if (!match?.groups) return {};
    const parameters: Record<string, unknown> = {};
    for (const [name, text] of Object.entries(match.groups)) {
      const parts = (text ?? '').split(',').map(decodeURIComponent);
      parameters[name] = parts.length > 1 ? parts : parts[0];
    }
    return parameters;
  }

  private run(name: string, value: unknown, prefix: string, found: Violation[]): void {
    const validate = this.validators[name]!;
    let valid: boolean;
    try {
      valid = validate(value);
    } catch {
      // prism treats a validator that throws as one that found nothing.
      return;
    }
    if (valid || !validate.errors) return;
    for (const error of validate.errors) found.push(violationOf(error, prefix));
  }
}

/** prism's sentence for an ajv error (its convertAjvErrors), for requests. */
function violationOf(error: ErrorObject, prefix: string): Violation {
  const params = error.params as Record<string, unknown>;
  const allowed = 'allowedValues' in params ? `: ${(params.allowedValues as unknown[]).join(', ')}` : '';
  const additional = 'additionalProperty' in params ? `; found '${String(params.additionalProperty)}'` : '';
  const unevaluated = 'unevaluatedProperty' in params ? `: '${String(params.unevaluatedProperty)}'` : '';
  const segments = error.instancePath.split('/').filter((segment) => segment !== '');
  const kind = segments.length > 0 ? (prefix === 'body' ? 'property ' : 'parameter ') : '';
  const source = `Request ${prefix} ${kind}${segments.join('.').trim()}${segments.length > 0 ? ' ' : ''}`;
  return {
    where: [prefix, ...segments].join('.'),
    keyword: error.keyword || '',
    message: `${source}${error.message ?? ''}${allowed}${additional}${unevaluated}`,
  };
}

// The form style as prism reads it (explode false unless the document says so): arrays from the last value, split on commas.
function formValue(value: unknown, array: boolean): unknown {
  if (!value) return undefined;
  if (!array) return value;
  const last = Array.isArray(value) ? value[value.length - 1] : value;
  return String(last).split(',');
}

// The simple style: arrays split on commas, anything else as matched.
function simpleValue(value: unknown, array: boolean): unknown {
  if (!array || value === undefined) return value;
  return value === '' ? [] : String(value).split(',');
}

// What prism's URI template matcher does for `{name}` expressions: each lazily matched, the whole path anchored.
function templateMatcher(template: string): RegExp {
  let source = '^';
  let rest = template;
  for (;;) {
    const open = rest.indexOf('{');
    if (open < 0) break;
    const close = rest.indexOf('}', open);
    source += escapeRegExp(rest.slice(0, open)) + `(?<${rest.slice(open + 1, close)}>.*?)`;
    rest = rest.slice(close + 1);
  }
  return new RegExp(`${source}${escapeRegExp(rest)}$`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

// prism's wildcardMediaTypeMatch for the media types a document may list (`*/*`, `type/*`, exact).
function mediaTypeMatches(mediaType: string, listed: string): boolean {
  const [type, subtype] = parts(mediaType);
  const [listedType, listedSubtype] = parts(listed);
  return (listedType === '*' || listedType === type) && (listedSubtype === '*' || listedSubtype === subtype);
}

// Type and subtype, lower case, the subtype without its structured-syntax prefix (`problem+json` is `json`).
function parts(mediaType: string): [string, string] {
  const essence = mediaType.toLowerCase().split(';')[0]!.trim();
  const slash = essence.indexOf('/');
  const subtype = essence.slice(slash + 1);
  return [essence.slice(0, slash), subtype.slice(subtype.lastIndexOf('+') + 1)];
}
