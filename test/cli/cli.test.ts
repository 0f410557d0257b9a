import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accountPayment, cardPayment, order } from '../support/sandbox.js';
import { banner, call, EXIT_WITHIN, run, START_WITHIN, stopAll, TIMEOUT, within, type Banner, type Exit, type Run } from '../support/process.js';

/**
 * The payments-sandbox executable as a user runs it: a real child process
 * (bin/payments-sandbox.js on the built dist/), real ports, real files.
 */

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payments-sandbox-cli-'));
});

afterEach(async () => {
  await stopAll();
  await rm(dir, { recursive: true, force: true });
});

/** Sends SIGTERM and waits for the process to exit. */
async function stop(started: Run): Promise<Exit> {
  started.child.kill('SIGTERM');
  return within(started.exited, EXIT_WITHIN, 'the sandbox to exit after SIGTERM');
}

/** Exchanges the banner's key pair exactly as its curl line does. */
async function tokenFrom(shown: Banner): Promise<string> {
  const response = await fetch(shown.curlUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: shown.curlBody,
    signal: AbortSignal.timeout(EXIT_WITHIN),
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as any;
  expect(body.data.code).toBe('00');
  const token = body.data.EncryptedSecKey.encryptedKey as string;
  expect(token).toMatch(/\S{16,}/);
  return token;
}

describe('payments-sandbox --help', () => {
  it('exits 0 and lists the options and examples', { timeout: TIMEOUT }, async () => {
    const started = run(['--help']);
    const { code } = await within(started.exited, START_WITHIN, '--help to exit');
    expect(code).toBe(0);
    const out = started.stdout();
    for (const option of ['--port', '--host', '--data', '--in-memory', '--public-url']) expect(out).toContain(option);
    expect(out).toMatch(/^Examples:$/m);
    expect(out).toContain('$ payments-sandbox');
  });
});

describe('payments-sandbox with a data file', () => {
  it('serves on a free port, prints a working key pair, and saves its state on SIGTERM', { timeout: TIMEOUT }, async () => {
    const dataFile = join(dir, 'sb.json');
    const started = run(['--port', '0', '--data', dataFile]);
    const shown = await banner(started);

    expect(shown.apiBase).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v2$/);
    expect(new URL(shown.apiBase).port).not.toBe('0');
    expect(shown.store).toBe(dataFile);

    const health = await fetch(`${shown.origin}/__sandbox/health`, { signal: AbortSignal.timeout(EXIT_WITHIN) });
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });

    // The curl line is the exchange of the key pair the banner shows.
    expect(shown.curlUrl).toBe(`${shown.apiBase}/encrypt/keys`);
    expect(JSON.parse(shown.curlBody)).toEqual({ key: `${shown.secretKey}.${shown.publicKey}` });
    const token = await tokenFrom(shown);

    // The token is good for the API (a merchant with no order yet: the provider's 404).
    const listed = await call(shown.apiBase, 'GET', `/products/orders/publicKey/${shown.publicKey}`, undefined, `Bearer ${token}`);
    expect(listed.status).toBe(404);
    expect(listed.body).toEqual({ message: 'Orders Not Found', error: 'NOT_FOUND' });

    const { code } = await stop(started);
    expect(code).toBe(0);
    expect(started.stdout()).toContain('SIGTERM');
    const saved = JSON.parse(await readFile(dataFile, 'utf8'));
    // Version 2 of the snapshot keeps each table as a list (README, "Storage").
    expect(saved.merchants.find((merchant: { publicKey: string }) => merchant.publicKey === shown.publicKey)).toMatchObject({ publicKey: shown.publicKey, secretKey: shown.secretKey });
  });

  it('finds its payments and orders again when restarted on the same file', { timeout: TIMEOUT }, async () => {
    const dataFile = join(dir, 'sb.json');
    const first = run(['--port', '0', '--data', dataFile]);
    const shown = await banner(first);
    const token = await tokenFrom(shown);
    const bearer = `Bearer ${token}`;

    const initiated = await call(shown.apiBase, 'POST', '/payments/initiates', accountPayment({ publicKey: shown.publicKey, paymentReference: 'SBREF-CLI-PAY' }), bearer);
    expect(initiated.body.data.code).toBe('20');
    const ordered = await call(shown.apiBase, 'POST', '/payments/order', order({ publicKey: shown.publicKey, paymentReference: 'SBREF-CLI-ORDER' }), bearer);
    expect(ordered.body.data.code).toBe('00');
    expect((await stop(first)).code).toBe(0);

    const second = run(['--port', '0', '--data', dataFile]);
    const again = await banner(second);
    // The banner shows the pair already in use, not a new one each start.
    expect({ publicKey: again.publicKey, secretKey: again.secretKey }).toEqual({ publicKey: shown.publicKey, secretKey: shown.secretKey });
    expect(again.text).toContain('The first merchant this store holds, the same at each start on it:');
    // The first run's token still works: the merchant was kept.
    const repeated = await call(again.apiBase, 'POST', '/payments/initiates', accountPayment({ publicKey: shown.publicKey, paymentReference: 'SBREF-CLI-PAY' }), bearer);
    expect(repeated.status).toBe(200);
    expect(repeated.body.data.code).toBe('S18');
    const listed = await call(again.apiBase, 'GET', `/products/orders/publicKey/${shown.publicKey}`, undefined, bearer);
    expect(listed.status).toBe(200);
    expect(listed.body.data.products.map((item: { paymentReference: string }) => item.paymentReference)).toEqual(['SBREF-CLI-ORDER', 'SBREF-CLI-ORDER']);
    expect((await stop(second)).code).toBe(0);
  });

  it('keeps every answered change when the process is killed without warning', { timeout: TIMEOUT }, async () => {
    const dataFile = join(dir, 'sb.json');
    const first = run(['--port', '0', '--data', dataFile]);
    const shown = await banner(first);
    const bearer = `Bearer ${await tokenFrom(shown)}`;
    const initiated = await call(shown.apiBase, 'POST', '/payments/initiates', accountPayment({ publicKey: shown.publicKey, paymentReference: 'SBREF-CLI-KILL' }), bearer);
    expect(initiated.body.data.code).toBe('20');

    first.child.kill('SIGKILL');
    expect((await within(first.exited, EXIT_WITHIN, 'the killed sandbox to exit')).signal).toBe('SIGKILL');

    const second = run(['--port', '0', '--data', dataFile]);
    const again = await banner(second);
    const repeated = await call(again.apiBase, 'POST', '/payments/initiates', accountPayment({ publicKey: shown.publicKey, paymentReference: 'SBREF-CLI-KILL' }), bearer);
    expect(repeated.body.data.code).toBe('S18');
  });

  it('exits 2 and names the file when the data file is not a store, leaving it untouched', { timeout: TIMEOUT }, async () => {
    const dataFile = join(dir, 'sb.json');
    await writeFile(dataFile, 'not json');
    const before = await readFile(dataFile);

    const started = run(['--port', '0', '--data', dataFile]);
    const { code } = await within(started.exited, START_WITHIN, 'the sandbox to give up');
    expect(code).toBe(2);
    expect(started.stderr()).toContain(dataFile);
    expect(started.stdout()).not.toContain('API base');
    expect((await readFile(dataFile)).equals(before)).toBe(true);
    expect(existsSync(`${dataFile}.wal`)).toBe(false);
  });
});

