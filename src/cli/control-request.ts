/**
 * One request of a sub-command (`trigger`, `snapshot save|load`) to a
 * running sandbox's control API, with its control token: what each
 * sub-command sends, and the one line it prints when the sandbox refuses or
 * cannot be reached. Loads nothing of the server.
 */

import { redactUrlCredentials } from '../redaction/url-credentials.js';

/** Where the sandbox is. */
export interface ControlTarget {
  /** the sandbox's origin, e.g. http://127.0.0.1:4010 */
  origin: string;
  controlToken?: string;
}

/** A request body: JSON to send, or a stream of bytes already JSON with its length. */
export type ControlBody = { json: unknown } | { stream: NonNullable<RequestInit['body']>; length: number };

/**
 * Sends `method` to `/__sandbox<path>` (path and query).
 * @returns the answer, its status below 400, its body not yet read
 * @throws Error `cannot reach the sandbox at <origin>: ...` (the origin without its user and password), or `<method> /__sandbox<path> answered <status>: <message>`
 */
export async function controlRequest(target: ControlTarget, method: string, path: string, body?: ControlBody, timeoutMs?: number): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json', ...(target.controlToken ? { authorization: `Bearer ${target.controlToken}` } : {}) };
  const init: RequestInit & { duplex?: 'half' } = { method, headers };
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    if ('json' in body) init.body = JSON.stringify(body.json);
    else Object.assign(init, { body: body.stream, duplex: 'half' }, { headers: { ...headers, 'content-length': String(body.length) } });
  }
  if (timeoutMs !== undefined) init.signal = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(`${target.origin.replace(/\/+$/, '')}/__sandbox${path}`, init);
  } catch (error) {
    // The origin may carry a user and password, and fetch names the URL in some of its messages.
    throw new Error(redactUrlCredentials(`cannot reach the sandbox at ${target.origin}: ${(error as Error).message}`));
  }
  if (!response.ok) {
    const answer = (await response.json().catch(() => ({}))) as { message?: unknown };
    throw new Error(`${method} /__sandbox${path.split('?')[0]} answered ${response.status}: ${String(answer.message ?? '')}`);
  }
  return response;
}
