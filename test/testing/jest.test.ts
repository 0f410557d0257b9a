import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import readyMadeSetup from '../../src/testing/jest-global-setup.js';
import readyMadeTeardown from '../../src/testing/jest-global-teardown.js';
import { jestGlobalSetup, jestGlobalTeardown } from '../../src/testing/index.js';
import { ROOT } from '../support/process.js';

/**
 * The Jest global set-up and teardown of payments-sandbox/testing, called
 * as Jest calls them: once in its main process before the test workers
 * start, and once after they end. Jest is not a dependency here, so a child
 * process started after the set-up stands for a worker: it inherits the
 * environment the set-up made, as Jest's workers do. The teardown with no
 * sandbox: test/unit/testing/no-sandbox.test.ts.
 */

const execute = promisify(execFile);
const NAMES = ['SANDBOX_URL', 'SANDBOX_API_BASE', 'SANDBOX_PUBLIC_KEY', 'SANDBOX_SECRET_KEY', 'SANDBOX_CONTROL_TOKEN'];

afterEach(async () => {
  await jestGlobalTeardown();
});

/** What a worker started now sees: the variables, and the health and the payments of the sandbox SANDBOX_URL names. */
async function worker(): Promise<{ env: Record<string, string>; health: number; payments: string[] }> {
  const script = `
    const env = Object.fromEntries(${JSON.stringify(NAMES)}.filter((name) => process.env[name] !== undefined).map((name) => [name, process.env[name]]));
    const health = await fetch(process.env.SANDBOX_URL + '/__sandbox/health');
    const listed = await fetch(process.env.SANDBOX_URL + '/__sandbox/payments?publicKey=' + process.env.SANDBOX_PUBLIC_KEY);
    const payments = (await listed.json()).payments.map((payment) => payment.paymentReference);
    console.log(JSON.stringify({ env, health: health.status, payments }));`;
  const { stdout } = await execute(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, timeout: 20_000 });
  return JSON.parse(stdout);
}

describe('the Jest global set-up', () => {
  it('starts one sandbox with the fixtures, names it to the workers, and the teardown stops it and puts the environment back', { timeout: 60_000 }, async () => {
    const before = Object.fromEntries(NAMES.map((name) => [name, process.env[name]]));
    process.env.SANDBOX_URL = 'http://127.0.0.1:1';
    await jestGlobalSetup({ fixtures: [join(ROOT, 'test/testing/fixtures/paid-card.yaml')] })();
    try {
      const seen = await worker();
      expect(seen.env.SANDBOX_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(seen.env.SANDBOX_URL).not.toBe('http://127.0.0.1:1');
      expect(seen.env).toMatchObject({ SANDBOX_API_BASE: `${seen.env.SANDBOX_URL}/api/v2`, SANDBOX_PUBLIC_KEY: 'SBTESTPUBK_testingEntry0001', SANDBOX_SECRET_KEY: 'SBTESTSECK_testingEntry0001' });
      expect(seen.env.SANDBOX_CONTROL_TOKEN).toBeUndefined();
      expect(seen.health).toBe(200);
      expect(seen.payments).toEqual(['TESTING-CARD-1']);

      const url = process.env.SANDBOX_URL!;
      await jestGlobalTeardown();
      expect(process.env.SANDBOX_URL).toBe('http://127.0.0.1:1');
      await expect(fetch(`${url}/__sandbox/health`)).rejects.toThrow();
    } finally {
      await jestGlobalTeardown();
      for (const [name, value] of Object.entries(before)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('refuses to start a second sandbox while one runs', { timeout: 30_000 }, async () => {
    await jestGlobalSetup()();
    await expect(jestGlobalSetup()()).rejects.toThrow(/running already/);
  });

  it('the ready-made modules start a sandbox with the default options and stop it', { timeout: 30_000 }, async () => {
    expect(process.env.SANDBOX_URL).toBeUndefined();
    await readyMadeSetup();
    const url = process.env.SANDBOX_URL!;
    expect((await fetch(`${url}/__sandbox/health`)).status).toBe(200);
    expect(process.env.SANDBOX_PUBLIC_KEY).toMatch(/^SBTESTPUBK_/);
    await readyMadeTeardown();
    expect(process.env.SANDBOX_URL).toBeUndefined();
    await expect(fetch(`${url}/__sandbox/health`)).rejects.toThrow();
  });
});
