import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { cleanEnv, ROOT } from '../support/process.js';

/**
 * The Vitest global set-ups of payments-sandbox/testing, used as a user's
 * config uses them: a Vitest run of its own (test/testing/runner/) whose
 * `globalSetup` is the package's ready-made module, named by its export and
 * loaded from the built dist/, or a set-up file with fixtures; its checks
 * (sandbox.check.ts) read the sandbox through `inject` and the environment.
 * A run whose fixtures do not load fails before any check, and a check that
 * does not hold fails its run.
 */

const execute = promisify(execFile);
const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs');
const CONFIG = join(ROOT, 'test/testing/runner/vitest.config.ts');
const fixture = (name: string) => join(ROOT, 'test/testing/fixtures', name);

/** Runs the inner run with `env` added to a clean environment; its exit code and everything it printed. */
async function innerRun(env: Record<string, string>): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await execute(process.execPath, [VITEST, 'run', '--config', CONFIG], { cwd: ROOT, env: cleanEnv({ ...env, NO_COLOR: '1' }), timeout: 90_000 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string; message: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, output: `${failed.stdout ?? ''}${failed.stderr ?? failed.message}` };
  }
}

describe('the Vitest global set-up', () => {
  it('payments-sandbox/testing/vitest-global-setup gives every test file one sandbox on a free port', { timeout: 120_000 }, async () => {
    const { code, output } = await innerRun({ RUNNER_SETUP: 'packaged' });
    expect(output).toMatch(/Tests\s+3 passed \(3\)/);
    expect(code, output).toBe(0);
    expect(output).toMatch(/sandbox of the run: http:\/\/127\.0\.0\.1:\d+ SBTESTPUBK_/);
  });

  it('a set-up file with fixtures gives the tests the fixtures\' merchant and payments', { timeout: 120_000 }, async () => {
    const { code, output } = await innerRun({ RUNNER_SETUP: 'fixtures', RUNNER_FIXTURES: fixture('paid-card.yaml'), RUNNER_PAYMENT: 'TESTING-CARD-1' });
    expect(output).toMatch(/Tests\s+3 passed \(3\)/);
    expect(code, output).toBe(0);
    expect(output).toMatch(/sandbox of the run: http:\/\/127\.0\.0\.1:\d+ SBTESTPUBK_testingEntry0001/);
  });

  it('fails the run before any test when the fixtures do not load, naming the file', { timeout: 120_000 }, async () => {
    const { code, output } = await innerRun({ RUNNER_SETUP: 'fixtures', RUNNER_FIXTURES: fixture('declined-otp.yaml') });
    expect(code).not.toBe(0);
    expect(output).toMatch(/declined-otp\.yaml/);
    expect(output).not.toMatch(/\d+ passed/);
  });

  it('fails the run when a check does not hold', { timeout: 120_000 }, async () => {
    const { code, output } = await innerRun({ RUNNER_SETUP: 'packaged', RUNNER_PAYMENT: 'NEVER-MADE' });
    expect(code).toBe(1);
    expect(output).toMatch(/Tests\s+1 failed \| 2 passed \(3\)/);
  });
});