describe('payments-sandbox with a damaged log', () => {
  it('exits 2 with a message naming the log when a complete line is not a change', { timeout: TIMEOUT }, async () => {
    const dataFile = join(dir, 'sb.json');
    const log = '{"kind":"payment"}\n';
    await writeFile(`${dataFile}.wal`, log);

    const started = run(['--port', '0', '--data', dataFile]);
    const { code } = await within(started.exited, START_WITHIN, 'the sandbox to give up');
    expect(code).toBe(2);
    expect(started.stderr()).toMatch(/^payments-sandbox: /);
    expect(started.stderr()).toContain(`${dataFile}.wal`);
    expect(await readFile(`${dataFile}.wal`, 'utf8')).toBe(log);
    expect(existsSync(dataFile)).toBe(false);
  });
});

describe('payments-sandbox configured from the environment', () => {
  it('takes PORT and SANDBOX_IN_MEMORY, serves, and writes no file', { timeout: TIMEOUT }, async () => {
    const started = run([], { cwd: dir, env: { PORT: '0', SANDBOX_IN_MEMORY: '1' } });
    const shown = await banner(started);
    expect(shown.store).toBe('(in memory)');
    expect(new URL(shown.apiBase).port).not.toBe('4010');

    const health = await fetch(`${shown.origin}/__sandbox/health`, { signal: AbortSignal.timeout(EXIT_WITHIN) });
    expect(health.status).toBe(200);
    const bearer = `Bearer ${await tokenFrom(shown)}`;
    const initiated = await call(shown.apiBase, 'POST', '/payments/initiates', accountPayment({ publicKey: shown.publicKey, paymentReference: 'SBREF-CLI-MEM' }), bearer);
    expect(initiated.body.data.code).toBe('20');

    expect((await stop(started)).code).toBe(0);
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('payments-sandbox --public-url', () => {
  it('builds the links it hands out on the public URL', { timeout: TIMEOUT }, async () => {
    const started = run(['--port', '0', '--in-memory', '--public-url', 'http://sandbox.test:9999'], { cwd: dir });
    const shown = await banner(started);
    expect(shown.apiBase).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v2$/);

    const bearer = `Bearer ${await tokenFrom(shown)}`;
    const initiated = await call(
      shown.apiBase,
      'POST',
      '/payments/initiates',
      cardPayment({ publicKey: shown.publicKey, paymentReference: 'SBREF-CLI-CARD' }),
      bearer,
    );
    expect(initiated.status).toBe(200);
    expect(initiated.body.data.code).toBe('S20');
    expect(initiated.body.data.payments.redirectUrl).toMatch(/^http:\/\/sandbox\.test:9999\//);
    expect((await stop(started)).code).toBe(0);
  });
});
