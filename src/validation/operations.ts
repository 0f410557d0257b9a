import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { HttpOperation, RequestToCheck, ResponseToCheck } from './http-shapes.js';
import { readPrepared, readPreparedResponses } from './prepared.js';
import { CompiledCheck } from './request-plan.js';
import type { Violation } from './violations.js';

/**
 * The operations of an OpenAPI document as prism parsed them, and the check
 * of a request against one. The shipped documents are parsed by prism at
 * build time (src/prepare.ts) into dist/prepared/, with their validators
 * compiled to standalone code; a document edited since, or any other, is
 * parsed at start-up the same way. Either way, the check runs ajv
 * validators compiled once per operation from the schemas prism compiles,
 * and words its violations as prism does.
 */

export type { Violation } from './violations.js';

export type { HttpOperation, RequestToCheck, ResponseToCheck } from './http-shapes.js';

const checks = new WeakMap<HttpOperation, CompiledCheck>();
// An operation of a prepared copy comes without its responses (start-up reads none): where they are, and the
// operation with them once read, the same object each time, since prism caches its validators by schema identity.
const responsesAt = new WeakMap<HttpOperation, { document: string; source: string; index: number }>();
const withResponses = new WeakMap<HttpOperation, HttpOperation>();
const documentResponses = new Map<string, HttpOperation['responses'][]>();

/**
 * Loads an OpenAPI document (a file path) into its operations: the build's
 * prepared copy when it was made from these very bytes, else parsed now by
 * prism. Do it once, at start-up.
 * @throws Error when the document cannot be read or parsed
 */
export async function loadOperations(file: string): Promise<HttpOperation[]> {
  const bytes = await readFile(file);
  const prepared = await readPrepared(file, bytes);
  const { operations, plans, validators } = prepared ?? (await (await import('./document.js')).parseDocument(file, bytes));
  operations.forEach((operation, index) => {
    checks.set(operation, new CompiledCheck(plans[index]!, validators));
    // A copy prepared before the responses had a file of their own still carries them.
    if (prepared && !('responses' in operation)) responsesAt.set(operation, { document: file, source: prepared.source, index });
  });
  return operations;
}

/** The operationId of an operation. */
export const operationId = (operation: HttpOperation): string => operation.iid ?? operation.id;

/**
 * Violations of a request against its operation; empty when it conforms.
 * @throws Error for an operation that did not come from loadOperations
 */
export function requestViolations(operation: HttpOperation, request: RequestToCheck): Violation[] {
  const check = checks.get(operation);
  if (!check) throw new Error(`the operation ${operationId(operation)} was not loaded by loadOperations`);
  return check.violations(request);
}

/**
 * Violations of a response against the responses its operation documents;
 * empty when it conforms. prism's own validateOutput, loaded on first use:
 * the server never checks its responses, the tests do.
 */
export function responseViolations(operation: HttpOperation, response: ResponseToCheck): Violation[] {
  const element = { statusCode: response.status, headers: response.headers, body: response.body };
  const result = prismValidator().validateOutput({ resource: documented(operation), element });
  return result._tag === 'Left' ? toViolations(result.left) : [];
}

/**
 * The operation with its documented responses (`responses`, as prism parsed
 * them): itself when it was parsed at start-up, else the same operation with
 * the responses read once from its prepared copy (src/prepare.ts leaves them
 * out of what start-up reads). For the tests, which check answers.
 * @throws Error as readPreparedResponses, for a broken build
 */
export function documented(operation: HttpOperation): HttpOperation {
  const at = responsesAt.get(operation);
  if (!at) return operation;
  let full = withResponses.get(operation);
  if (!full) {
    let responses = documentResponses.get(at.document);
    if (!responses) documentResponses.set(at.document, (responses = readPreparedResponses(at.document, at.source)));
    full = { ...operation, responses: responses[at.index]! };
    withResponses.set(operation, full);
  }
  return full;
}

type Diagnostic = { path?: string[]; code?: string | number; message: string; severity: number };
type Either = { _tag: 'Left'; left: Diagnostic[] } | { _tag: 'Right' };

let validator: { validateOutput: (input: object) => Either; validateInput: (input: object) => Either } | undefined;

function prismValidator(): NonNullable<typeof validator> {
  validator ??= createRequire(import.meta.url)('@stoplight/prism-http/dist/validator/index.js') as NonNullable<typeof validator>;
  return validator;
}

/**
 * prism's own validateInput on a request: the reference the compiled check
 * is held to (at build time and in the tests), never used to serve.
 */
export function prismRequestViolations(operation: HttpOperation, request: RequestToCheck): Violation[] {
  const element = { method: request.method.toLowerCase(), url: { path: request.path, query: request.query }, headers: request.headers, body: request.body };
  const result = prismValidator().validateInput({ resource: operation, element });
  return result._tag === 'Left' ? toViolations(result.left) : [];
}

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
