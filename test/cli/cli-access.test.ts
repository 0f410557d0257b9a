import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { banner, EXIT_WITHIN, run, START_WITHIN, stopAll, TIMEOUT, within } from '../support/process.js';

/**
 * The command line's part of the journal's memory bound and of who may drive
 * the sandbox: `--journal-max-mb`, `--allowed-host`, `--control-token` and
 * their environment variables, on the real executable.
 */

afterEach(() => stopAll());

/** A GET to the running sandbox with a Host header of our choosing (fetch will not send one). */
function get(origin: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const url = new URL(path, origin);
  return within(
    new Promise((resolve, reject) => {
      const sent = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, headers }, (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
      });
      sent.on('error', reject).end();
    }),
    EXIT_WITHIN,
    `GET ${path}`,
  );
}

describe('payments-sandbox with SANDBOX_CONTROL_TOKEN, SANDBOX_ALLOWED_HOSTS and SANDBOX_JOURNAL_MAX_MB', () => {
  it('asks the control API for the token, answers the allowed names, and bounds the journal', { timeout: TIMEOUT }, async () => {
    const started = run(['--port', '0', '--in-memory'], {
      env: { SANDBOX_CONTROL_TOKEN: 'cli-token-1', SANDBOX_ALLOWED_HOSTS: 'sandbox.example, ci_sandbox_1', SANDBOX_JOURNAL_MAX_MB: '2' },
    });
    const { origin } = await banner(started);
    expect((await get(origin, '/__sandbox/health')).status).toBe(200);
    const refused = await get(origin, '/__sandbox/requests');
    expect(refused).toEqual({ status: 401, body: { message: expect.any(String), error: 'UNAUTHORIZED' } });
    const journal = await get(origin, '/__sandbox/requests', { Authorization: 'Bearer cli-token-1' });
    expect(journal.status).toBe(200);
    expect(journal.body.maxBytes).toBe(2 * 1024 * 1024);
    for (const host of ['sandbox.example:4010', 'ci_sandbox_1']) expect((await get(origin, '/__sandbox/health', { Host: host })).status, host).toBe(200);
    expect((await get(origin, '/__sandbox/health', { Host: 'evil.example' })).status).toBe(403);
  });

  it('takes the same settings as flags, --allowed-host repeated', { timeout: TIMEOUT }, async () => {
    const started = run(['--port', '0', '--in-memory', '--control-token', 'cli-token-2', '--allowed-host', 'a.example', '--allowed-host', 'b.example', '--journal-max-mb', '0.5']);
    const { origin } = await banner(started);
    const journal = await get(origin, '/__sandbox/requests', { Authorization: 'Bearer cli-token-2', Host: 'b.example' });
    expect(journal.status).toBe(200);
    expect(journal.body.maxBytes).toBe(512 * 1024);
    expect((await get(origin, '/__sandbox/health', { Host: 'a.example' })).status).toBe(200);
  });
});

describe('payments-sandbox with a bad value', () => {
  for (const args of [['--allowed-host', 'not a host'], ['--journal-max-mb', '0'], ['--journal-max-mb', 'lots']]) {
    it(`exits non-zero and names ${args[0]} for ${JSON.stringify(args[1])}`, { timeout: TIMEOUT }, async () => {
      const started = run(['--port', '0', '--in-memory', ...args]);
      const { code } = await within(started.exited, START_WITHIN, 'the sandbox to give up');
      expect(code).not.toBe(0);
      expect(started.stderr()).toContain(args[0]);
      expect(started.stdout()).not.toContain('API base');
    });
  }
});
