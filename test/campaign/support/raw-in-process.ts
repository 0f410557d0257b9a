import type { Sandbox } from '../../../src/index.js';
import type { RawAnswer, RawRequest } from './raw-http.js';

/**
 * The campaign's raw requests served in process by `Sandbox.handle()`: the
 * same method, target, header lines and body bytes, and no socket, for the
 * parts whose refusals are the sandbox's own (a Host, an Origin, a media
 * type, a query) rather than what node's HTTP parser makes of the bytes,
 * which only `sendRaw` shows. Host and Content-Length are added unless
 * given, as `sendRaw` adds them (`Sandbox.handle()` does it the same way).
 */

/**
 * Serves `request` in process and reads the answer as `sendRaw` does: header
 * names in lower case, a repeated header joined with `, `; status 0 when a
 * fault closed the connection instead of answering.
 * @throws Error for a request that only a socket can carry: a request line of its own protocol, or no Host at all
 */
export async function handleRaw(sandbox: Pick<Sandbox, 'handle'>, request: RawRequest): Promise<RawAnswer> {
  if (request.version !== undefined || request.omitHost) throw new Error(`${request.method} ${request.target}: a request without Host or of another protocol needs a socket (sendRaw)`);
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of request.headers ?? []) {
    const given = headers[name.toLowerCase()];
    headers[name.toLowerCase()] = given === undefined ? value : [...(Array.isArray(given) ? given : [given]), value];
  }
  const answer = await sandbox.handle({ method: request.method, url: request.target, headers, body: request.body });
  if (answer.fault) return { status: 0, headers: {}, text: '', json: undefined, error: `the fault ${answer.fault} closed the connection without an answer` };
  const read: Record<string, string> = {};
  for (const [name, value] of Object.entries(answer.headers)) read[name] = Array.isArray(value) ? value.join(', ') : value;
  const text = answer.body.toString('utf8');
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: answer.status, headers: read, text, json };
}
