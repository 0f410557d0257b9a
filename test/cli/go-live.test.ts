import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, type TestSuites } from 'junit2json';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { GO_LIVE_RUN_STEPS, type GoLiveReport } from '../../src/model/go-live.js';
import { SandboxControl } from '../../src/testing/control.js';
import { EXIT_WITHIN, freePort, run, within } from '../support/process.js';
import { ApiClient, cardPayment, listeningSandbox, type TestMerchant } from '../support/sandbox.js';

/**
 * `payments-sandbox go-live` (docs/testing.md, "Is the integration
 * ready?"): the built CLI, as a process, against a sandbox in this process
 * with a control token. A careful integration (a receiver on 127.0.0.1 that
 * acknowledges each notification with its ackReference and then queries the
 * payment's status; a success, a failure and a pending payment by card with
 * the catalogue's test cards; an event sent again and a dispute) is ready:
 * exit 0. A merchant with no traffic is incomplete, and one whose receiver
 * forgets the ackReference not ready: exit 1. No verdict (the sandbox
 * unreachable, an unknown merchant, a malformed key, no control token, a run
 * refused): exit 2, with one line.
 */

const TOKEN = 'go-live-cli-token';
let sandbox: Sandbox;
let api: ApiClient;
let control: SandboxControl;
const folders: string[] = [];

/** A merchant's notification receiver: answers each notification as `careful` says, then, if careful, queries the payment's status as the merchant. */
class MerchantReceiver {
  readonly queried: string[] = [];
  private constructor(private readonly server: Server, readonly url: string) {}

