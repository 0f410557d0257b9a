import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, StoreOpenError } from '../../../src/index.js';
import { CASES, filesNow, lay } from '../../support/corrupt-stores.js';

/**
 * Store files that are not what the sandbox wrote: startSandbox on each must
 * reject with StoreOpenError, with a message naming the file that is wrong,
 * and both the snapshot and the log must be exactly as they were, byte for
 * byte (or still absent). A store that guessed would lose or invent
 * payments. The executable on a few of them: test/campaign/corrupt-files.test.ts.
 */

let dir: string;
let dataFile: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payments-sandbox-corrupt-'));
  dataFile = join(dir, 'sandbox.json');
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.each(CASES)('a store with $what', ({ snapshot, log, names }) => {
  it('startSandbox({dataFile}) rejects with StoreOpenError naming the file, and leaves both files as they were', async () => {
    await lay(dataFile, snapshot, log);
    const before = await filesNow(dataFile);
    let started: Awaited<ReturnType<typeof startSandbox>> | undefined;
    let failure: unknown;
    try {
      started = await startSandbox({ listen: false, dataFile });
    } catch (error) {
      failure = error;
    }
    // Close what did start before judging, so that it writes what it would and the comparison sees it.
    await started?.close();
    expect(failure, started ? 'it started' : undefined).toBeInstanceOf(StoreOpenError);
    expect((failure as Error).message).toContain(names === 'log' ? `${dataFile}.wal` : dataFile);
    expect(await filesNow(dataFile)).toEqual(before);
  });
});

