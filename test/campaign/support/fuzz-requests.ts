import fc from 'fast-check';
import { documentedOperations, type DocumentedOperation } from './payments-document.js';
import { mutationsOf } from './almost-valid-requests.js';
import { written, type FuzzCase, type FuzzContext } from './fuzz-context.js';
import { garbageOf } from './garbage-requests.js';
import { validParts } from './valid-requests.js';

/**
 * Requests a hostile client sends, generated from openapi/payments-api.yaml:
 * for every operation, valid ones (an example of the document with its
 * optional fields drawn from their schemas), almost valid ones (one field
 * missing, null, of the wrong type, huge, in odd Unicode, named or valued
 * `__proto__` and friends), and garbage (bytes, deep nesting, other methods,
 * odd headers and request lines). None carries X-Sandbox-Scenario: every
 * 500 it meets must be one the document gives for the values sent.
 */

/** Every kind of request to every operation of the document, weighted towards the almost valid ones. */
export function fuzzCase(context: FuzzContext): fc.Arbitrary<FuzzCase> {
  const operations = documentedOperations();
  // Built once per operation: fast-check only draws from them afterwards.
  return fc.oneof(
    { weight: 3, arbitrary: fc.oneof(...operations.map((operation) => validCase(operation, context))) },
    { weight: 5, arbitrary: fc.oneof(...operations.map((operation) => almostValidCase(operation, context))) },
    { weight: 4, arbitrary: fc.oneof(...operations.map((operation) => garbageCase(operation, context))) },
  );
}

function validCase(operation: DocumentedOperation, context: FuzzContext): fc.Arbitrary<FuzzCase> {
  return validParts(operation, context).map((parts) => ({ kind: 'valid' as const, operationId: operation.operationId, what: 'valid', request: written(operation, parts) }));
}

function almostValidCase(operation: DocumentedOperation, context: FuzzContext): fc.Arbitrary<FuzzCase> {
  return fc.tuple(validParts(operation, context), mutationsOf(operation, context)).map(([parts, mutation]) => ({
    kind: 'almost valid' as const,
    operationId: operation.operationId,
    what: mutation.what,
    request: written(operation, mutation.change(parts)),
  }));
}

function garbageCase(operation: DocumentedOperation, context: FuzzContext): fc.Arbitrary<FuzzCase> {
  return fc.tuple(validParts(operation, context), garbageOf(operation)).map(([parts, garbage]) => ({
    kind: 'garbage' as const,
    operationId: operation.operationId,
    what: garbage.what,
    request: garbage.request(parts),
  }));
}
