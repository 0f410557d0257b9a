import type { ServerResponse } from 'node:http';
import { parse } from 'node:querystring';
import type { RequestFacts } from '../domain/request.js';
import type { OperationId } from '../model/operations.js';
import type { Fault } from '../scenarios/scenario.js';
import type { Selection } from '../scenarios/selector.js';

/**
 * One Payments API request on its way through (src/http/api.ts): what each
 * step learnt, for the steps after it, the error renderer and the journal.
 * Each field is written once, by the step named.
 */
export interface ApiExchange {
  /** the path below /api/v2, as sent (not decoded) */
  path: string;
  /** the query string's parameters, as node's querystring reads them */
  query: Record<string, unknown>;
  /** routing: the operationId of the path and method */
  operation?: OperationId;
  /** body: its bytes, to read numbers exactly */
  raw?: Buffer;
  /** validation: the leniencies the request needed */
  warnings?: string[];
  /** the request's facts, once validated */
  facts?: RequestFacts;
  /** the selection: the rule that answers, and the delay or fault */
  selection?: Selection;
  /** the answer: the JSON body sent, error or envelope */
  responseBody?: unknown;
  /** a fault that closed the connection without an answer */
  fault?: Fault;
}

const exchanges = new WeakMap<ServerResponse, ApiExchange>();

/** Starts the exchange of a Payments API request for its path (below /api/v2) and query string. */
export function beginExchange(res: ServerResponse, path: string, search: string): ApiExchange {
  const exchange: ApiExchange = { path, query: search === '' ? {} : parse(search) };
  exchanges.set(res, exchange);
  return exchange;
}

/** The exchange of a Payments API request, or undefined for any other request (control API, pages). */
export const exchangeOf = (res: ServerResponse): ApiExchange | undefined => exchanges.get(res);

/**
 * Sends `body` as JSON with `status`, and keeps it on the request's exchange
 * for the journal. Every Payments API answer goes out here, errors included.
 */
export function sendJson(res: ServerResponse, status: number, body: unknown, head = false): void {
  const exchange = exchanges.get(res);
  if (exchange) exchange.responseBody = body;
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(head ? undefined : text);
}
