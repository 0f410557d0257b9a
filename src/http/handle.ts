import type { RequestListener } from 'node:http';
import { bytesStream } from '../api/body.js';
import { bodyBytes, handleInProcess, incomingHeaders, type SandboxAnswer, type SandboxRequest } from '../api/handle.js';
import type { PaymentsApi } from '../api/core.js';
import type { ControlCore } from '../control/core.js';
import type { InMemoryAnswer, InMemoryRequest } from './in-memory-connection.js';

export type { SandboxAnswer, SandboxRequest } from '../api/handle.js';

/** What `Sandbox.handle()` serves: both APIs' cores, the express app for the rest, and the host a request without `Host` names. */
export interface HandleTargets {
  /** the Payments API, for targets under its bases */
  api: PaymentsApi;
  isApiTarget: (url: string) => boolean;
  /** the control API, for targets below its base but the dashboard's, the reference's and the MCP endpoint's */
  control: ControlCore;
  /** the target below the control base that the control core serves, or undefined */
  controlTarget: (url: string) => string | undefined;
  /** every other target (the pages, the dashboard, the reference): the express app */
  app: RequestListener;
  /** the Host a request without one carries: the sandbox url's `host` (`127.0.0.1:4010`) */
  host: () => string;
}

// Headers node's HTTP transport adds to every answer: a socket-free answer has no connection to describe.
const CONNECTION_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

/**
 * `Sandbox.handle()`: serves one request in process, with no socket and no
 * server. A Payments API target goes straight to its core
 * (src/api/handle.ts), a control API target to its core
 * (src/control/core.ts), whose streams it refuses; any other target (the
 * pages, their static files) to the express app over an in-memory HTTP
 * connection (in-memory-connection.ts). A request without a body header gets
 * its Content-Length from the body, as a client would send it.
 * @returns the handler; it rejects only when the sandbox itself fails
 */
export function socketlessHandler(targets: HandleTargets): (request: SandboxRequest) => Promise<SandboxAnswer> {
  // Loaded on the first page asked for in process: start-up, and a sandbox whose tests ask none, need none of it.
  let http: Promise<(request: InMemoryRequest) => Promise<InMemoryAnswer>> | undefined;
  const pages = async (request: InMemoryRequest) => (await (http ??= import('./in-memory-connection.js').then(({ inMemoryHttp }) => inMemoryHttp(targets.app))))(request);
  return async (request) => {
    if (targets.isApiTarget(request.url)) return handleInProcess(targets.api, request, targets.host());
    const bytes = bodyBytes(request.body);
    const method = request.method.toUpperCase();
    const headers = incomingHeaders(request.headers ?? {}, targets.host(), bytes);
    const target = targets.controlTarget(request.url);
    if (target !== undefined) {
      const answer = await targets.control.serve({ method, target, headers, body: () => bytesStream(method, headers, bytes) }, 'in-process');
      const kept: Record<string, string> = {};
      for (const name in answer.headers) kept[name.toLowerCase()] = answer.headers[name]!;
      const text = answer.chunks ? [...answer.chunks].join('') : answer.text;
      const body = text === undefined ? Buffer.alloc(0) : Buffer.from(text);
      if (text !== undefined) kept['content-length'] = String(body.length);
      return { status: answer.status, headers: kept, body };
    }
    const answer = await pages({ method, url: request.url, headers, body: bytes });
    const kept: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !CONNECTION_HEADERS.has(name)) kept[name] = value;
    return { status: answer.status, headers: kept, body: answer.body };
  };
}
