import type { IncomingHttpHeaders } from 'node:http';
import type { EventSink } from '../events/source.js';
import type { ControlContext } from './context.js';

/**
 * The shape of one control API operation, as the control registry
 * (src/control/registry.ts) holds it: its route in
 * openapi/control-api.yaml, what it reads, the body it takes, and its run
 * from a typed input to a typed answer (docs/design.md, "Adding an operation").
 */

/** A method and a path as openapi/control-api.yaml writes them, below `/__sandbox`: `GET /payments/{paymentReference}`. */
export type ControlRoute = `${'GET' | 'POST' | 'PUT' | 'DELETE'} /${string}`;

/** One control request as the core hands it to a run: validated against the document, with nothing left to parse. */
export interface ControlInput {
  /** the path's parameters, decoded */
  params: Record<string, string>;
  /** the query's parameters, as node's querystring reads them; only documented ones reach a run */
  query: Record<string, string | string[] | undefined>;
  /** the body as parsed (JSON, or YAML where the operation takes it); undefined when none was sent */
  body: unknown;
  /** lower-case names, as node's HTTP server gives them */
  headers: IncomingHttpHeaders;
}

/** An answer whose body is JSON: `body` is written as JSON; none (a 204) when absent. */
export interface JsonAnswer {
  status: number;
  body?: unknown;
}

/** An answer whose body is already text: a page of rows written once (paging.ts), or a served document. */
export interface TextAnswer {
  status: number;
  /** the Content-Type header */
  type: string;
  text: string;
}

/** An answer written a piece at a time, the event loop free between pieces: a snapshot of every payment. */
export interface ChunkedAnswer {
  status: number;
  type: string;
  chunks: Iterable<string>;
}

/**
 * The live event stream: 200 with `text/event-stream`, then the events the
 * subscription writes, until the client goes. Only a connection carries it:
 * `Sandbox.handle()` and a fixtures step refuse it (docs/decisions.md#d80-server-sent-events).
 */
export interface StreamAnswer {
  status: 200;
  /**
   * Subscribes the sink; the returned function unsubscribes it.
   * @throws ApiError 503 when the stream's subscribers are at their bound
   */
  open(sink: EventSink): () => void;
}

/** What a control run answers. */
export type ControlAnswer = JsonAnswer | TextAnswer | ChunkedAnswer | StreamAnswer;

/**
 * What an operation's body may hold: `small`, up to 100 KB (every body of a
 * few fields); `snapshot`, up to SNAPSHOT_BODY_LIMIT; `fixtures`, up to
 * FIXTURES_BODY_LIMIT, as JSON or YAML (docs/known-states.md, "Bounds").
 */
export type ControlBody = 'small' | 'snapshot' | 'fixtures';

/**
 * What an operation reads beyond its input: `state`, the store, read after
 * every change other replicas committed (Store.refresh); `process`, this
 * process alone (the health check reports the last probe's finding).
 */
export type ControlReads = 'state' | 'process';

/** Runs one control operation. @throws ApiError for a refusal, rendered once by the core */
export type ControlRun = (input: ControlInput, context: ControlContext) => ControlAnswer | Promise<ControlAnswer>;

/** One operation of the control registry. */
export interface ControlOperation {
  /** its method and path in openapi/control-api.yaml (a test checks the two agree) */
  route: ControlRoute;
  reads: ControlReads;
  body: ControlBody;
  /**
   * Replaces the state as a whole (reset, fixtures, snapshots): it runs one
   * at a time with the load itself, so a fixtures step may not be one
   * (docs/decisions.md#d76-fixtures).
   */
  wholeState: boolean;
  /** answers a stream that never ends (StreamAnswer): only over a connection */
  stream: boolean;
  /**
   * Stores something for the merchant its path names (`{publicKey}`): a key
   * that is no merchant the sandbox knows is refused with 404 before the run,
   * so no record is kept for a key anyone may make up
   * (docs/decisions.md#d42-webhook-urls-and-clocks-stored).
   */
  knownMerchant: boolean;
  run: ControlRun;
}

/**
 * One control operation: its route and run, and the properties that are
 * not the common case (`reads: 'state'`, a small body, neither whole-state
 * nor a stream, any merchant in its path).
 */
export function controlOperation(route: ControlRoute, run: ControlRun, more: Partial<Omit<ControlOperation, 'route' | 'run'>> = {}): ControlOperation {
  return { route, reads: 'state', body: 'small', wholeState: false, stream: false, knownMerchant: false, run, ...more };
}

/** A JSON answer (200 unless said). */
export const json = (body: unknown, status = 200): JsonAnswer => ({ status, body });

/** An answer without a body. */
export const noContent = (): JsonAnswer => ({ status: 204 });

/** The text of one query parameter, when it was given once. */
export const queryText = (input: ControlInput, name: string): string | undefined => {
  const value = input.query[name];
  return typeof value === 'string' ? value : undefined;
};
