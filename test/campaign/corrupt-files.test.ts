import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, StoreOpenError } from '../../src/index.js';
import { EXIT_WITHIN, run, stopAll, TIMEOUT, within, type Exit } from '../support/process.js';
import { refusalOf } from './support/refusal.js';
import { merchantRecord, paymentRecord } from '../store/fixtures.js';

/**
 * Store files that are not what the sandbox wrote: a start on each must be
 * refused (the executable exits non-zero, startSandbox rejects with
 * StoreOpenError), with a message naming the file that is wrong, and both
 * the snapshot and the log must be exactly as they were, byte for byte (or
 * still absent). A store that guessed would lose or invent payments.
 */

const PUBLIC_KEY = 'SBTESTPUBK_corrupt00000001';
const MERCHANT = merchantRecord(PUBLIC_KEY);
// A good record, as the store keeps it: the cases break one thing at a time around it.
const PAYMENT = paymentRecord(PUBLIC_KEY, 'SBREF-CORRUPT-1');
const snapshotOf = (parts: Record<string, unknown>) => JSON.stringify({ version: 1, merchants: {}, payments: {}, orders: {}, ...parts });
const goodLine = JSON.stringify({ kind: 'payment', payment: PAYMENT });

/**
 * Each case: what the snapshot and the log hold (undefined: no such file),
 * which of them the message must name, and whether the executable is tried
 * too (each try starts a process: a few cover the CLI's handling, and
 * startSandbox covers every case).
 */
const CASES: Array<{ what: string; snapshot?: string; log?: string; names: 'snapshot' | 'log'; cli?: boolean }> = [
  { what: 'a snapshot of null', snapshot: 'null', names: 'snapshot', cli: true },
  { what: 'a snapshot of []', snapshot: '[]', names: 'snapshot' },
  { what: 'a snapshot of "x"', snapshot: '"x"', names: 'snapshot' },
  { what: 'a snapshot of {}', snapshot: '{}', names: 'snapshot' },
  { what: 'a snapshot whose payments are null', snapshot: '{"version":1,"merchants":{},"payments":null,"orders":{}}', names: 'snapshot' },
  { what: "a string in place of a merchant's payments", snapshot: snapshotOf({ merchants: { [PUBLIC_KEY]: MERCHANT }, payments: { [PUBLIC_KEY]: 'x' } }), names: 'snapshot' },
  { what: 'a payment record with no fields', snapshot: snapshotOf({ merchants: { [PUBLIC_KEY]: MERCHANT }, payments: { [PUBLIC_KEY]: { 'SBREF-CORRUPT-1': {} } } }), names: 'snapshot' },
  { what: 'a merchant record that is a number', snapshot: snapshotOf({ merchants: { [PUBLIC_KEY]: 7 } }), names: 'snapshot' },
  { what: 'a log line that is not JSON', log: `${goodLine}\nnot json at all\n${goodLine}\n`, names: 'log', cli: true },
  { what: 'a log line of an unknown kind', log: `${goodLine}\n{"kind":"refund","amount":"10.00"}\n`, names: 'log' },
  { what: 'a log line whose payment has no fields', log: `{"kind":"payment","payment":{}}\n`, names: 'log' },
  { what: 'a log line of null', log: `${goodLine}\nnull\n`, names: 'log' },
];

let dir: string;
let dataFile: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payments-sandbox-corrupt-'));
  dataFile = join(dir, 'sandbox.json');
});

afterEach(async () => {
  await stopAll();
  await rm(dir, { recursive: true, force: true });
});

/** The bytes of the snapshot and of the log, or null for a file that is not there. */
async function filesNow(): Promise<{ snapshot: Buffer | null; log: Buffer | null }> {
  const read = async (path: string) => (existsSync(path) ? readFile(path) : null);
  return { snapshot: await read(dataFile), log: await read(`${dataFile}.wal`) };
}

async function lay(snapshot: string | undefined, log: string | undefined): Promise<void> {
  if (snapshot !== undefined) await writeFile(dataFile, snapshot);
  if (log !== undefined) await writeFile(`${dataFile}.wal`, log);
}

describe.each(CASES)('a store with $what', ({ snapshot, log, names }) => {
  it('startSandbox({dataFile}) rejects with StoreOpenError naming the file, and leaves both files as they were', async () => {
    await lay(snapshot, log);
    const before = await filesNow();
    let started: Awaited<ReturnType<typeof startSandbox>> | undefined;
    let failure: unknown;
    try {
      started = await startSandbox({ port: 0, dataFile });
    } catch (error) {
      failure = error;
    }
    // Close what did start before judging, so that it writes what it would and the comparison sees it.
    await started?.close();
    expect(failure, started ? 'it started' : undefined).toBeInstanceOf(StoreOpenError);
    expect((failure as Error).message).toContain(names === 'log' ? `${dataFile}.wal` : dataFile);
    expect(await filesNow()).toEqual(before);
  });
});

describe.each(CASES.filter((one) => one.cli))('the executable on a store with $what', ({ snapshot, log, names }) => {
  it('payments-sandbox --data refuses to start, naming the file, and leaves both files as they were', { timeout: TIMEOUT }, async () => {
    await lay(snapshot, log);
    const before = await filesNow();
    const started = run(['--port', '0', '--data', dataFile]);
    const outcome = await refusalOf(started);
    // Stop one that served before judging, so that it writes what it would and the comparison sees it.
    if ('served' in outcome) {
      started.child.kill('SIGTERM');
      await within(started.exited, EXIT_WITHIN, 'the sandbox to stop');
    }
    expect(outcome, 'the start').toMatchObject({ refused: { code: expect.any(Number) } });
    expect((outcome as { refused: Exit }).refused.code, started.stderr()).not.toBe(0);
    expect(started.stderr()).toContain(names === 'log' ? `${dataFile}.wal` : dataFile);
    expect(await filesNow()).toEqual(before);
  });
});
