import { isDeepStrictEqual } from 'node:util';
import { operationId, prismRequestViolations, requestViolations, type HttpOperation, type RequestToCheck } from './operations.js';

/** One request on which the compiled check and prism disagree. */
export interface Disagreement {
  operation: string;
  request: RequestToCheck;
  compiled: unknown;
  prism: unknown;
}

/**
 * Holds the compiled check to prism's own validateInput on the requests the
 * document suggests: each example body, and each with one field taken out,
 * made null, a number, a long string, an object or a list; odd bodies; and
 * odd query and path values. The build fails on any disagreement
 * (src/prepare.ts); test/unit/validation/compiled-check.test.ts adds random requests.
 * @returns the disagreements, empty when the two agree everywhere
 */
export function disagreements(operations: HttpOperation[], extra: (operation: HttpOperation) => RequestToCheck[] = () => []): Disagreement[] {
  const found: Disagreement[] = [];
  for (const operation of operations) {
    for (const request of [...samplesOf(operation), ...extra(operation)]) {
      const compiled = requestViolations(operation, request);
      const prism = prismRequestViolations(operation, request);
      if (!isDeepStrictEqual(compiled, prism)) found.push({ operation: operationId(operation), request, compiled, prism });
    }
  }
  return found;
}

/** A request to an operation with this body, query and path (template values filled with `pathValue`). */
export function requestTo(operation: HttpOperation, body: unknown, query: Record<string, string | string[]> = {}, pathValue = 'SBREF-1'): RequestToCheck {
  const path = operation.path.replace(/\{[^}]+\}/g, pathValue);
  const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(JSON.stringify(body)?.length ?? 0) };
  return { method: operation.method, path, query, headers, body };
}

function samplesOf(operation: HttpOperation): RequestToCheck[] {
  const examples = (operation.request?.body?.contents ?? []).flatMap((content) => (content.examples ?? []).map((example) => ('value' in example ? example.value : undefined)));
  const bodies: unknown[] = [undefined, null, {}, [], 'text', 0, ...examples];
  for (const example of examples) {
    if (typeof example !== 'object' || example === null) continue;
    for (const key of Object.keys(example)) {
      const { [key]: _left, ...without } = example as Record<string, unknown>;
      bodies.push(without);
      for (const value of [null, 12345, 1.5, 'x'.repeat(300), '', {}, [], true]) bodies.push({ ...example, [key]: value });
    }
    bodies.push({ ...example, unexpectedField: 'x' });
  }
  const requests = bodies.map((body) => requestTo(operation, body));
  for (const parameter of operation.request?.query ?? []) {
    for (const value of ['abc', '5', '-1', '0', '1001', '', ['a', 'b'], '1.5']) requests.push(requestTo(operation, undefined, { [parameter.name]: value }));
    requests.push(requestTo(operation, undefined, { [parameter.name.toUpperCase()]: '5' }));
  }
  if (/\{/.test(operation.path)) {
    for (const value of ['', 'a,b', 'a%20b', 'SBTESTPUBK_abc', 'x'.repeat(200)]) requests.push(requestTo(operation, undefined, {}, value));
  }
  return requests;
}
