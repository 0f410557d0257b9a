import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { banner, freePort, ROOT, run, START_WITHIN, stopAll, TIMEOUT, within } from '../support/process.js';

/**
 * Known states from the command line (docs/known-states.md): `--fixtures`
 * (and SANDBOX_FIXTURES) and `--snapshot` at start, a file that cannot be
 * loaded refused in one line with exit 2, and `snapshot save|load` against a
 * running sandbox.
 */

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payments-sandbox-cli-known-'));
});
afterEach(async () => {
  await stopAll();
  await rm(dir, { recursive: true, force: true });
});

const EXAMPLE = join(ROOT, 'examples/fixtures/merchant-day.yaml');
const MERCHANT = 'SBTESTPUBK_MerchantDay01';

async function payments(origin: string, token?: string): Promise<string[]> {
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  const answer = (await (await fetch(`${origin}/__sandbox/payments?publicKey=${MERCHANT}`, { headers })).json()) as { payments: Array<{ paymentReference: string; status: string }> };
  return answer.payments.map((payment) => `${payment.paymentReference} ${payment.status}`);
}

describe('the command line', () => {
  it('loads --fixtures at start, SANDBOX_FIXTURES alike, and says so in the log', { timeout: TIMEOUT }, async () => {
    const byFlag = run(['--in-memory', '--port', String(await freePort()), '--fixtures', EXAMPLE]);
    const flagged = await banner(byFlag);
    expect(byFlag.stdout()).toMatch(/INFO: fixtures .*merchant-day\.yaml loaded: 11 steps/);
    expect(await payments(flagged.origin)).toContain('DAY-CARD-2 CANCELLED');
    const byVariable = run(['--in-memory', '--port', String(await freePort())], { env: { SANDBOX_FIXTURES: EXAMPLE } });
    expect(await payments((await banner(byVariable)).origin)).toEqual(await payments(flagged.origin));
  });

  it('refuses a fixtures file that cannot be loaded: one line naming the file, the step and the field; exit 2', { timeout: TIMEOUT }, async () => {
    const broken = join(dir, 'broken.yaml');
    await writeFile(broken, 'version: 1\nsteps:\n  - { id: x, api: { method: POST, path: /payments/initiates, body: {} }, expect: { status: 201 } }\n');
    const started = run(['--in-memory', '--port', String(await freePort()), '--fixtures', broken]);
    const exit = await within(started.closed, START_WITHIN, 'the refusal');
    expect(exit.code).toBe(2);
    const lines = started.stderr().split('\n').filter((line) => line !== '');
    expect(lines).toEqual([expect.stringMatching(new RegExp(`^payments-sandbox: --fixtures ${broken}: step 0 \\(x\\): expected status 201, the answer has status 403 .*\\(at /steps/0/expect/status\\)$`))]);
    const notJson = join(dir, 'state.json');
    await writeFile(notJson, '{"version": 3,');
    const snapshot = run(['--in-memory', '--port', String(await freePort()), '--snapshot', notJson]);
    expect((await within(snapshot.closed, START_WITHIN, 'the refusal')).code).toBe(2);
    expect(snapshot.stderr()).toMatch(/^payments-sandbox: --snapshot .*state\.json is not JSON .*GET \/__sandbox\/snapshot\n$/);
  });

  it('refuses a fixtures file whose YAML aliases expand past 16 MB in one line, exit 2, not a RangeError', { timeout: TIMEOUT }, async () => {
    // One 6 MB anchor used 94 times, under the 100-alias cap: 564 MB once expanded.
    const big = join(dir, 'big.yaml');
    const uses = Array.from({ length: 94 }, (_, i) => `  - { id: s${i}, api: { method: POST, path: /payments/initiates, body: { productDescription: *big } } }\n`).join('');
    await writeFile(big, `version: 1\nbig: &big ${'x'.repeat(6 * 1024 * 1024)}\nsteps:\n${uses}`);
    const started = run(['--in-memory', '--port', String(await freePort()), '--fixtures', big]);
    expect((await within(started.closed, START_WITHIN, 'the refusal')).code).toBe(2);
    expect(started.stderr()).toMatch(new RegExp(`^payments-sandbox: --fixtures ${big}: the document expands to more than 16 MB of keys and values [^\n]*\n$`));
  });

  it('refuses a fixtures step that would reset, load a snapshot or fixtures, whatever its case or trailing slash: one line naming the step, exit 2', { timeout: TIMEOUT }, async () => {
    // Such a step waited for the load it is part of: health stayed 503 "starting" for good, and a CI job waited with it.
    for (const [method, path] of [['POST', '/Reset'], ['POST', '/RESET/'], ['PUT', '/Snapshot'], ['POST', '/Fixtures']] as const) {
      const file = join(dir, 're-entering.json');
      await writeFile(file, JSON.stringify({ version: 1, steps: [{ control: { method, path } }] }));
      const started = run(['--in-memory', '--port', String(await freePort()), '--fixtures', file]);
      const exit = await within(started.closed, START_WITHIN, `the refusal of ${method} ${path}`);
      expect(exit.code, `${method} ${path}: ${started.stderr()}`).toBe(2);
      const lines = started.stderr().split('\n').filter((line) => line !== '');
      expect(lines, `${method} ${path}`).toEqual([
        expect.stringMatching(new RegExp(`^payments-sandbox: --fixtures ${file}: step 0: a fixtures step cannot load fixtures or a snapshot, or reset \\(${path}\\): load them before or after this document \\(at /steps/0/control/path\\)$`)),
      ]);
    }
  });

  it('saves a running sandbox\'s state with snapshot save, and loads it into another with snapshot load and with --snapshot', { timeout: TIMEOUT }, async () => {
    const token = 'cli-known-states';
    const source = await banner(run(['--in-memory', '--port', String(await freePort()), '--control-token', token, '--fixtures', EXAMPLE]));
    const file = join(dir, 'saved.json');
    const save = run(['snapshot', 'save', file, '--url', source.origin], { env: { SANDBOX_CONTROL_TOKEN: token } });
    expect((await within(save.closed, START_WITHIN, 'snapshot save')).code, save.stderr()).toBe(0);
    expect(save.stdout()).toMatch(/^snapshot saved to .*saved\.json \(\d+ bytes\)\n$/);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, 'utf8')).version).toBe(3);

    const port = await freePort();
    const target = await banner(run(['--in-memory', '--port', String(port)]));
    const load = run(['snapshot', 'load', file, '--port', String(port)]);
    expect((await within(load.closed, START_WITHIN, 'snapshot load')).code, load.stderr()).toBe(0);
    expect(load.stdout()).toMatch(/loaded into .* \(every merchant: 6 payments\)/);
    const loaded = await payments(target.origin);
    expect(loaded).toHaveLength(6);
    expect(loaded).toEqual(await payments(source.origin, token));

    const atStart = await banner(run(['--in-memory', '--port', String(await freePort()), '--snapshot', file]));
    expect(await payments(atStart.origin)).toHaveLength(6);
    // Without the control token, the source refuses: one line, exit 1.
    const refused = run(['snapshot', 'save', join(dir, 'other.json'), '--url', source.origin]);
    expect((await within(refused.closed, START_WITHIN, 'a refused save')).code).toBe(1);
    expect(refused.stderr()).toMatch(/GET \/__sandbox\/snapshot answered 401/);
    await expect(stat(join(dir, 'other.json'))).rejects.toThrow();
  });
});
