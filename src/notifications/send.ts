import { request as httpRequest, Agent as HttpAgent, type IncomingMessage } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import { redactText } from '../redaction/redact.js';

/**
 * One POST of a notification to a merchant's URL, and what the answer
 * means under the provider's rules (its webhook page, "Acknowledgment
 * Response"): only an HTTP 200 whose JSON body is `{"ackReference": <the
 * header's value, exactly>, "status": "received"}` acknowledges it.
 */

/** What one attempt came to. */
export interface SendResult {
  /** the receiver's HTTP status; absent when no answer came */
  status?: number;
  /** real milliseconds from sending to the answer or the failure */
  latencyMs: number;
  acknowledged: boolean;
  /** why it did not count, redacted like the journal; absent when acknowledged */
  reason?: string;
}

/** How one attempt is made. */
export interface SendOptions {
  /** the X-Expected-Ack-Reference header */
  ackReference: string;
  /** milliseconds the receiver has for its whole answer */
  timeoutMs: number;
  /** false: any 200 counts (the older page) */
  acknowledgement: boolean;
}

/** Bytes of a receiver's answer read at most: what a reason quotes, and all that a hostile receiver can make the sandbox hold. */
const ANSWER_BYTES = 4096;
/** Characters of the answer a reason quotes. */
const QUOTED = 200;

// Sockets are reused per receiver; at most this many per host at once, so that a flood of events cannot open thousands.
const SOCKETS_PER_HOST = 8;
const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: SOCKETS_PER_HOST });
// Loaded with the first https URL: node's TLS is start-up time a sandbox without one never needs.
let https: Promise<{ request: typeof httpRequest; agent: HttpsAgent }> | undefined;
const httpsClient = () =>
  (https ??= import('node:https').then(({ request, Agent }) => ({ request: request as typeof httpRequest, agent: new Agent({ keepAlive: true, maxSockets: SOCKETS_PER_HOST }) })));

/**
 * POSTs `body` (JSON text) to `url` and judges the answer. Never throws: a
 * refused connection, a time-out or a bad URL is a failed attempt with its reason.
 */
export async function sendNotification(url: string, body: string, options: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round((performance.now() - started) * 10) / 10;
  let answer: { status: number; text: string };
  try {
    answer = await post(url, body, options);
  } catch (error) {
    return { latencyMs: elapsed(), acknowledged: false, reason: redactText(failureOf(error as NodeJS.ErrnoException, options.timeoutMs)) };
  }
  const reason = judge(answer.status, answer.text, options);
  return reason === undefined
    ? { status: answer.status, latencyMs: elapsed(), acknowledged: true }
    : { status: answer.status, latencyMs: elapsed(), acknowledged: false, reason: redactText(reason) };
}

/**
 * Why an answer does not acknowledge the delivery, or undefined when it does.
 * @param text the answer's first bytes as text
 */
export function judge(status: number, text: string, options: Pick<SendOptions, 'ackReference' | 'acknowledgement'>): string | undefined {
  if (status !== 200) return `HTTP ${status}: only a 200 counts${quote(text)}`;
  if (!options.acknowledgement) return undefined;
  const expected = `the acknowledgement {"ackReference": "${options.ackReference}", "status": "received"} is missing`;
  if (text.trim() === '') return `HTTP 200 with an empty body: ${expected}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return `HTTP 200 whose body is not JSON: ${expected}${quote(text)}`;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return `HTTP 200 whose body is not a JSON object: ${expected}${quote(text)}`;
  const { ackReference, status: said } = parsed as Record<string, unknown>;
  if (ackReference === undefined) return `HTTP 200 without an ackReference: ${expected}${quote(text)}`;
  if (ackReference !== options.ackReference) {
    return `HTTP 200 with ackReference ${JSON.stringify(ackReference)}, not the X-Expected-Ack-Reference sent (${JSON.stringify(options.ackReference)}): echo it exactly`;
  }
  if (said !== 'received') return `HTTP 200 with status ${JSON.stringify(said)}: the acknowledgement's status must be "received"`;
  return undefined;
}

function quote(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  return `; the receiver answered ${JSON.stringify(trimmed.length > QUOTED ? `${trimmed.slice(0, QUOTED)}...` : trimmed)}`;
}

function failureOf(error: NodeJS.ErrnoException, timeoutMs: number): string {
  if (error.name === 'TimeoutError') return `no answer within ${timeoutMs / 1000} s`;
  if (error.code === 'ECONNREFUSED') return 'connection refused: nothing listens at the notification URL';
  if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') return `the notification URL's host cannot be found (${error.code})`;
  if (error.code === 'ECONNRESET') return 'the receiver closed the connection without an answer';
  return `the delivery failed: ${error.message}`;
}

async function post(url: string, body: string, options: SendOptions): Promise<{ status: number; text: string }> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new Error(`the notification URL ${JSON.stringify(url)} is not a URL`);
  }
  const client = target.protocol === 'https:' ? await httpsClient() : { request: httpRequest, agent: httpAgent };
  return new Promise((resolve, reject) => {
    const request = client.request(
      target,
      {
        method: 'POST',
        agent: client.agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'x-expected-ack-reference': options.ackReference,
          'user-agent': 'payments-sandbox-notifications',
        },
        signal: AbortSignal.timeout(options.timeoutMs),
      },
      (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          if (bytes < ANSWER_BYTES) chunks.push(chunk.subarray(0, ANSWER_BYTES - bytes));
          bytes += chunk.length;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      },
    );
    request.on('error', (error: Error) => reject(error.name === 'AbortError' ? Object.assign(new Error('timed out'), { name: 'TimeoutError' }) : error));
    request.end(body);
  });
}
