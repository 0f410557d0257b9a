import { spawn } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseJunit, type TestSuites } from 'junit2json';
import { parse as parseYaml } from 'yaml';
import { cleanEnv, freePort, ROOT } from '../support/process.js';

/**
 * The shell of examples/ci/github-actions.yml and examples/ci/gitlab-ci.yml,
 * run on this machine as the runners would run it: GitHub's `run` steps one
 * after the other, each in `bash -eo pipefail`, with the job's `env`, what
 * the steps write to $GITHUB_ENV and their `if:` (`failure()`, `always()`);
 * GitLab's `before_script` and `script` as one `bash -eo pipefail` script
 * with the job's `variables`. They run in a project folder of their own, in
 * which payments-sandbox is installed (linked to this package) and
 * `examples/fixtures/merchant-day.yaml` is there; `npx payments-sandbox`
 * is the real npx. Three commands are the project's, not the file's: `npm
 * ci` does nothing (the project is installed), `npm start` starts a small
 * application whose notification receiver acknowledges each notification
 * with its ackReference and queries the payment's status (or, careless,
 * answers as the provider's Odoo plugin does, without the ackReference),
 * and `npm run integration-tests` is a small script that asks the sandbox
 * for the fixtures' payments, makes a success, a failure and a pending
 * payment by card, and passes or fails as the test says. They act for a
 * merchant of their own (SANDBOX_PUBLIC_KEY, set here as SANDBOX_PORT is),
 * whose go-live report judges their traffic alone. The `uses` steps are
 * GitHub's own actions: checkout and setup-node are skipped, upload-artifact
 * is checked to find its files, the JUnit report action to read the report.
 * Whatever happens, the sandbox and the application must end with the job
 * (docs/decisions.md#d73-ci-examples-checked).
 */

const folders: string[] = [];
/** The process groups of the scripts run: ended whole once the tests have looked, so that a sandbox a script failed to stop ends too. */
const groups: number[] = [];
afterAll(async () => {
  for (const group of groups) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // Ended already, as it should be.
    }
  }
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

/**
 * What the project's integration tests do: see the fixtures loaded, make one request of their own, then, to pass,
 * a success, a failure and a pending payment by card with the catalogue's test cards, and end as HARNESS_OUTCOME says.
 */
const INTEGRATION_TESTS = `
const base = process.env.SANDBOX_URL;
if (!base) { console.error('SANDBOX_URL is not set'); process.exit(2); }
const payments = await (await fetch(base + '/__sandbox/payments')).json();
if (!(payments.total > 0)) { console.error('the fixtures made no payment'); process.exit(2); }
await fetch(base + '/api/v2/payments/CI-RECIPE-PROBE', { headers: { authorization: 'Bearer none' } });
if (process.env.HARNESS_OUTCOME === 'pass') {
  const { SANDBOX_PUBLIC_KEY: publicKey, SANDBOX_SECRET_KEY: secretKey } = process.env;
  const send = async (path, body, token) => {
    const headers = { 'content-type': 'application/json', ...(token ? { authorization: 'Bearer ' + token } : {}) };
    const answer = await (await fetch(base + '/api/v2' + path, { method: 'POST', headers, body: JSON.stringify(body) })).json();
    return answer.data;
  };
  const token = (await send('/encrypt/keys', { key: secretKey + '.' + publicKey })).EncryptedSecKey.encryptedKey;
  const card = (cardNumber) => ({
    publicKey, paymentType: 'CARD', paymentReference: 'CI-' + cardNumber.slice(-4) + '-' + Date.now().toString(36), amount: '1500.00', currency: 'NGN',
    country: 'NG', cardNumber, cvv: '123', expiryMonth: '09', expiryYear: '30', pin: '1234', redirectUrl: 'https://merchant.example.com/return',
  });
  const paid = await send('/payments/initiates', card('5123450000000008'), token);
  const validated = await send('/payments/validate', { linkingReference: paid.payments.linkingReference, otp: '123456' }, token);
  const declined = await send('/payments/initiates', card('4000000000000002'), token);
  const pending = await send('/payments/initiates', card('4000000000000119'), token);
  const codes = [validated.code, declined.code, pending.code].join(' ');
  if (codes !== '00 S12 S20') { console.error('the card payments answered ' + codes); process.exit(1); }
}
console.log('integration tests: ' + process.env.HARNESS_OUTCOME);
process.exit(process.env.HARNESS_OUTCOME === 'pass' ? 0 : 1);
`;

