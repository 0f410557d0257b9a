import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Express } from 'express';
import type { PaymentsApi } from '../api/core.js';
import { bodyBytes, handleInProcess, type SandboxAnswer, type SandboxRequest } from '../api/handle.js';

export type { SandboxAnswer, SandboxRequest } from '../api/handle.js';

/** What `Sandbox.handle()` serves: the Payments API's core, the express app, and the host a request without `Host` names. */
export interface HandleTargets {
  /** the Payments API, for targets under its bases */
  api: PaymentsApi;
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
 * server. A Payments API target goes straight to its core
 * (src/api/handle.ts). Any other target (the control API, the pages) goes
 * through the express app, on the request and response objects
 * light-my-request makes, loaded on the first such request; a request
 * without a body header gets its Content-Length from the body, as a client
 * would send it.
 * @returns the handler; it rejects only when the sandbox itself fails
 */
export function socketlessHandler(targets: HandleTargets): (request: SandboxRequest) => Promise<SandboxAnswer> {
  const express = expressDispatch(targets.app);
  return async (request) => {
    if (targets.isApiTarget(request.url)) return handleInProcess(targets.api, request, targets.host());
    const headers: Record<string, string | string[]> = {};
    let hasHost = false;
    for (const [name, value] of Object.entries(request.headers ?? {})) {
      headers[name] = value;
      if (name.toLowerCase() === 'host') hasHost = true;
    }
    if (!hasHost) headers.host = targets.host();
    const given = request.headers ?? {};
    const dispatch = (req: IncomingMessage, res: ServerResponse): void => {
      withoutInjectedHeaders(req, given);
      express(req, res);
    };
    // Loaded on the first use: start-up, and a sandbox that never calls handle(), need none of it.
    const { inject } = await (injection ??= loadInjection());
    const answer = await inject(dispatch, { method: request.method, url: request.url, headers, payload: bodyBytes(request.body), validate: false });
    const kept: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !CONNECTION_HEADERS.has(name)) kept[name] = Array.isArray(value) ? value : String(value);
    return { status: answer.statusCode, headers: kept, body: answer.rawPayload };
  };
}

// light-my-request names itself in a User-Agent the client did not send: the request is served as it was sent.
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
