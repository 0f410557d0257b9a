import type { IncomingHttpHeaders } from 'node:http';
import { parse } from 'node:querystring';
import type { RequestFacts } from '../domain/request.js';
import type { OperationId } from '../model/operations.js';
import type { Fault } from '../scenarios/scenario.js';
import type { Selection } from '../scenarios/selector.js';
import type { BodyReader } from './body.js';

/**
 * One Payments API request as a transport hands it to the core
 * (src/api/core.ts): node's HTTP server (src/http/api-listener.ts) or
 * `Sandbox.handle()` (src/api/handle.ts). The body is read only when the
 * core asks for it, once the credentials are checked (README decision 22).
 */
export interface ApiRequest {
  /** as sent, upper case */
  method: string;
  /** the request target: path and query, as sent (`/api/v2/payments/initiates?x=1`) */
  target: string;
  /** lower-case names, as node's HTTP server gives them */
  headers: IncomingHttpHeaders;
  /** reads the body as JSON, once, up to a limit (src/api/body.ts) */
  readBody: BodyReader;
}

/**
 * One Payments API request on its way through (src/api/core.ts): what each
 * step learnt, for the steps after it, the error answer and the journal
 * (src/journal/recorder.ts reads it once the connection is done with).
 * Each field is written once, by the step named, but for the answer's
 * headers, which are set as the steps go, as on a response.
 */
export interface ApiExchange {
  /** the request, as the transport handed it over */
  request: ApiRequest;
  /** the API base the path is below: `/api/v2`, or `/api` for `/api/v3/...` (API_BASES) */
  base: string;
  /** the path below `base`, as sent (not decoded) */
  path: string;
  /** the query string's parameters, as node's querystring reads them */
  query: Record<string, unknown>;
  /** ISO 8601 UTC time the request arrived */
  time: string;
  /** process.hrtime.bigint() when it arrived, for the journal's durationMs */
  started: bigint;
  /** past the refusals the journal does not keep (a foreign Host, a CORS preflight) */
  journalled: boolean;
  /** routing: the operationId of the path and method */
  operation?: OperationId;
  /** body: the body as sent, parsed (undefined when none was read) */
  sent?: unknown;
  /** body: its bytes, to read numbers exactly */
  raw?: Buffer;
  /** validation: the leniencies the request needed */
  warnings?: string[];
  /** the request's facts, once validated */
  facts?: RequestFacts;
  /** the selection: the rule that answers, and the delay or fault */
  selection?: Selection;
  /** the answer's headers, by name as set (X-Sandbox-Scenario, X-Sandbox-Reason, ...) */
  headers: Record<string, string>;
  /** the answer: its status, once answered */
  status?: number;
  /** the answer: the JSON body, error or envelope */
  responseBody?: unknown;
  /** a fault that closed or held the connection instead of an answer */
  fault?: Fault;
}

/**
 * Starts the exchange of a Payments API request.
 * @param base the API base its target is under (ApiBase.server)
 * @param time the time it arrived, ISO 8601 UTC
 */
export function beginExchange(request: ApiRequest, base: string, time: string): ApiExchange {
  const target = request.target;
  const mark = target.indexOf('?');
  const path = (mark < 0 ? target : target.slice(0, mark)).slice(base.length) || '/';
  return {
    request,
    base,
    path,
    query: mark < 0 || mark === target.length - 1 ? {} : parse(target.slice(mark + 1)),
    time,
    started: process.hrtime.bigint(),
    journalled: false,
    headers: {},
  };
}
