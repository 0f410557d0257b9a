import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { banner, EXIT_WITHIN, run, stopAll, TIMEOUT, within } from '../support/process.js';

/**
 * `--log-format json`: stdout carries JSON lines only, from the first to the
 * last, the banner included (docs/decisions.md#d67-json-stdout).
 */

afterEach(() => stopAll());

/** Each line of `text` (the last one ends with a newline: none is cut). */
const linesOf = (text: string): string[] => {
  expect(text.endsWith('\n'), 'the output ends with a whole line').toBe(true);
  return text.slice(0, -1).split('\n');
};

describe('payments-sandbox --log-format json', () => {
  it('writes only JSON lines on stdout: the warning, the banner, the requests and the closing', { timeout: TIMEOUT }, async () => {
    // On every interface without a token: a warning too.
    const started = run(['--port', '0', '--in-memory', '--log-format', 'json', '--host', '0.0.0.0', '--seed', 'json-seed']);
    const shown = await banner(started);
    const token = await fetch(shown.curlUrl, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: shown.curlBody, signal: AbortSignal.timeout(EXIT_WITHIN) });
    expect(token.status).toBe(200);
    await fetch(`${shown.apiBase}/no/such/thing`, { signal: AbortSignal.timeout(EXIT_WITHIN) });
    started.child.kill('SIGTERM');
    expect(await within(started.closed, EXIT_WITHIN, 'the sandbox to stop')).toEqual({ code: 0, signal: null });

    const records = linesOf(started.stdout()).map((line, index) => {
      expect(() => JSON.parse(line), `line ${index + 1}: ${line}`).not.toThrow();
      return JSON.parse(line) as Record<string, any>;
    });
    for (const record of records) expect(record).toMatchObject({ level: expect.any(Number), time: expect.any(Number), msg: expect.any(String) });
    const serving = records.filter((record) => record.msg === 'payments-sandbox is serving');
    expect(serving).toHaveLength(1);
    expect(serving[0]).toMatchObject({
      level: 30,
      apiBase: shown.apiBase,
      listening: expect.stringMatching(/^http:\/\/0\.0\.0\.0:\d+$/),
      store: null,
      seed: 'json-seed',
      publicKey: shown.publicKey,
      warnings: [expect.stringContaining('the control API is open to the network')],
    });
    expect(records.find((record) => record.level === 40)?.msg).toContain('the control API is open to the network');
    expect(records.filter((record) => record.path !== undefined).map((record) => record.path)).toEqual(['/encrypt/keys', '/no/such/thing']);
    // The request lines are buffered (flushed at least every 200 ms, and at exit): the closing record may come before them.
    expect(records.filter((record) => record.msg === 'SIGTERM, closing')).toEqual([{ level: 30, time: expect.any(Number), msg: 'SIGTERM, closing' }]);
    expect(started.stderr()).toBe('');
  });

  it('with a store file: the record names it and its sync level', { timeout: TIMEOUT }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'payments-sandbox-json-'));
    try {
      const started = run(['--port', '0', '--data', join(dir, 'sb.json'), '--log-format', 'json']);
      await banner(started);
      const record = JSON.parse(started.stdout().trim().split('\n').at(-1)!);
      expect(record).toMatchObject({ msg: 'payments-sandbox is serving', store: join(dir, 'sb.json'), sync: 'normal', warnings: [] });
      started.child.kill('SIGTERM');
      await within(started.exited, EXIT_WITHIN, 'the sandbox to stop');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