/**
 * The project's application, as far as the sandbox sees it: a notification receiver on NOTIFICATION_URL's port.
 * Careful (HARNESS_RECEIVER=careful), it acknowledges each notification with its ackReference, then queries the
 * status of its merchant's payment; careless, it answers 200 without the ackReference and queries nothing.
 */
const APPLICATION = `
import { createServer } from 'node:http';
const { NOTIFICATION_URL, SANDBOX_PORT, SANDBOX_PUBLIC_KEY: publicKey, SANDBOX_SECRET_KEY: secretKey, HARNESS_RECEIVER } = process.env;
const api = 'http://127.0.0.1:' + SANDBOX_PORT + '/api/v2';
// One key exchange for the application's life, however many notifications come at once.
let token;
const query = async (reference) => {
  token ??= fetch(api + '/encrypt/keys', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: secretKey + '.' + publicKey }) })
    .then((answer) => answer.json()).then((answer) => answer.data.EncryptedSecKey.encryptedKey);
  const answer = await fetch(api + '/payments/query/' + encodeURIComponent(reference), { headers: { authorization: 'Bearer ' + (await token) } });
  console.log('queried ' + reference + ': ' + answer.status);
};
createServer((req, res) => {
  let raw = '';
  req.setEncoding('utf8').on('data', (chunk) => (raw += chunk));
  req.on('end', () => {
    const data = JSON.parse(raw).notificationItems[0].notificationRequestItem.data;
    const careful = HARNESS_RECEIVER === 'careful';
    const body = careful ? { ackReference: req.headers['x-expected-ack-reference'], status: 'received' } : { status: 'success', message: 'Processed' };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (careful && data.publicKey === publicKey) res.once('finish', () => setTimeout(() => query(data.reference).catch((error) => console.error(error)), 100));
  });
}).listen(Number(new URL(NOTIFICATION_URL).port), '127.0.0.1', () => console.log('the application listens on ' + NOTIFICATION_URL));
`;

/** The merchant of the project's tests and application (not the fixtures': its payments of other types would need their own outcomes). */
const MERCHANT = { SANDBOX_PUBLIC_KEY: 'SBTESTPUBK_CiRecipeApp01', SANDBOX_SECRET_KEY: 'SBTESTSECK_CiRecipeApp01' };

/** How the project behaves in one run of a job: whether its tests pass, and how its receiver answers. */
interface Harness {
  outcome: 'pass' | 'fail';
  receiver: 'careful' | 'careless';
}

/** The settings of the job that the harness sets as it sets the port: the project's merchant, the application's port, and how the project behaves. */
function harnessEnv(harness: Harness, appPort: number): Record<string, string> {
  return { ...MERCHANT, NOTIFICATION_URL: `http://127.0.0.1:${appPort}/notifications`, HARNESS_OUTCOME: harness.outcome, HARNESS_RECEIVER: harness.receiver };
}

/** A project that uses payments-sandbox, and a folder of commands that stand first on its PATH. */
async function project(): Promise<{ dir: string; path: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'payments-sandbox-ci-'));
  folders.push(dir);
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'merchant-app', version: '1.0.0', private: true, devDependencies: { 'payments-sandbox': '*' } }));
  await mkdir(join(dir, 'node_modules/.bin'), { recursive: true });
  await symlink(ROOT, join(dir, 'node_modules/payments-sandbox'));
  await symlink('../payments-sandbox/bin/payments-sandbox.js', join(dir, 'node_modules/.bin/payments-sandbox'));
  await cp(join(ROOT, 'examples/fixtures'), join(dir, 'examples/fixtures'), { recursive: true });
  const commands = join(dir, '.harness');
  await mkdir(commands);
  await writeFile(join(commands, 'integration-tests.mjs'), INTEGRATION_TESTS);
  await writeFile(join(commands, 'application.mjs'), APPLICATION);
  const realNpm = process.env.npm_execpath;
  await writeFile(
    join(commands, 'npm'),
    [
      '#!/usr/bin/env bash',
      'case "$1" in',
      '  ci) echo "npm ci: installed already"; exit 0 ;;',
      `  start) exec node "${join(commands, 'application.mjs')}" ;;`,
      `  run) [ "$2" = integration-tests ] && exec node "${join(commands, 'integration-tests.mjs')}" ;;`,
      'esac',
      realNpm ? `exec node "${realNpm}" "$@"` : 'echo "no npm to hand $* to" >&2; exit 127',
      '',
    ].join('\n'),
  );
  await chmod(join(commands, 'npm'), 0o755);
  return { dir, path: `${commands}:${process.env.PATH ?? ''}` };
}

