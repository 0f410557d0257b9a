import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { accountPayment } from '../support/sandbox.js';
import { ROOT, within } from '../support/process.js';

/**
 * The package as a new user gets it: packed, installed in an empty folder
 * with production dependencies only, started with npx, and used for a key
 * exchange and a payment; its testing entry typed and run from there. It
 * prints the tarball's size and file count.
 */

const run = promisify(execFile);
const folders: string[] = [];
afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('installs with production dependencies only in an empty folder, and serves with npx', { timeout: 240_000 }, async () => {
    const packed = await mkdtemp(join(tmpdir(), 'payments-sandbox-pack-'));
    const consumer = await mkdtemp(join(tmpdir(), 'payments-sandbox-consumer-'));
    folders.push(packed, consumer);
    // `npm test` built dist/ already: packing again must not rebuild it under the other tests' feet.
    const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', packed], { cwd: ROOT });
    const [report] = JSON.parse(stdout) as Array<{ filename: string; size: number; unpackedSize: number; entryCount: number; files: Array<{ path: string }> }>;
    const paths = report!.files.map((file) => file.path);
    console.log(`tarball ${report!.filename}: ${(report!.size / 1024).toFixed(1)} KiB packed, ${(report!.unpackedSize / 1024).toFixed(1)} KiB unpacked, ${report!.entryCount} files`);
    expect(paths).toContain('LICENSE');
    expect(paths).toContain('dist/prepared/payments-api.json');
    expect(paths).toEqual(expect.arrayContaining(['dist/swagger-ui/swagger-ui-bundle.js', 'dist/swagger-ui/swagger-ui.css', 'dist/swagger-ui/LICENSE', 'dist/swagger-ui/NOTICE']));
    expect(paths.filter((path) => path.endsWith('.map'))).toEqual([]);
    expect(paths.filter((path) => path.startsWith('src/') && !path.startsWith('src/pages/assets/'))).toEqual([]);

    await writeFile(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }));
    const started = Date.now();
    const installed = await run('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline', join(packed, report!.filename)], { cwd: consumer });
    console.log(`npm install --omit=dev: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    // No install script asks to be approved: the package is built when packed.
    expect(installed.stderr).not.toMatch(/install-scripts|prepare/);
    expect((await stat(join(consumer, 'node_modules/payments-sandbox/dist/index.js'))).isFile()).toBe(true);
    expect(await readdir(join(consumer, 'node_modules'))).not.toContain('vitest');

    // A strict TypeScript user of startSandbox, who checks every library's types too.
    await writeFile(join(consumer, 'index.ts'), [
      "import { startSandbox, sampleKeyPair, type Payment } from 'payments-sandbox';",
      'const sandbox = await startSandbox({ port: 0 });',
      'const payments: Payment[] = sandbox.store.payments(sampleKeyPair().publicKey);',
      'console.log(sandbox.apiBase, payments.length);',
      'await sandbox.close();',
      // The testing entry and its global set-ups, by their exports, typed without vitest or jest installed.
      "import { connectToSandbox, startForTests, ControlApiError, type TestSandbox, type Delivery } from 'payments-sandbox/testing';",
      "import vitestSetup from 'payments-sandbox/testing/vitest-global-setup';",
      "import jestSetup from 'payments-sandbox/testing/jest-global-setup';",
      "import jestTeardown from 'payments-sandbox/testing/jest-global-teardown';",
      'const forTests: TestSandbox = await startForTests();',
      'const waited: Delivery | undefined = undefined;',
      'console.log(forTests.keyPair.publicKey, waited, ControlApiError.name, typeof connectToSandbox, typeof vitestSetup, typeof jestSetup, typeof jestTeardown);',
      'await forTests.stop();',
    ].join('\n'));
    await writeFile(join(consumer, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: false, noEmit: true, types: ['node'] },
      files: ['index.ts'],
    }));
    const typecheck = await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: consumer }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error) }));
    expect(typecheck.stdout).toBe('');

    // The testing entry runs from the installed package: a sandbox for tests, and a control client that reaches it.
    const testing = await run(process.execPath, ['--input-type=module', '-e', [
      "import { startForTests, connectToSandbox } from 'payments-sandbox/testing';",
      'const sandbox = await startForTests();',
      'const connected = connectToSandbox({ SANDBOX_URL: sandbox.url });',
      'console.log(JSON.stringify(await connected.control.reset()));',
      'await sandbox.stop();',
    ].join('\n')], { cwd: consumer });
    expect(JSON.parse(testing.stdout)).toMatchObject({ reset: 'all' });

    const child = spawn('npx', ['--no-install', 'payments-sandbox', '--in-memory', '--port', '0'], { cwd: consumer, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    try {
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      const bannerShown = new Promise<void>((done, fail) => {
        child.stdout.on('data', () => /curl -s \S+/.test(out) && done());
        child.once('exit', (code) => fail(new Error(`npx payments-sandbox exited ${code}`)));
      });
      await within(bannerShown, 30_000, 'the banner of npx payments-sandbox');
      const apiBase = /API base\s+(\S+)/.exec(out)![1]!;
      const publicKey = /public key\s+(\S+)/.exec(out)![1]!;
      const keyBody = /-d '([^']+)'/.exec(out)![1]!;
      const keys = await fetch(`${apiBase}/encrypt/keys`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: keyBody });
      const token = ((await keys.json()) as any).data.EncryptedSecKey.encryptedKey as string;
      const initiated = await fetch(`${apiBase}/payments/initiates`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(accountPayment({ publicKey, paymentReference: 'SBREF-PACKED-1' })),
      });
      expect(initiated.status).toBe(200);
      expect(((await initiated.json()) as any).data.code).toBe('20');
      // The API reference is served from the installed package, which has no swagger-ui-dist of its own.
      const reference = /API reference\s+(\S+)/.exec(out)![1]!;
      expect((await fetch(reference)).status).toBe(200);
      expect((await fetch(`${reference}/swagger-ui-bundle.js`)).status).toBe(200);
      expect(await readdir(join(consumer, 'node_modules'))).not.toContain('swagger-ui-dist');
    } finally {
      // npx starts the sandbox as its child: the whole group goes.
      process.kill(-child.pid!, 'SIGTERM');
    }

    // The one line of an agent's configuration (README, "Agents"): MCP on stdio from the installed package, ended by closing its stdin.
    const mcp = spawn('npx', ['--no-install', 'payments-sandbox', 'mcp'], { cwd: consumer, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    try {
      let out = '';
      mcp.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      const exited = new Promise<number | null>((done) => mcp.once('exit', (code) => done(code)));
      const send = (message: object) => mcp.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
      send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'packed', version: '1' } } });
      send({ method: 'notifications/initialized' });
      send({ id: 2, method: 'tools/list' });
      const answered = new Promise<void>((done) => mcp.stdout.on('data', () => out.split('\n').filter(Boolean).length >= 2 && done()));
      await within(answered, 30_000, 'the answers of npx payments-sandbox mcp');
      const [initialized, listed] = out.split('\n').filter(Boolean).map((line) => JSON.parse(line));
      expect(initialized).toMatchObject({ id: 1, result: { serverInfo: { name: 'payments-sandbox' } } });
      expect(listed.result.tools.map((tool: { name: string }) => tool.name)).toEqual(expect.arrayContaining(['advanceClock', 'setWebhook', 'paymentsApiRequest']));
      mcp.stdin.end();
      expect(await within(exited, 10_000, 'npx payments-sandbox mcp to exit once its stdin ended')).toBe(0);
    } finally {
      if (mcp.exitCode === null) process.kill(-mcp.pid!, 'SIGTERM');
    }
  });
});
