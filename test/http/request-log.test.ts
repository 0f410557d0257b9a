import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { LogFormat, LogLevel, Sandbox } from '../../src/index.js';
import { accountPayment, ApiClient, cardPayment, sandboxForTest } from '../support/sandbox.js';
import { banner, run, stopAll, TIMEOUT, within } from '../support/process.js';

/** The request log: one line per Payments API request, never a secret (README, "Logs"). */

const SECRETS = ['5123450000000008', '"cvv":"123"', '"pin":"1234"', 'SBTESTSECK_', 'SBTOKEN_'];
let sandbox: Sandbox | undefined;

afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
  await stopAll();
});

async function logged(logLevel: LogLevel, logFormat: LogFormat, traffic: (api: ApiClient) => Promise<void>): Promise<string[]> {
  const destination = new PassThrough();
  let text = '';
  destination.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  sandbox = await sandboxForTest({ logLevel, logFormat, logDestination: destination });
  const api = await ApiClient.for(sandbox);
  await traffic(api);
  await new Promise((done) => setTimeout(done, 100));
  return text.split('\n').filter((line) => line !== '');
}

async function someTraffic(api: ApiClient): Promise<void> {
  const merchant = await api.merchant();
  const card = cardPayment({ paymentReference: 'SBREF-LOG-CARD' });
  const initiated = await api.as(merchant, 'POST', '/payments/initiates', card);
  await api.as(merchant, 'POST', '/payments/validate', { linkingReference: initiated.body.data.payments.linkingReference, otp: '123456' });
  await api.as(merchant, 'POST', '/payments/initiates', accountPayment({ amount: 'ten' }));
  await api.send('POST', '/payments/initiates', cardPayment({ paymentReference: 'SBREF-LOG-500', publicKey: merchant.publicKey }), `Bearer ${merchant.token}`, undefined, { headers: { 'x-sandbox-scenario': 'internal-error' } });
}

describe('the request log', () => {
  it('as JSON: one line per request, with method, path, status, code, scenario, ms and paymentReference, and no secret', async () => {
    const lines = await logged('info', 'json', someTraffic);
    const entries = lines.map((line) => JSON.parse(line));
    expect(entries.length).toBe(sandbox!.journal.count);
    const initiate = entries.find((entry) => entry.path === '/payments/initiates' && entry.status === 200)!;
    expect(initiate).toMatchObject({ level: 30, method: 'POST', status: 200, code: 'S20', paymentReference: 'SBREF-LOG-CARD' });
    expect(initiate.scenario).toEqual(expect.any(String));
    expect(initiate.ms).toEqual(expect.any(Number));
    expect(initiate.msg).toMatch(/^POST \/payments\/initiates 200 S20 \S+ [\d.]+ms SBREF-LOG-CARD$/);
    expect(entries.find((entry) => entry.status === 400)).toMatchObject({ code: 'INPUT', level: 30 });
    for (const secret of SECRETS) expect(lines.join('\n')).not.toContain(secret);
  });

  it('pretty: one line a request for a person; at error level only failed answers; silent writes nothing', async () => {
    const pretty = await logged('info', 'pretty', someTraffic);
    expect(pretty.length).toBe(sandbox!.journal.count);
    expect(pretty.find((line) => line.includes('/payments/validate'))).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: POST \/payments\/validate 200 00 \S+ [\d.]+ms SBREF-LOG-CARD$/);
    await sandbox!.close();
    const errors = await logged('error', 'pretty', someTraffic);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/ERROR: POST \/payments\/initiates 500 /);
    await sandbox!.close();
    expect(await logged('silent', 'json', someTraffic)).toEqual([]);
  });

  it('at debug level carries the bodies, redacted as the journal keeps them', async () => {
    const lines = await logged('debug', 'json', someTraffic);
    const initiate = lines.map((line) => JSON.parse(line)).find((entry) => entry.paymentReference === 'SBREF-LOG-CARD' && entry.path === '/payments/initiates' && entry.status === 200)!;
    expect(initiate.request.body.cardNumber).toBe('512345******0008');
    expect(initiate.request.body.cvv).toBe('***');
    expect(initiate.request.headers.authorization).not.toContain('SBTOKEN_');
    for (const secret of SECRETS) expect(lines.join('\n')).not.toContain(secret);
  });

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
});
