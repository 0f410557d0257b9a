import { spawn } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
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
 * is the real npx. Two commands are the project's, not the file's: `npm ci`
 * does nothing (the project is installed) and `npm run integration-tests`
 * is a small script that asks the sandbox for the fixtures' payments and
 * passes or fails as the test says. The `uses` steps are GitHub's own
 * actions: checkout and setup-node are skipped, upload-artifact is checked
 * to find its files. Whatever happens, the sandbox must end with the job
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

/** What the project's integration tests do: see the fixtures loaded, make one request of their own, and end as HARNESS_OUTCOME says. */
const INTEGRATION_TESTS = `
const base = process.env.SANDBOX_URL;
if (!base) { console.error('SANDBOX_URL is not set'); process.exit(2); }
const payments = await (await fetch(base + '/__sandbox/payments')).json();
if (!(payments.total > 0)) { console.error('the fixtures made no payment'); process.exit(2); }
await fetch(base + '/api/v2/payments/CI-RECIPE-PROBE', { headers: { authorization: 'Bearer none' } });
console.log('integration tests: ' + process.env.HARNESS_OUTCOME);
process.exit(process.env.HARNESS_OUTCOME === 'pass' ? 0 : 1);
`;

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
  const realNpm = process.env.npm_execpath;
  await writeFile(
    join(commands, 'npm'),
    [
      '#!/usr/bin/env bash',
      'case "$1" in',
      '  ci) echo "npm ci: installed already"; exit 0 ;;',
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

/** Runs the job of examples/ci/github-actions.yml as the runner would, in `dir`. */
async function runGitHub(dir: string, path: string, port: number, outcome: 'pass' | 'fail'): Promise<GitHubRun> {
  const workflow = parseYaml(await readFile(join(ROOT, 'examples/ci/github-actions.yml'), 'utf8')) as { jobs: Record<string, { env?: Record<string, string>; steps: GitHubStep[] }> };
  const [job] = Object.values(workflow.jobs);
  const githubEnv = join(dir, '.github-env');
  await writeFile(githubEnv, '');
  const jobEnv: Record<string, string> = { ...job!.env, SANDBOX_PORT: String(port) };
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
    const env = cleanEnv({ ...jobEnv, ...fromSteps, GITHUB_ENV: githubEnv, GITHUB_RUN_ID: '4242', CI: 'true', GITHUB_ACTIONS: 'true', HARNESS_OUTCOME: outcome, PATH: path });
    const ran = await bash(step.run!, dir, env);
    result.steps.push({ step: label, outcome: ran.code === 0 ? 'success' : 'failure', output: ran.output });
    if (ran.code !== 0) result.failed = true;
  }
  return result;
}

/** Runs the job of examples/ci/gitlab-ci.yml as a shell runner would, in `dir`. */
async function runGitLab(dir: string, path: string, port: number, outcome: 'pass' | 'fail'): Promise<Script & { artifacts: { when: string; paths: string[] } }> {
  const pipeline = parseYaml(await readFile(join(ROOT, 'examples/ci/gitlab-ci.yml'), 'utf8')) as Record<string, { variables?: Record<string, string>; before_script?: string[]; script?: string[]; artifacts?: { when: string; paths: string[] } }>;
  const job = pipeline['integration-tests']!;
  const variables = { ...job.variables, SANDBOX_PORT: String(port), CI: 'true', GITLAB_CI: 'true', CI_JOB_ID: '4242', CI_PROJECT_DIR: dir };
  // The runner expands variables that name others ($CI_PROJECT_DIR) before the job starts.
  const expanded = Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, value.replace(/\$CI_PROJECT_DIR/g, dir)]));
  const script = [...(job.before_script ?? []), ...(job.script ?? [])].join('\n');
  const ran = await bash(script, dir, cleanEnv({ ...expanded, HARNESS_OUTCOME: outcome, PATH: path }));
  return { ...ran, artifacts: job.artifacts! };
}

