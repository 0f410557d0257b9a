// The module itself, not the package index: the index loads the whole mock generator (faker), which the sandbox never uses.
import { getHttpOperationsFromSpec } from '@stoplight/prism-http/dist/utils/operations.js';
import { validateInput, validateOutput } from '@stoplight/prism-http/dist/validator/index.js';

/**
 * The only module that talks to @stoplight/prism-http. It parses an OpenAPI
 * document once and checks requests and responses against it; prism caches
 * the compiled validators by schema identity, so the operations must be
 * reused, never parsed again per request.
 */

/** One operation of an OpenAPI document, as prism parsed it. */
export type HttpOperation = Awaited<ReturnType<typeof getHttpOperationsFromSpec>>[number];

/** One broken rule of the document: where (`body.amount`, `path.publicKey`) and what. */
export interface Violation {
  /** `body`, `path`, `query` or `header`, then the field's path, joined with dots */
  where: string;
  /** the JSON Schema keyword that failed (`required`, `pattern`, `type`, ...) */
  keyword: string;
  /** prism's own sentence */
  message: string;
}

/** A request as the validator sees it. Header names must be lower case (prism expects them so). */
export interface RequestToCheck {
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  body: unknown;
}

/** A response as the validator sees it. */
export interface ResponseToCheck {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Parses an OpenAPI document (a file path) into its operations. Do it once, at start-up. */
export function loadOperations(file: string): Promise<HttpOperation[]> {
  return getHttpOperationsFromSpec(file);
}

/** The operationId of an operation. */
export const operationId = (operation: HttpOperation): string => operation.iid ?? operation.id;

/** Violations of a request against its operation; empty when it conforms. */
export function requestViolations(operation: HttpOperation, request: RequestToCheck): Violation[] {
  const element = {
    method: request.method.toLowerCase() as 'post',
    url: { path: request.path, query: request.query },
    headers: request.headers,
    body: request.body,
  };
  const result = validateInput({ resource: operation, element });
  return result._tag === 'Left' ? toViolations(result.left) : [];
}

/** Violations of a response against the responses its operation documents; empty when it conforms. */
export function responseViolations(operation: HttpOperation, response: ResponseToCheck): Violation[] {
  const element = { statusCode: response.status, headers: response.headers, body: response.body };
  const result = validateOutput({ resource: operation, element });
  return result._tag === 'Left' ? toViolations(result.left) : [];
}

type Diagnostic = { path?: string[]; code?: string | number; message: string; severity: number };

// DiagnosticSeverity.Error is 0; warnings (an undocumented 4xx status, say) are not violations.
function toViolations(diagnostics: readonly Diagnostic[]): Violation[] {
  return diagnostics
    .filter((diagnostic) => diagnostic.severity === 0)
    .map((diagnostic) => ({
      where: (diagnostic.path ?? []).join('.'),
      keyword: String(diagnostic.code ?? ''),
      message: diagnostic.message,
    }));
}
