import { request } from 'node:http';

/**
 * `payments-sandbox healthcheck`: asks the sandbox on this machine for
 * GET /__sandbox/health on 127.0.0.1, which answers in any container
 * whether the sandbox listens on 0.0.0.0 or 127.0.0.1 (README, "As a
 * service container"). Loads nothing of the server.
 * @param port the port the sandbox listens on
 * @param timeoutMs how long to wait for the whole answer, in milliseconds
 * @returns undefined when it answered 200, else a line saying what happened
 */
export function checkHealth(port: number, timeoutMs: number): Promise<string | undefined> {
  return new Promise((done) => {
    const asked = request({ host: '127.0.0.1', port, path: '/__sandbox/health', timeout: timeoutMs }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk.slice(0, 512)));
      response.on('end', () => done(response.statusCode === 200 ? undefined : `health answered ${response.statusCode}: ${body.trim().slice(0, 200)}`));
    });
    asked.on('timeout', () => asked.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    asked.on('error', (error) => done(`cannot reach 127.0.0.1:${port}/__sandbox/health: ${error.message}`));
    asked.end();
  });
}
