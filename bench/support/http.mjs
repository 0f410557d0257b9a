// Small HTTP helpers of the benchmarks, on node:http (no fetch: its first use
// loads undici, which would count in start-up times).
import http from 'node:http';
import { createServer } from 'node:net';

/** One request; resolves with the status and the body as text. Rejects on a connection error or after `timeoutMs`. */
export function request(url, { method = 'GET', headers = {}, body, agent = false, timeoutMs = 10_000 } = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const req = http.request(url, {
      method,
      agent,
      headers: payload === undefined ? headers : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers },
      timeout: timeoutMs,
    });
    req.once('timeout', () => req.destroy(new Error(`${method} ${url}: no answer within ${timeoutMs} ms`)));
    req.once('error', reject);
    req.once('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk) => { text += chunk; });
      res.once('end', () => resolve({ status: res.statusCode, text }));
      res.once('error', reject);
    });
    req.end(payload);
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `url` every `intervalMs` until an answer `accept`s its status, and
 * returns the milliseconds since `since` (a process.hrtime.bigint()) and the
 * status. Fails when `child` exits first or after `timeoutMs`.
 */
export async function waitForUrl(url, { since, child, accept = (status) => status === 200, intervalMs = 3, timeoutMs = 60_000, headers } = {}) {
  const start = since ?? process.hrtime.bigint();
  let last = 'no answer';
  for (;;) {
    if (child && (child.exitCode !== null || child.signalCode !== null)) {
      throw new Error(`the server exited (${child.exitCode ?? child.signalCode}) before ${url} answered:\n${child.tail}`);
    }
    try {
      const { status } = await request(url, { headers, timeoutMs: 2_000 });
      if (accept(status)) return { ms: Number(process.hrtime.bigint() - start) / 1e6, status };
      last = `status ${status}`;
    } catch (error) {
      last = error.code ?? error.message;
    }
    if (Number(process.hrtime.bigint() - start) / 1e6 > timeoutMs) throw new Error(`${url} not ready within ${timeoutMs} ms (last: ${last})`);
    await sleep(intervalMs);
  }
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
