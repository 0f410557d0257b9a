import type { Answer, PayloadEnvelope } from '../domain/answer.js';
import { REASON_HEADER } from '../domain/state-machine.js';
import { delayMs, pause } from './delay.js';
import { headerSafe, renderError } from './error-answer.js';
import type { ApiExchange, ApiRequest } from './exchange.js';
import { warn } from './validate.js';

/** A fault that closes or holds the connection instead of an answer: the transport carries it out. */
export type ConnectionFault = 'drop-connection' | 'hang' | 'lose-response';

/**
 * The answer to one Payments API request, for its transport to write, or
 * the fault to carry out instead. A delay the rule asked for has been waited
 * already.
 */
export interface ApiAnswer {
  /** the HTTP status; 0 with a fault */
  status: number;
  /** the headers, by name as set, in the order set: the same object as `exchange.headers` */
  headers: Record<string, string>;
  /** the JSON text; undefined when there is no body to send (HEAD, a CORS preflight, a fault) */
  body?: string;
  /** close the connection without an answer (drop-connection, lose-response), or hold it open (hang) */
  fault?: ConnectionFault;
  /** the request's way through, for PaymentsApi.record once the connection is done with */
  exchange: ApiExchange;
}

/**
 * The answer of an operation (docs/design.md, "One request, end to end", step 13): X-Sandbox-Scenario,
 * the operation's warnings, X-Sandbox-Reason, then the selected rule's delay (X-Sandbox-Delay) or
 * lose-response (the payment is stored, the connection closed), then the envelope.
 * @param random the catalogue engine's draws, for a delay given as a range (seeded by --seed)
 */
export async function respond(request: ApiRequest, exchange: ApiExchange, answer: Answer | Answer<PayloadEnvelope>, random: () => number): Promise<ApiAnswer> {
  exchange.headers['X-Sandbox-Scenario'] = answer.scenario;
  if (answer.warnings) warn(exchange, answer.warnings);
  // A reference can carry any text: the reason is made header-safe as the error answer's details are.
  if (answer.reason !== undefined) exchange.headers[REASON_HEADER] = headerSafe({ reason: answer.reason }).reason!;
  const action = exchange.selection?.action;
  if (action) {
    const delay = delayMs(action.delay, random);
    if (delay > 0) exchange.headers['X-Sandbox-Delay'] = String(delay);
    await pause(delay);
    if (action.fault === 'lose-response') return faultAnswer(exchange, action.fault);
  }
  return jsonAnswer(exchange, answer.status ?? 200, answer.body, request.method === 'HEAD');
}

/**
 * An error as the answer, rendered as every error of the sandbox is (renderError, src/api/error-answer.ts); it names
 * its rule in X-Sandbox-Scenario (`internal-error` for one it does not know) and keeps the selection's delay.
 * @param random the catalogue engine's draws, for a delay given as a range
 */
export async function errorAnswer(error: unknown, exchange: ApiExchange, random: () => number): Promise<ApiAnswer> {
  const rendered = renderError(error);
  const headers = exchange.headers;
  headers['X-Sandbox-Scenario'] = rendered.error.scenario ?? 'internal-error';
  const delay = delayMs(exchange.selection?.action?.delay, random);
  if (delay > 0) headers['X-Sandbox-Delay'] = String(delay);
  await pause(delay);
  for (const name in rendered.headers) headers[name] = rendered.headers[name]!;
  headers['Content-Length'] = String(Buffer.byteLength(rendered.text));
  exchange.responseBody = rendered.error.body;
  exchange.status = rendered.status;
  return { status: rendered.status, headers, body: exchange.request.method === 'HEAD' ? undefined : rendered.text, exchange };
}

/**
 * Every Payments API answer, errors included: `body` as JSON with `status`,
 * kept on the exchange for the journal.
 * @param head a HEAD request's: the headers of the body, without it
 */
export function jsonAnswer(exchange: ApiExchange, status: number, body: unknown, head: boolean): ApiAnswer {
  exchange.responseBody = body;
  exchange.status = status;
  const text = JSON.stringify(body);
  exchange.headers['Content-Type'] = 'application/json; charset=utf-8';
  exchange.headers['Content-Length'] = String(Buffer.byteLength(text));
  return { status, headers: exchange.headers, body: head ? undefined : text, exchange };
}

/** No answer: the transport closes or holds the connection, and the journal records status 0 and the fault. */
export function faultAnswer(exchange: ApiExchange, fault: ConnectionFault): ApiAnswer {
  exchange.fault = fault;
  return { status: 0, headers: exchange.headers, fault, exchange };
}
