import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadCatalogue } from '../../src/index.js';
import { ControlClient } from '../support/control.js';

/**
 * The scenario side of the payments-sandbox executable, as a user runs it:
 * `scenarios list`, extra scenario folders, --scenario, --journal-size and
 * --seed, on real child processes (bin/payments-sandbox.js on the built dist/).
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin/payments-sandbox.js');
const TIMEOUT = 60_000;
const START_WITHIN = 20_000;
const EXIT_WITHIN = 10_000;

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** resolves once the process has exited and both its outputs are read to the end */
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

let dir: string;
let runs: Run[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payments-sandbox-cli-scenarios-'));
});

afterEach(async () => {
  for (const started of runs) {
    if (started.child.exitCode === null && started.child.signalCode === null) {
      started.child.kill('SIGKILL');
      await within(started.exited, EXIT_WITHIN, 'the killed sandbox to exit').catch(() => undefined);
    }
  }
  runs = [];
  await rm(dir, { recursive: true, force: true });
});

/** The environment of the test, without any setting the sandbox reads. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (name === 'PORT' || name.startsWith('SANDBOX_')) delete env[name];
  }
  return env;
}

function run(args: string[]): Run {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => {
    child.once('exit', (code, signal) => done({ code, signal }));
  });
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => {
    child.once('close', (code, signal) => done({ code, signal }));
  });
  const started: Run = { child, stdout: () => stdout, stderr: () => stderr, exited, closed };
  runs.push(started);
  return started;
}

/** `promise`, or a rejection naming what was awaited after `ms` milliseconds. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs a command that ends by itself, and waits for its exit (and all its output). */
async function finished(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const started = run(args);
  const { code } = await within(started.closed, START_WITHIN, `payments-sandbox ${args.join(' ')} to exit`);
  return { code, stdout: started.stdout(), stderr: started.stderr() };
}

interface Banner {
  apiBase: string;
  origin: string;
  publicKey: string;
  secretKey: string;
  text: string;
}

const CURL = /curl -s (\S+) -H 'Content-Type: application\/json' -d '([^']+)'/;

/** Waits for the start-up banner (its curl line is the end), or fails if the process dies first. */
async function banner(started: Run): Promise<Banner> {
  const printed = new Promise<Banner>((done, fail) => {
    const check = () => {
      const out = started.stdout();
      if (!CURL.test(out)) return;
      started.child.stdout!.off('data', check);
      started.child.off('exit', died);
      const apiBase = /API base\s+(\S+)/.exec(out)?.[1] ?? '';
      done({
        apiBase,
        origin: new URL(apiBase).origin,
        publicKey: /public key\s+(\S+)/.exec(out)?.[1] ?? '',
        secretKey: /secret key\s+(\S+)/.exec(out)?.[1] ?? '',
        text: out,
      });
    };
    const died = (code: number | null) => fail(new Error(`the sandbox exited (${code}) before serving:\n${started.stderr()}`));
    started.child.stdout!.on('data', check);
    started.child.once('exit', died);
    check();
  });
  return within(printed, START_WITHIN, `the start-up banner; stdout so far:\n${started.stdout()}`);
}

