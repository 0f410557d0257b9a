import { expect } from 'vitest';
import { controlOperations, type Sandbox } from '../../src/index.js';
import { documented as withResponses, operationId, responseViolations, type HttpOperation } from '../../src/validation/operations.js';
import { asClientSends, withinMs } from './in-process.js';

/**
 * A client of one sandbox's control API under `/__sandbox`: served in process
 * by `sandbox.handle()` for a sandbox of this test, over loopback for one
 * started as a process. Every response is checked against openapi/control-api.yaml before it is
 * returned: its status must be one the operation documents, and its body
 * must fit that response's schema.
 */

/** A control API response as a test sees it. */
export interface ControlResponse {
  status: number;
  body: any;
  headers: Record<string, string>;
}

/** A control API request. */
export interface ControlRequest {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** a body sent as it is, instead of `body` as JSON */
  raw?: string;
}

/** What `POST /__sandbox/overrides` accepts. */
export interface OverrideBody {
  scenario?: string;
  publicKey?: string;
  times?: number;
  delay?: { ms: number } | { minMs: number; maxMs: number };
  fault?: 'drop-connection' | 'hang' | 'lose-response';
}

/** How long any one control request may take before the test fails. */
const REQUEST_WITHIN_MS = 10_000;

/** How a control request travels: in process or over HTTP; what comes back is read the same way. */
type Transport = (method: string, target: string, headers: Record<string, string>, payload: string | undefined) => Promise<{ status: number; headers: Record<string, string>; text: string }>;

/** A control API client. */
export class ControlClient {
  private constructor(
    private readonly transport: Transport,
    private readonly operations: HttpOperation[],
  ) {}

  /** A client of a sandbox of this test, served in process by `sandbox.handle()` whether it listens or not. */
  static async for(sandbox: Sandbox): Promise<ControlClient> {
    const transport: Transport = async (method, target, headers, payload) => {
      const answer = await withinMs(sandbox.handle({ method, url: target, headers: asClientSends(method, headers, payload), body: payload }), REQUEST_WITHIN_MS, `${method} ${target}`);
      if (answer.fault) throw new Error(`${method} ${target} met the fault ${answer.fault}: the control API has no faults`);
      const read: Record<string, string> = {};
      // As a client reads them: a repeated header is one value, joined.
      for (const [name, value] of Object.entries(answer.headers)) read[name] = Array.isArray(value) ? value.join(', ') : value;
      return { status: answer.status, headers: read, text: answer.body.toString('utf8') };
    };
    return new ControlClient(transport, await controlOperations());
  }

  /** A client of the sandbox at `origin` (e.g. http://127.0.0.1:4010) over HTTP: one started as a process. */
  static async at(origin: string): Promise<ControlClient> {
    const base = origin.replace(/\/+$/, '');
    const transport: Transport = async (method, target, headers, payload) => {
      const response = await fetch(`${base}${target}`, { method, headers, body: payload, signal: AbortSignal.timeout(REQUEST_WITHIN_MS) });
      const text = await response.text();
      const read: Record<string, string> = {};
      response.headers.forEach((value, name) => (read[name] = value));
      return { status: response.status, headers: read, text };
    };
    return new ControlClient(transport, await controlOperations());
  }

  /** Sends a request to `/__sandbox<path>` and checks the answer against the document. */
  async send(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, request: ControlRequest = {}): Promise<ControlResponse> {
    const url = new URL(`http://control/__sandbox${path}`);
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const payload = request.raw ?? (request.body === undefined ? undefined : JSON.stringify(request.body));
    const { status, headers, text } = await this.transport(method, `${url.pathname}${url.search}`, payload === undefined ? {} : { 'Content-Type': 'application/json' }, payload);
    let body: unknown;
    if (text !== '') {
      expect(headers['content-type'], `${method} ${path}: content type`).toMatch(/^application\/json/);
      body = JSON.parse(text);
    }
    const result = { status, body, headers };
    this.check(method, path, result);
    return result;
  }

  /** The control operation a method and path (below `/__sandbox`) belong to, if any. */
  operationOf(method: string, path: string): HttpOperation | undefined {
    return this.operations.find(
      (operation) =>
        operation.method.toUpperCase() === method &&
        new RegExp(`^${operation.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path),
    );
  }

  private check(method: string, path: string, response: ControlResponse): void {
    const operation = this.operationOf(method, path);
    const what = `${method} /__sandbox${path} answered ${response.status} ${JSON.stringify(response.body)}`;
    if (!operation) {
      expect(response.status, what).toBe(404);
      expect(response.body, what).toMatchObject({ error: 'NOT_FOUND' });
      return;
    }
    const documented = withResponses(operation).responses.map((candidate) => candidate.code);
    expect(documented, `${operationId(operation)} documents no ${response.status}: ${what}`).toContain(String(response.status));
    const violations = responseViolations(operation, {
      status: response.status,
      headers: response.headers['content-type'] ? { 'content-type': response.headers['content-type'] } : {},
      body: response.body,
    });
    expect(violations, `${operationId(operation)}: ${what}`).toEqual([]);
  }

  health = () => this.send('GET', '/health');
  ready = () => this.send('GET', '/ready');
  scenarios = () => this.send('GET', '/scenarios');
  merchants = () => this.send('GET', '/merchants');

  overrides = (publicKey?: string) => this.send('GET', '/overrides', { query: { publicKey } });
  /** Creates an override and expects 201; returns the override. */
  async override(body: OverrideBody): Promise<{ id: string } & OverrideBody & { createdAt: string }> {
    const response = await this.send('POST', '/overrides', { body });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body;
  }
  createOverride = (body: unknown) => this.send('POST', '/overrides', { body });
  deleteOverride = (id: string) => this.send('DELETE', `/overrides/${encodeURIComponent(id)}`);
  deleteOverrides = (publicKey?: string) => this.send('DELETE', '/overrides', { query: { publicKey } });

  requests = (query: { path?: string; publicKey?: string; paymentReference?: string; limit?: number } = {}) => this.send('GET', '/requests', { query });
  clearRequests = (publicKey?: string) => this.send('DELETE', '/requests', { query: { publicKey } });

  payments = (publicKey?: string) => this.send('GET', '/payments', { query: { publicKey } });
  payment = (paymentReference: string, publicKey?: string) =>
    this.send('GET', `/payments/${encodeURIComponent(paymentReference)}`, { query: { publicKey } });
  complete = (paymentReference: string, body: { outcome: 'success' | 'failure'; publicKey?: string }) =>
    this.send('POST', `/payments/${encodeURIComponent(paymentReference)}/complete`, { body });
  orders = (publicKey?: string) => this.send('GET', '/orders', { query: { publicKey } });
  reset = (publicKey?: string) => this.send('POST', '/reset', { query: { publicKey } });
}

/**
 * Polls `probe` until it returns a value other than undefined, at most
 * `attempts` times, `pauseMs` apart; fails naming `what` otherwise. For what
 * the sandbox records after the client has stopped listening (the journal
 * entry of a dropped connection).
 */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, attempts = 100, pauseMs = 20): Promise<T> {
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  throw new Error(`gave up waiting for ${what} after ${attempts} attempts`);
}