  static async start(merchant: TestMerchant, careful: boolean): Promise<MerchantReceiver> {
    let receiver: MerchantReceiver | undefined;
    const server = createServer((req, res) => {
      let raw = '';
      req.setEncoding('utf8').on('data', (chunk: string) => (raw += chunk));
      req.on('end', () => {
        const reference = String(JSON.parse(raw).notificationItems[0].notificationRequestItem.data.reference);
        const ackReference = req.headers['x-expected-ack-reference'];
        // The provider's own Odoo plugin answers this, without the ackReference.
        const body = careful ? { ackReference, status: 'received' } : { status: 'success', message: 'Processed' };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        // Notifications are not signed: a careful integration trusts the status query, made once it has answered.
        if (careful) res.once('finish', () => setTimeout(() => void receiver!.query(merchant, reference), 100));
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    receiver = new MerchantReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/notifications`);
    return receiver;
  }

  private async query(merchant: TestMerchant, reference: string): Promise<void> {
    const answer = await fetch(`${sandbox.apiBase}/payments/query/${encodeURIComponent(reference)}`, { headers: { authorization: `Bearer ${merchant.token}` } });
    if (answer.ok) this.queried.push(reference);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((done) => this.server.close(() => done()));
  }
}

const receivers: MerchantReceiver[] = [];

beforeAll(async () => {
  sandbox = await listeningSandbox({ controlToken: TOKEN });
  api = await ApiClient.for(sandbox);
  control = new SandboxControl({ url: sandbox.url, controlToken: TOKEN });
});
afterAll(async () => {
  await sandbox.close();
  for (const receiver of receivers) await receiver.close();
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

/** A new merchant whose notifications go to a new receiver. */
async function merchantWithReceiver(careful: boolean): Promise<{ merchant: TestMerchant; receiver: MerchantReceiver }> {
  const merchant = await api.merchant();
  const receiver = await MerchantReceiver.start(merchant, careful);
  receivers.push(receiver);
  await control.setWebhook(merchant.publicKey, receiver.url);
  return { merchant, receiver };
}

/** A card payment with `cardNumber`, completed with the test OTP when it asks for one and `otp` is set. */
async function cardPaid(merchant: TestMerchant, cardNumber: string, otp = false): Promise<string> {
  const body = cardPayment({ cardNumber });
  const initiated = await api.as(merchant, 'POST', '/payments/initiates', body);
  expect(initiated.status).toBe(200);
  if (otp) expect((await api.as(merchant, 'POST', '/payments/validate', { linkingReference: initiated.body.data.payments.linkingReference, otp: '123456' })).body.data.code).toBe('00');
  return String(body.paymentReference);
}

/** The report as the control API answers it now. */
const reportOf = (publicKey: string): Promise<GoLiveReport> => control.goLive(publicKey);

async function goLive(args: string[], env: Record<string, string> = { SANDBOX_CONTROL_TOKEN: TOKEN }) {
  const started = run(['go-live', '--url', sandbox.url, ...args], { env });
  const { code } = await within(started.closed, 120_000, 'payments-sandbox go-live to exit');
  return { code, stdout: started.stdout(), stderr: started.stderr() };
}

async function outputFile(name: string): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'payments-sandbox-go-live-'));
  folders.push(folder);
  return join(folder, name);
}

/** The JUnit file read back by a JUnit parser: each test case's name, and whether it failed or was skipped. */
async function junitCases(file: string): Promise<Array<{ name: string; failed: boolean; skipped: boolean }>> {
  const parsed = (await parse(await readFile(file, 'utf8'))) as TestSuites;
  expect(parsed.testsuite!.map((suite) => suite.name)).toEqual(['go-live']);
  return parsed.testsuite![0]!.testcase!.map((testCase) => ({ name: testCase.name!, failed: testCase.failure !== undefined, skipped: testCase.skipped !== undefined }));
}

describe('payments-sandbox go-live, exit 0', () => {
  it('says READY for a careful integration, and its JUnit report has a passing test case per check', { timeout: 60_000 }, async () => {
    const { merchant, receiver } = await merchantWithReceiver(true);
    const paid = await cardPaid(merchant, '5123450000000008', true);
    await cardPaid(merchant, '4000000000000002');
    await cardPaid(merchant, '4000000000000119');
    const first = await control.waitForNotification(merchant.publicKey, { paymentReference: paid, eventType: 'transaction' });
    // The same event again, and an event of a type it does not process: both acknowledged all the same.
    await fetch(`${control.base}/webhooks/deliveries/${first.id}/redeliver`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } });
    await fetch(`${control.base}/webhooks/${merchant.publicKey}/trigger`, {
      method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ eventType: 'dispute', paymentReference: paid }),
    });
    await expect.poll(async () => (await reportOf(merchant.publicKey)).verdict, { timeout: 15_000, interval: 200 }).toBe('ready');
    expect(receiver.queried).toContain(paid);

    const text = await goLive(['--public-key', merchant.publicKey]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^go-live report of ${merchant.publicKey}: READY`));
    expect(text.stderr).toBe('');

    const file = await outputFile('go-live.xml');
    const junit = await goLive(['--public-key', merchant.publicKey, '--format', 'junit', '--output', file]);
    expect(junit.code, junit.stderr).toBe(0);
    expect(junit.stdout).toBe('');
    expect(junit.stderr).toBe(`go-live: ready; the report is in ${file}\n`);
    const report = await reportOf(merchant.publicKey);
    expect((await junitCases(file)).map((testCase) => testCase.name)).toEqual(report.checks.map((check) => check.id));
    expect((await junitCases(file)).filter((testCase) => testCase.failed)).toEqual([]);
  });
});

describe('payments-sandbox go-live --run, exit 0', () => {
  it('runs the test of the receiver first, tells each step on stderr as it ends, then says READY', { timeout: 150_000 }, async () => {
    const { merchant } = await merchantWithReceiver(true);
    await cardPaid(merchant, '5123450000000008', true);
    await cardPaid(merchant, '4000000000000002');
    await cardPaid(merchant, '4000000000000119');
    const exit = await goLive(['--public-key', merchant.publicKey, '--run']);
    expect(exit.code, `${exit.stderr}\n${exit.stdout}`).toBe(0);
    expect(exit.stderr.trimEnd().split('\n').map((line) => /^run step (\S+) .*: (pass|fail)/.exec(line)?.slice(1).join(' '))).toEqual(GO_LIVE_RUN_STEPS.map((step) => `${step} pass`));
    expect(exit.stdout).toMatch(new RegExp(`^go-live report of ${merchant.publicKey}: READY`));
  });
});

