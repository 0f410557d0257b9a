import { paymentsOperations } from '../../../src/index.js';
import { operationId as idOf, responseViolations, type HttpOperation } from '../../../src/validation/operations.js';
import { API_BASE_PATH, documentedOperations, type DocumentedOperation } from './payments-document.js';
import type { RawAnswer, RawRequest } from './raw-http.js';

/**
 * What a Payments API answer may look like. Every answer, a refusal of
 * garbage included, is JSON in one of the API's documented shapes; a 500 is
 * one the document gives for the values sent, never a crash.
 */

/** The 500s the document gives, by message, with the operations that give them (all PROCESSING). */
export const DOCUMENTED_500S: Record<string, string[]> = {
  'Transaction with reference exists': ['createCheckoutLink', 'createOrder'],
  'INVALID HASH': ['createCheckoutLink'],
  'No transaction found': ['queryPayment', 'queryPaymentV3'],
};

/** A stack frame as Node writes it, also HTML-escaped (`at fn (/path/file.js:1:2)`). */
const STACK_FRAME = /\bat [^\n<]*\(?(node:|\/)[^\n<]*:\d+:\d+\)?/;

/** The documented shape an answer body has, or undefined when it has none of them. */
export function shapeOf(body: unknown, path: string): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const record = body as Record<string, unknown>;
  const data = record.data as Record<string, unknown> | undefined;
  const coded = typeof data === 'object' && data !== null && typeof data.code === 'string' && typeof data.message === 'string';
  if (record.status === 'SUCCESS' && coded) return 'envelope';
  if (record.status === 'ERROR' && coded) return 'provider error envelope';
  if (typeof record.message === 'string' && typeof record.error === 'string') return 'error body';
  // Only the bulk token charge and its search answer `{code, message, payload}`
  // (docs/decisions.md#d60-bulk-token-charge).
  if (path.startsWith(`${API_BASE_PATH}/v2/payments/bulk-tokenize-charge`) && typeof record.code === 'string' && typeof record.message === 'string' && 'payload' in record) return 'payload envelope';
  // Only the key exchange answers `{error}` alone (spec, endpoint 1).
  if (path.startsWith(`${API_BASE_PATH}/v2/encrypt/keys`) && typeof record.error === 'string' && Object.keys(record).length === 1) return 'key error body';
  return undefined;
}

/** The operation of the document a method and request target belong to, if any. */
export function operationFor(method: string, target: string): DocumentedOperation | undefined {
  // An absolute-form target (`http://host/path`) names the same path.
  const path = target.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '').split('?')[0]!.split('#')[0]!;
  // HEAD is answered by the GET route, without the body.
  const asked = method === 'HEAD' ? 'GET' : method;
  return documentedOperations().find(
    // The router takes a trailing slash as the same path.
    (operation) => operation.method === asked && new RegExp(`^${API_BASE_PATH}${operation.path.replace(/\{[^}]+\}/g, '[^/]+')}/?$`).test(path),
  );
}

/** A problem with one answer: which rule it breaks and how. */
export interface AnswerProblem {
  category: 'no answer' | 'unexpected 500' | 'not a documented answer' | 'answer outside the document';
  detail: string;
}

let prismOperations: HttpOperation[] | undefined;

/** Loads what `problemsOf` needs to compare answers with the document; call once before it. */
export async function loadAnswerChecks(): Promise<void> {
  prismOperations = await paymentsOperations();
}

/** Everything wrong with `answer` as the answer to `request`; empty when it is fine. */
export function problemsOf(request: RawRequest, answer: RawAnswer): AnswerProblem[] {
  if (answer.status === 0) return [{ category: 'no answer', detail: answer.error ?? 'no status line' }];
  const problems: AnswerProblem[] = [];
  const body = answer.json as Record<string, any> | undefined;
  const head = request.method === 'HEAD';
  const undocumented: string[] = [];
  if (!/^application\/json/.test(answer.headers['content-type'] ?? '')) undocumented.push(`Content-Type ${answer.headers['content-type'] ?? '(none)'}`);
  else if (!head && shapeOf(body, request.target) === undefined) undocumented.push(answer.text === '' ? 'an empty body' : 'a body in none of the documented shapes');
  if (STACK_FRAME.test(answer.text)) undocumented.push('a stack trace in the body');
  if (undocumented.length > 0) problems.push({ category: 'not a documented answer', detail: undocumented.join(', ') });
  const operation = operationFor(request.method, request.target);
  if (answer.status >= 500) {
    const message = typeof body?.message === 'string' ? body.message : '';
    const documented = body?.error === 'PROCESSING' && answer.status === 500 && (DOCUMENTED_500S[message] ?? []).includes(operation?.operationId ?? '');
    // A HEAD answer has no body to read the message from: the rule that decided it says whether the GET's 500 was a documented one.
    const headOfDocumented = head && answer.status === 500 && operation !== undefined && !['internal-error', undefined].includes(answer.headers['x-sandbox-scenario']);
    if (!documented && !headOfDocumented) problems.push({ category: 'unexpected 500', detail: `${answer.status} ${answer.text.replace(/\s+/g, ' ').slice(0, 200)}` });
  }
  if (operation && body !== undefined && !head && prismOperations) {
    const prism = prismOperations.find((candidate) => idOf(candidate) === operation.operationId);
    const violations = prism ? responseViolations(prism, { status: answer.status, headers: { 'content-type': answer.headers['content-type'] ?? '' }, body }) : [];
    if (violations.length > 0) {
      problems.push({ category: 'answer outside the document', detail: violations.map((violation) => `${violation.where} ${violation.message}`).join('; ') });
    }
  }
  return problems;
}
