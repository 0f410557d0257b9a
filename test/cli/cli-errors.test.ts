import { createServer, type Server } from 'node:net';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cardPayment } from '../support/sandbox.js';
import { banner, call, EXIT_WITHIN, ROOT, run, START_WITHIN, stopAll, TIMEOUT, within, type Exit } from '../support/process.js';

/** First contact with the executable: mistakes answer one line that says what to do. */

let dir: string;
let taken: Server | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payments-sandbox-cli-errors-'));
});

afterEach(async () => {
  await stopAll();
  await new Promise<void>((done) => (taken ? taken.close(() => done()) : done()));
  taken = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function ended(args: string[], env: Record<string, string> = {}): Promise<Exit & { stdout: string; stderr: string }> {
  const started = run(args, { cwd: dir, env });
  const exit = await within(started.closed, START_WITHIN, `payments-sandbox ${args.join(' ')} to exit`);
  return { ...exit, stdout: started.stdout(), stderr: started.stderr() };
}

describe('payments-sandbox on first contact', () => {
  it('-v, -V and --version print the package version and exit 0', { timeout: TIMEOUT }, async () => {
    const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['-v', '-V', '--version']) {
      const { code, stdout, stderr } = await ended([flag]);
      expect(code, `${flag}: ${stderr}`).toBe(0);
      expect(stdout, flag).toBe(`${version}\n`);
    }
  });

  it('SANDBOX_PORT wins over PORT, which may be the port of the application under test', { timeout: TIMEOUT }, async () => {
    taken = createServer();
    await new Promise<void>((done) => taken!.listen(0, '127.0.0.1', () => done()));
    const appPort = (taken.address() as { port: number }).port;
    const started = run(['--in-memory'], { cwd: dir, env: { PORT: String(appPort), SANDBOX_PORT: '0' } });
    const shown = await banner(started);
    expect(new URL(shown.apiBase).port).not.toBe(String(appPort));
    started.child.kill('SIGTERM');
    expect((await within(started.exited, EXIT_WITHIN, 'the sandbox to stop')).code).toBe(0);
  });

  it('a taken port: one line naming the port and what to do, exit 2, and no file written', { timeout: TIMEOUT }, async () => {
    taken = createServer();
    await new Promise<void>((done) => taken!.listen(0, '127.0.0.1', () => done()));
    const port = (taken.address() as { port: number }).port;
    const { code, stdout, stderr } = await ended(['--port', String(port), '--data', join(dir, 'sb.json')]);
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toEqual([`payments-sandbox: port ${port} on 127.0.0.1 is already in use: stop what uses it, or pick another with --port <n> (0: any free port)`]);
    expect(stdout).not.toContain('API base');
    // The store it opened was let go of: no lock left behind.
    expect(existsSync(join(dir, 'sb.json.lock'))).toBe(false);
  });

  it('a --store where nothing listens: one line naming host and port and what to do, never the password, exit 2', { timeout: TIMEOUT }, async () => {
    taken = createServer();
    await new Promise<void>((done) => taken!.listen(0, '127.0.0.1', () => done()));
    const port = (taken.address() as { port: number }).port;
    // Free again: nothing accepts connections there.
    await new Promise<void>((done) => taken!.close(() => done()));
    taken = undefined;
    const { code, stderr } = await ended(['--port', '0', '--store', `postgres://app:s3cret@127.0.0.1:${port}/shop`]);
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toEqual([`payments-sandbox: cannot open the store at 127.0.0.1:${port}/shop: nothing accepts connections at 127.0.0.1:${port}: start PostgreSQL there, or check the URL's host and port`]);
    expect(stderr).not.toContain('s3cret');
  });

  it('a host that is no address of this machine: one line naming it, exit 2', { timeout: TIMEOUT }, async () => {
    const { code, stderr } = await ended(['--port', '0', '--in-memory', '--host', '192.0.2.77']);
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toEqual([expect.stringMatching(/^payments-sandbox: cannot listen on --host 192\.0\.2\.77: it is not an address of this machine/)]);
  });

  it('a bad flag value: the error and a pointer to --help, not the whole help', { timeout: TIMEOUT }, async () => {
    const { code, stderr } = await ended(['--port', 'abc']);
    expect(code).toBe(1);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/--port.*a port is a whole number/);
    expect(lines[1]).toBe("(run 'payments-sandbox --help' for the options)");
  });

  it('SANDBOX_IN_MEMORY=0 keeps the store on disk; a value that is no boolean stops with one line', { timeout: TIMEOUT }, async () => {
    const started = run(['--port', '0'], { cwd: dir, env: { SANDBOX_IN_MEMORY: 'false' } });
    const shown = await banner(started);
    expect(shown.store).toBe(join(dir, 'payments-sandbox.json'));
    started.child.kill('SIGTERM');
    await within(started.exited, EXIT_WITHIN, 'the sandbox to stop');

    for (const value of ['1', 'YES', 'true']) {
      const again = run(['--port', '0'], { cwd: dir, env: { SANDBOX_IN_MEMORY: value, SANDBOX_STRICT: '0' } });
      expect((await banner(again)).store).toBe('(in memory)');
      again.child.kill('SIGTERM');
      await within(again.exited, EXIT_WITHIN, 'the sandbox to stop');
    }

    const { code, stderr } = await ended(['--port', '0'], { SANDBOX_IN_MEMORY: 'maybe' });
    expect(code).toBe(2);
    expect(stderr.trim()).toBe('payments-sandbox: SANDBOX_IN_MEMORY=maybe is neither 1/true/yes nor 0/false/no');
  });

  it('--sync: the banner names the level; an unknown level, or --sync with --in-memory, stops with one line', { timeout: TIMEOUT }, async () => {
    const started = run(['--port', '0', '--sync', 'full'], { cwd: dir });
    await banner(started);
    expect(started.stdout()).toMatch(/^  sync {10}full: each change fdatasync'd before its answer$/m);
    started.child.kill('SIGTERM');
    await within(started.exited, EXIT_WITHIN, 'the sandbox to stop');

    const unknown = await ended(['--port', '0', '--sync', 'off']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim().split('\n')[0]).toMatch(/--sync.*'off' is invalid.*normal, full/);
    const inMemory = await ended(['--port', '0', '--in-memory'], { SANDBOX_SYNC: 'full' });
    expect(inMemory.code).toBe(1);
    expect(inMemory.stderr.trim().split('\n')[0]).toBe("error: environment variable 'SANDBOX_SYNC' cannot be used with option '--in-memory'");
    const inMemoryByEnv = await ended(['--port', '0', '--sync', 'normal'], { SANDBOX_IN_MEMORY: '1' });
    expect(inMemoryByEnv.code).toBe(2);
    expect(inMemoryByEnv.stderr.trim()).toBe('payments-sandbox: --sync (or SANDBOX_SYNC) sets how a store file is written: it has no meaning with --in-memory');
  });

  it('--host 0.0.0.0 without --public-url hands out localhost links, and the banner says so', { timeout: TIMEOUT }, async () => {
    const started = run(['--port', '0', '--in-memory', '--host', '0.0.0.0'], { cwd: dir });
    const shown = await banner(started);
    expect(shown.apiBase).toMatch(/^http:\/\/localhost:\d+\/api\/v2$/);
    expect(shown.text).toMatch(/listening\s+http:\/\/0\.0\.0\.0:\d+ \(every interface\); links use localhost/);
    const port = new URL(shown.apiBase).port;
    const token = (await call(`http://127.0.0.1:${port}/api/v2`, 'POST', '/encrypt/keys', JSON.parse(shown.curlBody))).body.data.EncryptedSecKey.encryptedKey;
    const initiated = await call(`http://127.0.0.1:${port}/api/v2`, 'POST', '/payments/initiates', cardPayment({ publicKey: shown.publicKey, paymentReference: 'SBREF-EVERY-IF' }), `Bearer ${token}`);
    expect(initiated.body.data.payments.redirectUrl).toMatch(new RegExp(`^http://localhost:${port}/pages/`));
  });
});