describe('payments-sandbox go-live, exit 1', () => {
  it('says INCOMPLETE for a merchant with no traffic yet, and its JSON is the control API\'s report', async () => {
    const merchant = await api.merchant();
    const text = await goLive(['--public-key', merchant.publicKey]);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(new RegExp(`^go-live report of ${merchant.publicKey}: INCOMPLETE`));
    expect(text.stdout).toMatch(/^  not exercised +outcomes-covered: /m);
    const json = await goLive(['--public-key', merchant.publicKey, '--format', 'json']);
    expect(json.code).toBe(1);
    const { generatedAt: _, ...answered } = await reportOf(merchant.publicKey);
    expect(JSON.parse(json.stdout)).toEqual({ ...answered, generatedAt: expect.any(String) });
  });

  it('says NOT READY when the receiver leaves out the ackReference; the JUnit report fails exactly the checks that failed', { timeout: 60_000 }, async () => {
    const { merchant } = await merchantWithReceiver(false);
    const paid = await cardPaid(merchant, '5123450000000008', true);
    await control.waitForNotification(merchant.publicKey, (delivery) => delivery.paymentReference === paid && delivery.attempts.length > 0);
    const file = await outputFile('not-ready.xml');
    const junit = await goLive(['--public-key', merchant.publicKey, '--format', 'junit', '--output', file]);
    expect(junit.code, junit.stderr).toBe(1);
    const report = await reportOf(merchant.publicKey);
    expect(report.verdict).toBe('not-ready');
    const cases = await junitCases(file);
    expect(cases.map((testCase) => testCase.name)).toEqual(report.checks.map((check) => check.id));
    expect(cases.filter((testCase) => testCase.failed).map((testCase) => testCase.name)).toEqual(report.checks.filter((check) => check.status === 'fail').map((check) => check.id));
    expect(cases.filter((testCase) => testCase.failed).map((testCase) => testCase.name)).toContain('notification-acknowledged');
    expect(cases.filter((testCase) => testCase.skipped).map((testCase) => testCase.name)).toEqual(report.checks.filter((check) => check.status === 'not-exercised').map((check) => check.id));
  });
});

describe('payments-sandbox go-live, exit 2: no verdict, one line saying why', () => {
  /** Exit 2, nothing on stdout, and one line on stderr that holds `why` (no stack). */
  function noVerdict(exit: { code: number | null; stdout: string; stderr: string }, why: string | RegExp): void {
    expect(exit.code, exit.stderr).toBe(2);
    expect(exit.stdout).toBe('');
    expect(exit.stderr.endsWith('\n') && exit.stderr.split('\n')).toHaveLength(2);
    expect(exit.stderr).toMatch(why);
  }

  it('the sandbox unreachable', async () => {
    const started = run(['go-live', '--public-key', 'SBTESTPUBK_Unreachable1', '--url', `http://127.0.0.1:${await freePort()}`]);
    const { code } = await within(started.closed, EXIT_WITHIN, 'payments-sandbox go-live to exit');
    noVerdict({ code, stdout: started.stdout(), stderr: started.stderr() }, /^payments-sandbox: cannot reach the sandbox at http:\/\/127\.0\.0\.1:\d+/);
  });

  it('a merchant the sandbox does not know, a key that is not a test public key', async () => {
    noVerdict(await goLive(['--public-key', 'SBTESTPUBK_NoSuchMerchant1']), /answered 404: SBTESTPUBK_NoSuchMerchant1 is no merchant of this sandbox/);
    noVerdict(await goLive(['--public-key', 'SBPUBK_live12345']), /answered 400: /);
  });

  it('no control token, or the wrong one', async () => {
    const merchant = await api.merchant();
    noVerdict(await goLive(['--public-key', merchant.publicKey], {}), /answered 401: /);
    noVerdict(await goLive(['--public-key', merchant.publicKey, '--control-token', 'wrong']), /answered 401: /);
  });

  it('a run refused: the merchant has no notification URL', async () => {
    const merchant = await api.merchant();
    noVerdict(await goLive(['--public-key', merchant.publicKey, '--run']), new RegExp(`POST /__sandbox/go-live/${merchant.publicKey}/runs answered 409: `));
  });

  it('a flag it cannot use, or none for the merchant: exit 2 too, with commander\'s line and where the help is', async () => {
    for (const [args, why] of [[['--public-key', 'SBTESTPUBK_FlagTest01', '--format', 'xml'], /argument 'xml' is invalid/], [[], /required option '--public-key <key>' not specified/]] as const) {
      const exit = await goLive([...args]);
      expect(exit.code, exit.stderr).toBe(2);
      expect(exit.stderr).toMatch(why);
    }
  });
});