interface Script {
  code: number;
  output: string;
}

/**
 * Runs a script with `bash -eo pipefail` in a process group of its own,
 * which what it starts in the background stays in (a GitHub step's sandbox
 * outlives its step, as on the runner); afterAll ends the groups.
 */
function bash(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<Script> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid !== undefined) groups.push(child.pid);
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, output });
    });
  });
}

/**
 * Whether something still answers on the port a few seconds on: a sandbox
 * started by npx closes once npm's shell has gone, a moment after the job's
 * `kill` (docs/decisions.md#d69-close-with-npm-exec).
 */
async function listening(port: number): Promise<boolean> {
  // As long as the job's own script waits for it (`timeout 15 tail --pid`): on a loaded machine 5 s was once too short.
  for (const deadline = Date.now() + 15_000; Date.now() < deadline; await new Promise((done) => setTimeout(done, 100))) {
    try {
      await fetch(`http://127.0.0.1:${port}/__sandbox/health`, { signal: AbortSignal.timeout(1000) });
    } catch {
      return false;
    }
  }
  return true;
}

interface GitHubStep {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, unknown>;
}

/** The outcome of each step of the GitHub job, by name (or action), and the job's. */
interface GitHubRun {
  steps: Array<{ step: string; outcome: 'success' | 'failure' | 'skipped'; output: string }>;
  failed: boolean;
  env: Record<string, string>;
}

/** Runs the job of examples/ci/github-actions.yml as the runner would, in `dir`, the project behaving as `harness` says. */
async function runGitHub(dir: string, path: string, ports: Ports, harness: Harness): Promise<GitHubRun> {
  const workflow = parseYaml(await readFile(join(ROOT, 'examples/ci/github-actions.yml'), 'utf8')) as { jobs: Record<string, { env?: Record<string, string>; steps: GitHubStep[] }> };
  const [job] = Object.values(workflow.jobs);
  const githubEnv = join(dir, '.github-env');
  await writeFile(githubEnv, '');
  const jobEnv: Record<string, string> = { ...job!.env, SANDBOX_PORT: String(ports.sandbox), ...harnessEnv(harness, ports.app) };
  const result: GitHubRun = { steps: [], failed: false, env: {} };
  for (const step of job!.steps) {
    const label = step.name ?? step.uses ?? '?';
    const condition = step.if?.trim();
    if (condition !== undefined && condition !== 'failure()' && condition !== 'always()') throw new Error(`the harness does not read the condition ${condition} of ${label}`);
    const runs = condition === 'always()' || (condition === 'failure()' ? result.failed : !result.failed);
    if (!runs) {
      result.steps.push({ step: label, outcome: 'skipped', output: '' });
      continue;
    }
    if (step.uses !== undefined) {
      if (/^actions\/upload-artifact@/.test(step.uses)) {
        // The action uploads what `path` names: it must be there, with the report's files.
        const folder = join(dir, String(step.with?.path ?? ''));
        const found = await stat(folder).then((info) => info.isDirectory(), () => false);
        result.steps.push({ step: label, outcome: found ? 'success' : 'failure', output: found ? '' : `nothing at ${folder}` });
      } else if (/^mikepenz\/action-junit-report@/.test(step.uses)) {
        // The action reads the JUnit files `report_paths` names; with none there, it only warns (its require_tests is false).
        const file = join(dir, String(step.with?.report_paths ?? ''));
        const text = await readFile(file, 'utf8').catch(() => undefined);
        const read = text === undefined ? undefined : await parseJunit(text).then(() => 'read', (error: Error) => `not JUnit: ${error.message}`);
        result.steps.push({ step: label, outcome: read === undefined || read === 'read' ? 'success' : 'failure', output: read ?? `no report at ${file}` });
      } else {
        result.steps.push({ step: label, outcome: 'skipped', output: `${step.uses} is GitHub's own` });
      }
      continue;
    }
    expect(step.run, `${label} has no run`).toBeDefined();
    expect(step.run, `${label} uses an expression the harness does not evaluate`).not.toContain('${{');
    const fromSteps = Object.fromEntries(
      (await readFile(githubEnv, 'utf8'))
        .split('\n')
        .filter((line) => line.includes('='))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    result.env = fromSteps;
    const env = cleanEnv({ ...jobEnv, ...fromSteps, GITHUB_ENV: githubEnv, GITHUB_RUN_ID: '4242', CI: 'true', GITHUB_ACTIONS: 'true', PATH: path });
    const ran = await bash(step.run!, dir, env);
    result.steps.push({ step: label, outcome: ran.code === 0 ? 'success' : 'failure', output: ran.output });
    if (ran.code !== 0) result.failed = true;
  }
  return result;
}

/** The GitLab job's artifacts, as the file declares them. */
interface Artifacts {
  when: string;
  paths: string[];
  reports?: { junit?: string };
  expire_in?: string;
}

/** Runs the job of examples/ci/gitlab-ci.yml as a shell runner would, in `dir`, the project behaving as `harness` says. */
async function runGitLab(dir: string, path: string, ports: Ports, harness: Harness): Promise<Script & { artifacts: Artifacts }> {
  const pipeline = parseYaml(await readFile(join(ROOT, 'examples/ci/gitlab-ci.yml'), 'utf8')) as Record<string, { variables?: Record<string, string>; before_script?: string[]; script?: string[]; artifacts?: Artifacts }>;
  const job = pipeline['integration-tests']!;
  const variables = { ...job.variables, SANDBOX_PORT: String(ports.sandbox), ...harnessEnv(harness, ports.app), CI: 'true', GITLAB_CI: 'true', CI_JOB_ID: '4242', CI_PROJECT_DIR: dir };
  // The runner expands variables that name others ($CI_PROJECT_DIR) before the job starts.
  const expanded = Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, value.replace(/\$CI_PROJECT_DIR/g, dir)]));
  const script = [...(job.before_script ?? []), ...(job.script ?? [])].join('\n');
  const ran = await bash(script, dir, cleanEnv({ ...expanded, PATH: path }));
  return { ...ran, artifacts: job.artifacts! };
}

