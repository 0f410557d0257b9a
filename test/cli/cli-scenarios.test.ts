import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadCatalogue } from '../../src/index.js';
import { ControlClient } from '../support/control.js';
import { banner, call, run, START_WITHIN, stopAll, TIMEOUT, within, type Banner } from '../support/process.js';

/**
 * The scenario side of the payments-sandbox executable, as a user runs it:
 * `scenarios list`, extra scenario folders, --scenario, --journal-size and
 * --seed, on real child processes (bin/payments-sandbox.js on the built dist/).
 */

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payments-sandbox-cli-scenarios-'));
});

afterEach(async () => {
  await stopAll();
  await rm(dir, { recursive: true, force: true });
});

/** Runs a command that ends by itself, and waits for its exit (and all its output). */
async function finished(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const started = run(args);
  const { code } = await within(started.closed, START_WITHIN, `payments-sandbox ${args.join(' ')} to exit`);
  return { code, stdout: started.stdout(), stderr: started.stderr() };
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
  it('prints every scenario of the shipped catalogue within 100 columns, and exits 0', { timeout: TIMEOUT }, async () => {
    const { code, stdout, stderr } = await finished(['scenarios', 'list']);
    expect(code, stderr).toBe(0);
    const blocks = stdout.trimEnd().split('\n\n');
    for (const line of stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(100);
    expect(blocks.map((block) => block.split('\n')[0])).toEqual(shipped.map((scenario) => scenario.name));
    const declined = blocks.find((block) => block.startsWith('card-declined\n'))!;
    expect(declined).toMatch(/^  answers: {2}S12 Transaction Failed/m);
    expect(blocks.find((block) => block.startsWith('hang\n'))).toMatch(/^  trigger: {2}header\/override$/m);
    // Wrapped, the words are all there: each description reads back whole.
    for (const scenario of shipped) {
      const block = blocks.find((candidate) => candidate.startsWith(`${scenario.name}\n`))!;
      const text = block.split('\n').filter((line) => /^ {2}[^ ]/.test(line) && !/^ {2}(trigger|answers):/.test(line)).map((line) => line.trim()).join(' ');
      expect(text).toBe(scenario.description.split(/\s+/).join(' ').trim());
    }
  });

  it('--json prints the catalogue as parseable JSON', { timeout: TIMEOUT }, async () => {
    const { code, stdout } = await finished(['scenarios', 'list', '--json']);
    expect(code).toBe(0);
    const parsed = JSON.parse(stdout) as Array<{ name: string; then: unknown; source: string }>;
    expect(parsed.map((scenario) => scenario.name)).toEqual(shipped.map((scenario) => scenario.name));
    expect(parsed.find((scenario) => scenario.name === 'card-declined')!.then).toEqual(shipped.find((scenario) => scenario.name === 'card-declined')!.then);
  });

  it('--scenarios <dir> with a file that breaks the schema exits 2 naming the file', { timeout: TIMEOUT }, async () => {
    const file = await badScenarioFolder();
    const { code, stdout, stderr } = await finished(['scenarios', 'list', '--scenarios', join(dir, 'team-scenarios')]);
    expect(code).toBe(2);
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
  it('--scenarios <dir> with a bad file stops the start-up with exit 2 naming the file', { timeout: TIMEOUT }, async () => {
    const file = await badScenarioFolder();
    const { code, stdout, stderr } = await finished(['--port', '0', '--in-memory', '--scenarios', join(dir, 'team-scenarios')]);
    expect(code).toBe(2);
    expect(stderr).toContain(file);
    expect(stdout).not.toContain('API base');
  });

  it('--scenario no-such-rule exits 2 naming the rule', { timeout: TIMEOUT }, async () => {
    const { code, stdout, stderr } = await finished(['--port', '0', '--in-memory', '--scenario', 'no-such-rule']);
    expect(code).toBe(2);
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
      // A merchant with no order: the provider's 404, journalled like any answer.
      expect((await call(shown.apiBase, 'GET', `/products/orders/publicKey/${shown.publicKey}`, undefined, auth)).status).toBe(404);
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
