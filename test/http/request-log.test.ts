import { afterEach, describe, expect, it } from 'vitest';
import type { LogFormat, LogLevel, Sandbox } from '../../src/index.js';
import { accountPayment, ApiClient } from '../support/sandbox.js';
import { loggedLines } from '../support/log.js';
import { banner, run, stopAll, TIMEOUT, within } from '../support/process.js';
import { ControlClient } from '../support/control.js';
import { Receiver } from '../support/receiver.js';

/**
 * The request log (README, "Logs") as only a process or a socket shows it:
 * the executable's stdout, and a notification attempt to a receiver on a
 * port (test/unit/log/request-log.test.ts has the rest).
 */

let sandbox: Sandbox | undefined;

let receiver: Receiver | undefined;

afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
  await receiver?.close();
  receiver = undefined;
  await stopAll();
});

const logged = (logLevel: LogLevel, logFormat: LogFormat, traffic: (api: ApiClient) => Promise<void>): Promise<string[]> =>
  loggedLines(logLevel, logFormat, traffic, (started) => (sandbox = started));

describe('the request log', () => {
  it('from the CLI, --log-format json prints one JSON line per request on stdout, after the banner', { timeout: TIMEOUT }, async () => {
    const started = run(['--port', '0', '--in-memory', '--log-format', 'json']);
    const shown = await banner(started);
    await fetch(`${shown.apiBase}/encrypt/keys`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: shown.curlBody });
    await fetch(`${shown.apiBase}/no/such/thing`);
    await within(new Promise<void>((done) => {
      const check = () => (started.stdout().slice(shown.text.length).trim().split('\n').length >= 1 && started.stdout().includes('"path":"/no/such/thing"') ? done() : setTimeout(check, 50));
      check();
    }), 5_000, 'the log line');
    const after = started.stdout().slice(shown.text.length).trim().split('\n').filter((line) => line.startsWith('{'));
    expect(after.map((line) => JSON.parse(line).path)).toEqual(['/encrypt/keys', '/no/such/thing']);
    expect(JSON.parse(after[0]!)).toMatchObject({ method: 'POST', status: 200, code: '00' });
    expect(JSON.parse(after[1]!)).toMatchObject({ method: 'GET', status: 404 });
    expect(after.join('\n')).not.toContain('SBTESTSECK_');
  });

  it('a notification attempt is one line, its reference redacted and escaped like a request', async () => {
    const reference = '4111111111111111\u001b[2J\nforged';
    const lines = await logged('info', 'pretty', async (api) => {
      receiver = await Receiver.start();
      const merchant = await api.merchant();
      const control = await ControlClient.for(sandbox!);
      expect((await control.send('PUT', `/webhooks/${merchant.publicKey}`, { body: { url: receiver.url } })).status).toBe(200);
      const initiated = await api.as(merchant, 'POST', '/payments/initiates', accountPayment({ paymentReference: reference }));
      await api.as(merchant, 'POST', '/payments/validate', { linkingReference: initiated.body.data.payments.linkingReference, otp: '123456' });
      await expect.poll(() => receiver!.received.length, { timeout: 5000 }).toBe(1);
    });
    const notify = lines.filter((line) => line.includes('NOTIFY'));
    expect(notify).toHaveLength(1);
    expect(notify[0]).toContain('411111******1111\\u001b[2J\\nforged acknowledged');
    expect(lines.join('\n')).not.toContain('4111111111111111');
    expect(lines.join('\n')).not.toContain('\u001b');
  });
});