/** The files of the report a failed job keeps, read. */
async function report(dir: string): Promise<{ journal: any; deliveries: any; snapshot: any; log: string; appLog: string }> {
  const folder = join(dir, 'sandbox-report');
  const json = async (name: string) => JSON.parse(await readFile(join(folder, name), 'utf8'));
  return {
    journal: await json('journal.json'), deliveries: await json('deliveries.json'), snapshot: await json('snapshot.json'),
    log: await readFile(join(folder, 'sandbox.log'), 'utf8'), appLog: await readFile(join(folder, 'app.log'), 'utf8'),
  };
}

/** The go-live report the job wrote, read back by a JUnit parser: the name of each test case, and those that failed. */
async function goLiveJunit(dir: string): Promise<{ names: string[]; failed: string[] }> {
  const parsed = (await parseJunit(await readFile(join(dir, 'go-live.xml'), 'utf8'))) as TestSuites;
  const cases = parsed.testsuite!.flatMap((suite) => suite.testcase ?? []);
  return { names: cases.map((testCase) => testCase.name!), failed: cases.filter((testCase) => testCase.failure !== undefined).map((testCase) => testCase.name!) };
}

const absent = (path: string) => stat(path).then(() => false, () => true);

/** The two ports of a job: the sandbox's and the application's. */
interface Ports {
  sandbox: number;
  app: number;
}

const freePorts = async (): Promise<Ports> => ({ sandbox: await freePort(), app: await freePort() });

