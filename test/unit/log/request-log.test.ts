import { afterEach, describe, expect, it } from 'vitest';
import type { LogFormat, LogLevel, Sandbox } from '../../../src/index.js';
import { accountPayment, ApiClient, cardPayment, momoPayment } from '../../support/sandbox.js';
import { ControlClient } from '../../support/control.js';
import { loggedLines } from '../../support/log.js';

/** The request log: one line per Payments API request, never a secret (README, "Logs"). */

const SECRETS = ['5123450000000008', '"cvv":"123"', '"pin":"1234"', 'SBTESTSECK_', 'SBTOKEN_'];
let sandbox: Sandbox | undefined;

afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const logged = (logLevel: LogLevel, logFormat: LogFormat, traffic: (api: ApiClient) => Promise<void>): Promise<string[]> =>
  loggedLines(logLevel, logFormat, traffic, (started) => (sandbox = started));

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

  // From the CLI, and a notification attempt (a receiver on a port): test/http/request-log.test.ts.

  describe('whatever a client puts in a value', () => {
    // A reference that writes a line of its own, clears the screen, and turns the rest of the line around.
    const FORGED = 'SBREF-FORGE\n[00:00:00.000] INFO: forged\r\u001b[2J\u001b[31mred\u0085\u009b\u2028\u202eevil';
    const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

    async function forgery(api: ApiClient): Promise<void> {
      const merchant = await api.merchant();
      await api.as(merchant, 'POST', '/payments/initiates', cardPayment({ paymentReference: FORGED }));
    }

    it('pretty: one request is one line, with its control characters escaped, and no escape reaches the terminal', async () => {
      for (const level of ['info', 'debug'] as const) {
        const lines = await logged(level, 'pretty', forgery);
        expect(lines, level).toHaveLength(sandbox!.journal.count);
        const line = lines.filter((one) => one.includes('SBREF-FORGE'));
        expect(line, level).toHaveLength(1);
        expect(line[0], level).toContain('SBREF-FORGE\\n[00:00:00.000] INFO: forged\\r\\u001b[2J\\u001b[31mred\\u0085\\u009b\\u2028\\u202eevil');
        expect(lines.filter((one) => one.includes('forged')), level).toHaveLength(1);
        expect(lines.join('\n'), level).not.toMatch(RAW_CONTROL);
        if (level === 'info') await sandbox!.close();
      }
    });

    it('as JSON: still one valid line a request, with the value as it came and no raw control character', async () => {
      const lines = await logged('debug', 'json', forgery);
      expect(lines).toHaveLength(sandbox!.journal.count);
      expect(lines.join('\n')).not.toMatch(RAW_CONTROL);
      const initiate = lines.map((line) => JSON.parse(line)).find((entry) => entry.path === '/payments/initiates');
      expect(initiate.paymentReference).toBe(FORGED);
    });
  });

  it('at debug level hides the OTP of validate and momo/otp, and card numbers in any field and any grouping', async () => {
    const lines = await logged('debug', 'json', async (api) => {
      const merchant = await api.merchant();
      const card = await api.as(merchant, 'POST', '/payments/initiates', cardPayment({ paymentReference: 'SBREF-LOG-OTP', cardNumber: '5123450000000009', productDescription: 'card 5123.4500.0000.0008' }));
      await api.as(merchant, 'POST', '/payments/validate', { linkingReference: card.body.data.payments?.linkingReference ?? 'SBLNK_none', otp: '654321' });
      const momo = await api.as(merchant, 'POST', '/payments/initiates', momoPayment({ paymentReference: 'SBREF-LOG-MOMO' }));
      await api.as(merchant, 'POST', '/payments/momo/otp', { linkingReference: momo.body.data.payments.linkingReference, otp: '987654' });
    });
    const text = lines.join('\n');
    for (const secret of ['654321', '987654', '5123450000000009', '5123.4500.0000.0008']) expect(text, secret).not.toContain(secret);
    const entries = lines.map((line) => JSON.parse(line));
    const otps = entries.filter((entry) => entry.path === '/payments/validate' || entry.path === '/payments/momo/otp').map((entry) => entry.request.body.otp);
    expect(otps).toEqual(['***', '***']);
    const initiate = entries.find((entry) => entry.paymentReference === 'SBREF-LOG-OTP' && entry.path === '/payments/initiates')!;
    expect(initiate.request.body).toMatchObject({ cardNumber: '512345******0009', productDescription: 'card 5123.45**.****.0008' });
  });

  describe('a notification attempt of a merchant whose clock was moved a day and three hours ahead', () => {
    // Not whole days: a clock a whole number of days ahead shows the same hour.
    const AHEAD_MS = 27 * 3600_000;

    // A paid payment of a merchant a day ahead and more; its notification's first attempt fails in the receiver's place (the
    // receiver-error fault: nothing is sent), so the attempt is made, and logged, at once without a socket.
    async function notifiedAhead(api: ApiClient): Promise<void> {
      const merchant = await api.merchant();
      const control = await ControlClient.for(sandbox!);
      expect((await control.send('PUT', `/webhooks/${merchant.publicKey}`, { body: { url: 'http://127.0.0.1:9/hook' } })).status).toBe(200);
      expect((await control.send('POST', `/webhooks/${merchant.publicKey}/faults`, { body: { kind: 'receiver-error', status: 500, attempts: 1, times: 1 } })).status).toBe(201);
      expect((await control.send('POST', `/clock/${merchant.publicKey}/advance`, { body: { by: 'P1DT3H' } })).status).toBe(200);
      const initiated = await api.as(merchant, 'POST', '/payments/initiates', accountPayment({ paymentReference: 'SBREF-LOG-AHEAD' }));
      await api.as(merchant, 'POST', '/payments/validate', { linkingReference: initiated.body.data.payments.linkingReference, otp: '123456' });
      await expect.poll(async () => (await control.send('GET', '/webhooks/deliveries', { query: { paymentReference: 'SBREF-LOG-AHEAD' } })).body.deliveries?.[0]?.attempts.length, { timeout: 5000 }).toBe(1);
      // A request after it: its line must not go back in time.
      await api.as(merchant, 'POST', '/payments/initiates', accountPayment({ paymentReference: 'SBREF-LOG-AFTER' }));
    }

    it('pretty: stamped with the wall clock, in order with the requests, the merchant time written as merchantTime', async () => {
      const since = Date.now();
      const lines = await logged('info', 'pretty', notifiedAhead);
      const until = Date.now();
      const notify = lines.find((line) => line.includes('NOTIFY'))!;
      expect(notify).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] ERROR: NOTIFY transaction .* SBREF-LOG-AHEAD not acknowledged .* merchantTime=\S+Z$/);
      const merchantTime = Date.parse(/merchantTime=(\S+)$/.exec(notify)![1]!);
      expect(merchantTime - since).toBeGreaterThanOrEqual(AHEAD_MS - 1000);
      expect(merchantTime - until).toBeLessThanOrEqual(AHEAD_MS + 1000);
      // Each line's stamp, as a time of today, lies between the start and the end of the test, and they never go back.
      const stamps = lines.map((line) => stampMs(line, since));
      for (const stamp of stamps) expect(stamp).toBeGreaterThanOrEqual(since - 1);
      for (const stamp of stamps) expect(stamp).toBeLessThanOrEqual(until + 1);
      expect(stamps).toEqual([...stamps].sort((a, b) => a - b));
      // A request line says nothing of a merchant's clock: its time is the line's.
      expect(lines.filter((line) => !line.includes('NOTIFY')).every((line) => !line.includes('merchantTime'))).toBe(true);
    });

    it('as JSON: pino stamps the wall clock as time, and merchantTime holds the merchant time of the attempt', async () => {
      const since = Date.now();
      const entries = (await logged('info', 'json', notifiedAhead)).map((line) => JSON.parse(line));
      const until = Date.now();
      const notify = entries.find((entry) => entry.notification !== undefined)!;
      expect(notify).toMatchObject({ level: 50, eventType: 'transaction', acknowledged: false, status: 500, paymentReference: 'SBREF-LOG-AHEAD' });
      expect(notify.time).toBeGreaterThanOrEqual(since);
      expect(notify.time).toBeLessThanOrEqual(until);
      expect(Date.parse(notify.merchantTime) - notify.time).toBeGreaterThanOrEqual(AHEAD_MS - 1000);
      expect(Date.parse(notify.merchantTime) - notify.time).toBeLessThanOrEqual(AHEAD_MS + 1000);
      const times = entries.map((entry) => entry.time as number);
      expect(times).toEqual([...times].sort((a, b) => a - b));
    });
  });
});

// The time of a pretty line's [HH:MM:ss.mmm] stamp, on the local day of `near` (a test does not run across midnight twice).
function stampMs(line: string, near: number): number {
  const [, hours, minutes, seconds, ms] = /^\[(\d\d):(\d\d):(\d\d)\.(\d{3})\]/.exec(line)!;
  const day = new Date(near);
  day.setHours(Number(hours), Number(minutes), Number(seconds), Number(ms));
  return day.getTime();
}
