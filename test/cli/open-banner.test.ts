import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { banner, run, stopAll, TIMEOUT } from '../support/process.js';

/**
 * A sandbox listening beyond loopback without a control token says so, in its
 * start-up banner and in its log (README, "Security"); with a token, or on
 * loopback, it says nothing of the kind. Which addresses are loopback:
 * test/unit/http/listener-options.test.ts.
 */

afterEach(() => stopAll());

/** The start-up warning's own words, in the banner and the log line alike. */
const OPEN = /the control API is open to the network/;

describe('payments-sandbox --host 0.0.0.0 without --control-token', () => {
  it('warns in the banner, before the addresses, and in the log: who can do what, and how to set a token', { timeout: TIMEOUT }, async () => {
    const started = run(['--port', '0', '--in-memory', '--host', '0.0.0.0']);
    const { text } = await banner(started);
    const warning = text.slice(text.indexOf('WARNING:'), text.indexOf('API base'));
    expect(warning).toMatch(OPEN);
    // The words may be wrapped over lines: read them as one sentence.
    const sentence = warning.replace(/\s+/g, ' ');
    expect(sentence).toContain('every interface (0.0.0.0)');
    expect(sentence).toMatch(/anyone who can reach port \d+ can reset the sandbox/);
    expect(sentence).toContain("read every merchant's journal");
    expect(sentence).toContain('Set a token (--control-token <token>, or SANDBOX_CONTROL_TOKEN) and send Authorization: Bearer <token> to the control API');
    // The log (pretty, at the CLI's default info level) has it as one WARN line.
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: the control API is open to the network: .*Authorization: Bearer <token>/m);
  });

  it('writes the warning as a JSON log line (pino level 40) with --log-format json', { timeout: TIMEOUT }, async () => {
    const started = run(['--port', '0', '--in-memory', '--log-format', 'json'], { env: { SANDBOX_HOST: '0.0.0.0' } });
    const { text } = await banner(started);
    const line = text.split('\n').find((each) => each.startsWith('{'));
    expect(JSON.parse(line!)).toEqual({ level: 40, time: expect.any(Number), msg: expect.stringMatching(OPEN) });
  });
});

describe('a store folder every user can write to', () => {
  it('is warned of in the banner and the log', { timeout: TIMEOUT }, async () => {
    const folder = mkdtempSync(join(tmpdir(), 'open-banner-'));
    try {
      chmodSync(folder, 0o777);
      const started = run(['--port', '0', '--data', join(folder, 'store.json')]);
      const { text } = await banner(started);
      const warning = text.slice(text.indexOf('WARNING:'), text.indexOf('API base')).replace(/\s+/g, ' ');
      expect(warning).toContain(`the folder ${folder} of the store file ${join(folder, 'store.json')} is writable by every user (mode 0777)`);
      expect(text).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: the folder .* is writable by every user/m);
    } finally {
      await stopAll();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('no warning', () => {
  it('with --host 0.0.0.0 and a control token (SANDBOX_CONTROL_TOKEN)', { timeout: TIMEOUT }, async () => {
    const started = run(['--port', '0', '--in-memory', '--host', '0.0.0.0'], { env: { SANDBOX_CONTROL_TOKEN: 'open-banner-token' } });
    const { text } = await banner(started);
    expect(text).toContain('(every interface)');
    expect(text).not.toContain('WARNING');
    expect(text).not.toMatch(OPEN);
  });

  it('on 127.0.0.1, the default, without a token', { timeout: TIMEOUT }, async () => {
    const started = run(['--port', '0', '--in-memory']);
    const { text } = await banner(started);
    expect(text).not.toContain('WARNING');
    expect(text).not.toMatch(OPEN);
  });
});
