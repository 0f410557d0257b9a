import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXIT_WITHIN, run, stopAll, TIMEOUT, within, type Exit } from '../support/process.js';
import { refusalOf } from './support/refusal.js';
import { CASES, filesNow, lay } from '../support/corrupt-stores.js';

/**
 * Store files that are not what the sandbox wrote: a start of the
 * executable on each must be refused (it exits non-zero), with a message
 * naming the file that is wrong, and both the snapshot and the log must be
 * exactly as they were, byte for byte (or still absent). A store that
 * guessed would lose or invent payments. startSandbox on every case:
 * test/unit/store/corrupt-start.test.ts.
 */

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

describe.each(CASES.filter((one) => one.cli))('the executable on a store with $what', ({ snapshot, log, names }) => {
  it('payments-sandbox --data refuses to start, naming the file, and leaves both files as they were', { timeout: TIMEOUT }, async () => {
    await lay(dataFile, snapshot, log);
    const before = await filesNow(dataFile);
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
    expect(await filesNow(dataFile)).toEqual(before);
  });
});
