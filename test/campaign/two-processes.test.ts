import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, StoreOpenError, type Sandbox } from '../../src/index.js';
import { accountPayment } from '../support/sandbox.js';
import { banner, EXIT_WITHIN, run, stopAll, TIMEOUT, within, type Exit } from '../support/process.js';
import { refusalOf } from './support/refusal.js';
import { PaymentsApi } from './support/api.js';

/**
 * Two sandboxes on one store file would append to one log and overwrite
 * each other's snapshots, each losing what the other acknowledged. The
 * second must refuse to start, naming the file, and the first must go on
 * serving and keeping its payments.
 */

let dir: string;
let dataFile: string;
let sandboxes: Sandbox[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payments-sandbox-two-'));
  dataFile = join(dir, 'sandbox.json');
});

afterEach(async () => {
  await stopAll();
  for (const sandbox of sandboxes) await sandbox.close().catch(() => undefined);
  sandboxes = [];
  await rm(dir, { recursive: true, force: true });
});

describe('two sandboxes on one store file', () => {
  it('the second process refuses to start, naming the file; the first keeps serving and keeping', { timeout: TIMEOUT }, async () => {
    const first = run(['--port', '0', '--data', dataFile]);
    const shown = await banner(first);
    const api = await PaymentsApi.as(shown.origin);
    const before = accountPayment();
    expect((await api.initiate(before)).body?.data?.code).toBe('20');

    const second = run(['--port', '0', '--data', dataFile]);
    const outcome = await refusalOf(second);
    expect(outcome, 'the second start').toMatchObject({ refused: { code: expect.any(Number) } });
    expect((outcome as { refused: Exit }).refused.code, second.stderr()).not.toBe(0);
    expect(second.stderr()).toContain(dataFile);

    // The first is unharmed: it answers, and what it acknowledged before and after is kept across its restart.
    const after = accountPayment();
    expect((await api.initiate(after)).body?.data?.code).toBe('20');
    first.child.kill('SIGTERM');
    expect((await within(first.exited, EXIT_WITHIN, 'the first sandbox to stop')).code).toBe(0);
    const snapshot = await readFile(dataFile, 'utf8');
    for (const body of [before, after]) expect(snapshot).toContain(String(body.paymentReference));

    // Once the first has stopped, the file is free again.
    const third = run(['--port', '0', '--data', dataFile]);
    const again = await banner(third);
    const restarted = new PaymentsApi(again.origin, api.merchant);
    for (const body of [before, after]) expect((await restarted.payment(String(body.paymentReference)))?.status).toBe('PENDING');
  });

  it('a second startSandbox on the file of a running one rejects with StoreOpenError naming the file', async () => {
    const first = await startSandbox({ port: 0, dataFile });
    sandboxes.push(first);
    let second: Sandbox | undefined;
    let failure: unknown;
    try {
      second = await startSandbox({ port: 0, dataFile });
      sandboxes.push(second);
    } catch (error) {
      failure = error;
    }
    expect(failure, second ? `it started at ${second.url}` : undefined).toBeInstanceOf(StoreOpenError);
    expect((failure as Error).message).toContain(dataFile);
    const api = await PaymentsApi.as(first.url);
    expect((await api.initiate(accountPayment())).body?.data?.code).toBe('20');
  });
});