/** A JSON request to the running sandbox's Payments API. */
async function call(apiBase: string, method: 'GET' | 'POST', path: string, body?: unknown, auth?: string) {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (auth) headers.Authorization = auth;
  const response = await fetch(`${apiBase}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(EXIT_WITHIN),
  });
  return { status: response.status, body: (await response.json()) as any, scenario: response.headers.get('x-sandbox-scenario') };
}

/** The banner's key pair exchanged for a bearer token. */
async function bearer(shown: Banner): Promise<string> {
  const exchanged = await call(shown.apiBase, 'POST', '/encrypt/keys', { key: `${shown.secretKey}.${shown.publicKey}` });
  expect(exchanged.status).toBe(200);
  return `Bearer ${exchanged.body.data.EncryptedSecKey.encryptedKey}`;
}

/** Writes a folder with one scenario file that breaks the catalogue schema; returns the file. */
async function badScenarioFolder(): Promise<string> {
  const folder = join(dir, 'team-scenarios');
  await mkdir(folder);
  const file = join(folder, 'broken.yaml');
  await writeFile(file, 'scenarios:\n  - name: broken-rule\n    description: d\n    match: { operation: noSuchOperation }\n    then: { code: "00", message: ok }\n    example: { request: { operation: initiatePayment }, expect: { status: 200 } }\n');
  return file;
}

const shipped = await loadCatalogue();

describe('payments-sandbox scenarios list', () => {
  it('prints every scenario of the shipped catalogue, one a line, and exits 0', { timeout: TIMEOUT }, async () => {
    const { code, stdout, stderr } = await finished(['scenarios', 'list']);
    expect(code, stderr).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+TRIGGER\s+ANSWERS\s+DESCRIPTION$/);
    const names = lines.slice(1).map((line) => line.split(/\s+/)[0]);
    expect(names).toEqual(shipped.map((scenario) => scenario.name));
    const declined = lines.find((line) => line.startsWith('card-declined '))!;
    expect(declined).toContain('S12 Transaction Failed');
    expect(lines.find((line) => line.startsWith('hang '))).toContain('header/override');
  });

  it('--json prints the catalogue as parseable JSON', { timeout: TIMEOUT }, async () => {
    const { code, stdout } = await finished(['scenarios', 'list', '--json']);
    expect(code).toBe(0);
    const parsed = JSON.parse(stdout) as Array<{ name: string; then: unknown; source: string }>;
    expect(parsed.map((scenario) => scenario.name)).toEqual(shipped.map((scenario) => scenario.name));
    expect(parsed.find((scenario) => scenario.name === 'card-declined')!.then).toEqual(shipped.find((scenario) => scenario.name === 'card-declined')!.then);
  });

  it('--scenarios <dir> with a file that breaks the schema exits 1 naming the file', { timeout: TIMEOUT }, async () => {
    const file = await badScenarioFolder();
    const { code, stdout, stderr } = await finished(['scenarios', 'list', '--scenarios', join(dir, 'team-scenarios')]);
    expect(code).toBe(1);
    expect(stderr).toContain(file);
    expect(stderr).toContain('broken-rule');
    expect(stdout).toBe('');
  });

  it('--scenarios <dir> with a good file lists its rules after the shipped ones', { timeout: TIMEOUT }, async () => {
    const folder = join(dir, 'good');
      await mkdir(folder);
    await writeFile(join(folder, 'team.yaml'), 'scenarios:\n  - name: team-rule\n    description: A team rule.\n    explicit: true\n    match: { operation: initiatePayment }\n    then: { code: S12, message: Team failure, payments: empty }\n    example: { request: { operation: initiatePayment }, expect: { status: 200, code: S12 } }\n');
    const { code, stdout } = await finished(['scenarios', 'list', '--json', '--scenarios', folder]);
    expect(code).toBe(0);
    const names = (JSON.parse(stdout) as Array<{ name: string }>).map((scenario) => scenario.name);
    expect(names).toEqual([...shipped.map((scenario) => scenario.name), 'team-rule']);
  });
});

describe('starting payments-sandbox with scenario options', () => {
  it('--scenarios <dir> with a bad file stops the start-up with exit 1 naming the file', { timeout: TIMEOUT }, async () => {
    const file = await badScenarioFolder();
    const { code, stdout, stderr } = await finished(['--port', '0', '--in-memory', '--scenarios', join(dir, 'team-scenarios')]);
    expect(code).toBe(1);
    expect(stderr).toContain(file);
    expect(stdout).not.toContain('API base');
  });

  it('--scenario no-such-rule exits 1 naming the rule', { timeout: TIMEOUT }, async () => {
    const { code, stdout, stderr } = await finished(['--port', '0', '--in-memory', '--scenario', 'no-such-rule']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^payments-sandbox: /);
    expect(stderr).toContain('no-such-rule');
    expect(stdout).not.toContain('API base');
  });

  it('--scenario transaction-failed makes an account payment answer S12, named in X-Sandbox-Scenario', { timeout: TIMEOUT }, async () => {
    const started = run(['--scenario', 'transaction-failed', '--port', '0', '--in-memory']);
    const shown = await banner(started);
    expect(shown.text).toMatch(/scenario\s+transaction-failed \(sticky override\)/);
    const auth = await bearer(shown);

    const initiated = await call(
      shown.apiBase,
      'POST',
      '/payments/initiates',
      { publicKey: shown.publicKey, paymentType: 'ACCOUNT', paymentReference: 'SBREF-CLI-FORCED', amount: '150.00', currency: 'NGN', country: 'NG', accountNumber: '0123456789', bankCode: '058' },
      auth,
    );
    expect(initiated.status).toBe(200);
    expect(initiated.body.data).toMatchObject({ code: 'S12', message: 'Transaction Failed' });
    expect(initiated.scenario).toBe('transaction-failed');

    // A sticky, sandbox-wide override, as the control API shows it.
    const control = await ControlClient.at(shown.origin);
    const overrides = (await control.overrides()).body.overrides;
    expect(overrides).toEqual([expect.objectContaining({ scenario: 'transaction-failed' })]);
    expect(overrides[0]).not.toHaveProperty('times');
    expect(overrides[0]).not.toHaveProperty('publicKey');
  });

  it('--journal-size 5 keeps five requests', { timeout: TIMEOUT }, async () => {
    const started = run(['--journal-size', '5', '--port', '0', '--in-memory']);
    const shown = await banner(started);
    const auth = await bearer(shown);
    for (let n = 0; n < 7; n += 1) {
      expect((await call(shown.apiBase, 'GET', `/products/orders/publicKey/${shown.publicKey}`, undefined, auth)).status).toBe(200);
    }
    const control = await ControlClient.at(shown.origin);
    const journal = (await control.requests()).body;
    expect(journal.capacity).toBe(5);
    expect(journal.count).toBe(5);
    expect(journal.requests).toHaveLength(5);
  });

  it('--seed abc is shown in the banner', { timeout: TIMEOUT }, async () => {
    const started = run(['--seed', 'abc', '--port', '0', '--in-memory']);
    const shown = await banner(started);
    expect(shown.text).toMatch(/^ {2}seed {10}abc$/m);
  });
});