describe('examples/ci/github-actions.yml, its steps run here', () => {
  it('starts the application and the sandbox, runs the tests, finds the integration ready, publishes the go-live report, uploads nothing, and stops both', { timeout: 150_000 }, async () => {
    const { dir, path } = await project();
    const ports = await freePorts();
    const run = await runGitHub(dir, path, ports, { outcome: 'pass', receiver: 'careful' });
    const outcomes = Object.fromEntries(run.steps.map((step) => [step.step, step.outcome]));
    expect(outcomes).toMatchObject({ 'Start the application': 'success', 'Start the sandbox': 'success', 'Wait until it serves': 'success', 'Run the tests': 'success', 'Stop the sandbox': 'success' });
    expect(run.env.SANDBOX_URL).toBe(`http://127.0.0.1:${ports.sandbox}`);
    expect(await listening(ports.sandbox)).toBe(false);
    expect(await listening(ports.app)).toBe(false);
    expect(run.failed, JSON.stringify(run.steps, null, 2)).toBe(false);
    expect(outcomes).toMatchObject({
      'Is the integration ready?': 'success',
      'Publish the go-live report': 'success',
      'Keep what the sandbox saw': 'skipped',
      'Upload the sandbox report': 'skipped',
    });
    const junit = await goLiveJunit(dir);
    expect(junit.names).toHaveLength(8);
    expect(junit.failed).toEqual([]);
    expect(await absent(join(dir, 'sandbox-report'))).toBe(true);
  });

  it('on a failure of the tests, asks no go-live report, keeps the journal, the deliveries, a snapshot and both logs for upload, and stops both', { timeout: 120_000 }, async () => {
    const { dir, path } = await project();
    const ports = await freePorts();
    const run = await runGitHub(dir, path, ports, { outcome: 'fail', receiver: 'careful' });
    const outcomes = Object.fromEntries(run.steps.map((step) => [step.step, step.outcome]));
    expect(run.failed).toBe(true);
    expect(outcomes).toMatchObject({
      'Run the tests': 'failure',
      'Is the integration ready?': 'skipped',
      'Publish the go-live report': 'success',
      'Keep what the sandbox saw': 'success',
      'Upload the sandbox report': 'success',
      'Stop the sandbox': 'success',
    });
    expect(await absent(join(dir, 'go-live.xml'))).toBe(true);
    const kept = await report(dir);
    expect(kept.journal.requests.map((entry: { path: string }) => entry.path)).toContain('/payments/CI-RECIPE-PROBE');
    expect(kept.deliveries).toMatchObject({ deliveries: expect.any(Array) });
    expect(kept.snapshot).toMatchObject({ version: expect.any(Number) });
    expect(kept.log).toMatch(/CI-RECIPE-PROBE/);
    expect(kept.appLog).toContain('the application listens on');
    expect(await listening(ports.sandbox)).toBe(false);
    expect(await listening(ports.app)).toBe(false);
  });

  it('fails the job when the integration is not ready (its receiver leaves out the ackReference), with the JUnit report failing that check', { timeout: 150_000 }, async () => {
    const { dir, path } = await project();
    const ports = await freePorts();
    const run = await runGitHub(dir, path, ports, { outcome: 'pass', receiver: 'careless' });
    const outcomes = Object.fromEntries(run.steps.map((step) => [step.step, step.outcome]));
    expect(run.failed).toBe(true);
    expect(outcomes).toMatchObject({ 'Run the tests': 'success', 'Is the integration ready?': 'failure', 'Keep what the sandbox saw': 'success', 'Stop the sandbox': 'success' });
    expect(await listening(ports.sandbox)).toBe(false);
    const ready = run.steps.find((step) => step.step === 'Is the integration ready?')!;
    expect(ready.output).toMatch(/go-live: not-ready; the report is in go-live\.xml/);
    expect(outcomes['Publish the go-live report']).toBe('success');
    expect((await goLiveJunit(dir)).failed).toContain('notification-acknowledged');
  });
});

describe('examples/ci/gitlab-ci.yml, its script run here', () => {
  it('starts the application and the sandbox, runs the tests, finds the integration ready, and stops both; the go-live report is a JUnit report, the sandbox\'s kept on failure only', { timeout: 150_000 }, async () => {
    const { dir, path } = await project();
    const ports = await freePorts();
    const run = await runGitLab(dir, path, ports, { outcome: 'pass', receiver: 'careful' });
    expect(run.output).toMatch(/integration tests: pass/);
    expect(run.artifacts).toEqual({ when: 'always', paths: ['sandbox-report/'], reports: { junit: 'go-live.xml' }, expire_in: '1 week' });
    expect(await listening(ports.sandbox)).toBe(false);
    expect(await listening(ports.app)).toBe(false);
    expect(run.code, run.output).toBe(0);
    expect((await goLiveJunit(dir)).failed).toEqual([]);
    expect(await absent(join(dir, 'sandbox-report'))).toBe(true);
  });

  it('on a failure, fails the job with the tests\' status after keeping the report, and stops both', { timeout: 120_000 }, async () => {
    const { dir, path } = await project();
    const ports = await freePorts();
    const run = await runGitLab(dir, path, ports, { outcome: 'fail', receiver: 'careful' });
    expect(run.code, run.output).toBe(1);
    expect(await absent(join(dir, 'go-live.xml'))).toBe(true);
    const kept = await report(dir);
    expect(kept.journal.requests.map((entry: { path: string }) => entry.path)).toContain('/payments/CI-RECIPE-PROBE');
    expect(kept.deliveries).toMatchObject({ deliveries: expect.any(Array) });
    expect(kept.snapshot).toMatchObject({ version: expect.any(Number) });
    expect(kept.appLog).toContain('the application listens on');
    expect(await listening(ports.sandbox)).toBe(false);
    expect(await listening(ports.app)).toBe(false);
  });
});
