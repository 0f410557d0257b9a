import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Express } from 'express';
import { exchangeOf } from './exchange.js';

/** One request handed to `Sandbox.handle()`, without a socket. */
export interface SandboxRequest {
  method: string;
  /** the request target: path and query, e.g. `/api/v2/payments/initiates?x=1` */
  url: string;
  /** header names in any case; absent `Host`: the host of the sandbox's `url` */
  headers?: Record<string, string | string[]>;
  /** the body's bytes (a string is sent as UTF-8) */
  body?: string | Uint8Array;
}

/** What `Sandbox.handle()` answers: the status, headers and bytes a client would have read. */
export interface SandboxAnswer {
  status: number;
  /** the headers the sandbox set, names in lower case, without those only a connection carries (Date, Connection, Keep-Alive, Transfer-Encoding) */
  headers: Record<string, string | string[]>;
  body: Buffer;
  /** set when a fault closed or held the connection instead of answering (status 0, empty body); a `hang` is reported at once */
  fault?: 'drop-connection' | 'hang' | 'lose-response';
}

/** The faults SandboxAnswer reports. */
type ConnectionFault = NonNullable<SandboxAnswer['fault']>;

/** What a socket-free handler serves: the Payments API's listener, the express app, and the host a request without `Host` names. */
export interface HandleTargets {
  /** the Payments API listener (src/http/api.ts), for targets under its bases */
  api: RequestListener;
  /** the express app, for every other target (control API, pages) */
  app: Express;
  /** is the target one of the Payments API's? */
  isApiTarget: (url: string) => boolean;
  /** the Host a request without one carries: the sandbox url's `host` (`127.0.0.1:4010`) */
  host: () => string;
}

let injection: ReturnType<typeof loadInjection> | undefined;
const loadInjection = () => import('light-my-request');

// Headers node's HTTP transport adds to every answer: a socket-free answer has no connection to describe.
const CONNECTION_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

/**
 * `Sandbox.handle()`: serves one request in process, with no socket and no
 * server, through the same listeners a server calls (light-my-request makes
 * the request and response objects they read and write). A request without
 * a body header gets its Content-Length from the body, as a client would
 * send it. A fault that closes the connection (drop-connection,
 * lose-response) resolves with `fault` and status 0; a `hang` resolves at
 * once the same way, as if the client had given up at once (the journal
 * records it then, status 0), so a test never waits for a held connection.
 * @returns the handler; it rejects only when the listeners themselves fail
 */
export function socketlessHandler(targets: HandleTargets): (request: SandboxRequest) => Promise<SandboxAnswer> {
  const express = expressDispatch(targets.app);
  return async (request) => {
    const headers: Record<string, string | string[]> = {};
    let hasHost = false;
    for (const [name, value] of Object.entries(request.headers ?? {})) {
      headers[name] = value;
      if (name.toLowerCase() === 'host') hasHost = true;
    }
    if (!hasHost) headers.host = targets.host();
    const body = request.body === undefined || typeof request.body === 'string' || Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength);
    const api = targets.isApiTarget(request.url);
    let served: ServerResponse | undefined;
    const dispatch = (req: IncomingMessage, res: ServerResponse): void => {
      served = res;
      withoutInjectedHeaders(req, request.headers ?? {});
      // The request has no socket: closing "the connection" ends the response, so the answer resolves.
      const socket = req.socket as unknown as { destroy?: () => void; emit: (event: string) => boolean; socketless?: boolean };
      let closed = false;
      socket.socketless = true;
      socket.destroy = () => {
        if (closed) return;
        closed = true;
        res.destroy();
        socket.emit('close');
      };
      (api ? targets.api : express)(req, res);
    };
    // Loaded on the first use: start-up, and a sandbox that never calls handle(), need none of it.
    const { inject } = await (injection ??= loadInjection());
    try {
      const answer = await inject(dispatch, { method: request.method, url: request.url, headers, payload: body, validate: false });
      const fault = faultOf(served);
      if (fault) return { status: 0, headers: {}, body: Buffer.alloc(0), fault };
      const kept: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !CONNECTION_HEADERS.has(name)) kept[name] = Array.isArray(value) ? value : String(value);
      return { status: answer.statusCode, headers: kept, body: answer.rawPayload };
    } catch (error) {
      const fault = faultOf(served);
      if (fault) return { status: 0, headers: {}, body: Buffer.alloc(0), fault };
      throw error;
    }
  };
}

function faultOf(res: ServerResponse | undefined): ConnectionFault | undefined {
  const fault = res === undefined ? undefined : exchangeOf(res)?.fault;
  return fault === 'drop-connection' || fault === 'hang' || fault === 'lose-response' ? fault : undefined;
}

// light-my-request names itself in a User-Agent the client did not send: the journal shows what was sent.
function withoutInjectedHeaders(req: IncomingMessage, given: Record<string, unknown>): void {
  if (Object.keys(given).some((name) => name.toLowerCase() === 'user-agent')) return;
  delete req.headers['user-agent'];
  const at = req.rawHeaders.findIndex((name, index) => index % 2 === 0 && name === 'user-agent');
  if (at >= 0) req.rawHeaders.splice(at, 2);
}

/**
 * The express app, served on light-my-request's request and response. Express
 * swaps the prototypes of what it serves for its own, which would lose those of
 * light-my-request; and light-my-request's own answer to that re-parents
 * express's shared prototypes, which breaks every real request served after
 * it (fastify/light-my-request#333, reverted). Here the app serves injected
 * requests with private copies of its request and response prototypes,
 * re-parented onto light-my-request's, and real requests never see them.
 */
function expressDispatch(app: Express): RequestListener {
  let shadow: Express | undefined;
  return (req, res) => {
    shadow ??= shadowOf(app, Object.getPrototypeOf(req) as object, Object.getPrototypeOf(res) as object);
    (app as unknown as { handle: (this: Express, req: IncomingMessage, res: ServerResponse) => void }).handle.call(shadow, req, res);
  };
}

// The app with its own settings and router, but request and response prototypes of its own.
function shadowOf(app: Express, injectedRequest: object, injectedResponse: object): Express {
  const copy = (instance: object, base: object): object => {
    const methods = Object.create(base, Object.getOwnPropertyDescriptors(Object.getPrototypeOf(instance) as object)) as object;
    return Object.create(methods, Object.getOwnPropertyDescriptors(instance));
  };
  return Object.create(app, {
    request: { value: copy(app.request, injectedRequest) },
    response: { value: copy(app.response, injectedResponse) },
  }) as Express;
}