/** The files of the report a failed job keeps, read. */
async function report(dir: string): Promise<{ journal: any; deliveries: any; snapshot: any; log: string }> {
  const folder = join(dir, 'sandbox-report');
  const json = async (name: string) => JSON.parse(await readFile(join(folder, name), 'utf8'));
  return { journal: await json('journal.json'), deliveries: await json('deliveries.json'), snapshot: await json('snapshot.json'), log: await readFile(join(folder, 'sandbox.log'), 'utf8') };
}

const absent = (path: string) => stat(path).then(() => false, () => true);

describe('examples/ci/github-actions.yml, its steps run here', () => {
  it('starts the sandbox with the fixtures, runs the tests, uploads nothing, and stops the sandbox', { timeout: 120_000 }, async () => {
    const { dir, path } = await project();
    const port = await freePort();
    const run = await runGitHub(dir, path, port, 'pass');
    const outcomes = Object.fromEntries(run.steps.map((step) => [step.step, step.outcome]));
    expect(run.failed, JSON.stringify(run.steps, null, 2)).toBe(false);
    expect(outcomes).toMatchObject({
      'Start the sandbox': 'success',
      'Wait until it serves': 'success',
      'Run the tests': 'success',
      'Keep what the sandbox saw': 'skipped',
      'Upload the sandbox report': 'skipped',
      'Stop the sandbox': 'success',
    });
    expect(run.env.SANDBOX_URL).toBe(`http://127.0.0.1:${port}`);
    expect(await listening(port)).toBe(false);
    expect(await absent(join(dir, 'sandbox-report'))).toBe(true);
  });

  it('on a failure, keeps the journal, the deliveries, a snapshot and the log for upload, and stops the sandbox', { timeout: 120_000 }, async () => {
    const { dir, path } = await project();
    const port = await freePort();
    const run = await runGitHub(dir, path, port, 'fail');
    const outcomes = Object.fromEntries(run.steps.map((step) => [step.step, step.outcome]));
    expect(run.failed).toBe(true);
    expect(outcomes).toMatchObject({
      'Run the tests': 'failure',
      'Keep what the sandbox saw': 'success',
      'Upload the sandbox report': 'success',
      'Stop the sandbox': 'success',
    });
    const kept = await report(dir);
    expect(kept.journal.requests.map((entry: { path: string }) => entry.path)).toContain('/payments/CI-RECIPE-PROBE');
    expect(kept.deliveries).toMatchObject({ deliveries: expect.any(Array) });
    expect(kept.snapshot).toMatchObject({ version: expect.any(Number) });
    expect(kept.log).toMatch(/CI-RECIPE-PROBE/);
    expect(await listening(port)).toBe(false);
  });
});

describe('examples/ci/gitlab-ci.yml, its script run here', () => {
  it('starts the sandbox with the fixtures, runs the tests and stops the sandbox; the artifacts are kept on failure only', { timeout: 120_000 }, async () => {
    const { dir, path } = await project();
    const port = await freePort();
    const run = await runGitLab(dir, path, port, 'pass');
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/integration tests: pass/);
    expect(run.artifacts).toEqual({ when: 'on_failure', paths: ['sandbox-report/'], expire_in: '1 week' });
    expect(await absent(join(dir, 'sandbox-report'))).toBe(true);
    expect(await listening(port)).toBe(false);
  });

  it('on a failure, fails the job with the tests\' status after keeping the report, and stops the sandbox', { timeout: 120_000 }, async () => {
    const { dir, path } = await project();
    const port = await freePort();
    const run = await runGitLab(dir, path, port, 'fail');
    expect(run.code, run.output).toBe(1);
    const kept = await report(dir);
    expect(kept.journal.requests.map((entry: { path: string }) => entry.path)).toContain('/payments/CI-RECIPE-PROBE');
    expect(kept.deliveries).toMatchObject({ deliveries: expect.any(Array) });
    expect(kept.snapshot).toMatchObject({ version: expect.any(Number) });
    expect(await listening(port)).toBe(false);
  });
});
