import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { alive, stateOfStat, StoreLock } from '../../../src/store/lock.js';
import { StoreOpenError } from '../../../src/store/errors.js';

/**
 * The store lock's judgement of its holder, and its message when no lock can
 * be made (src/store/lock.ts). A real zombie needs a child process:
 * test/cli/zombie-lock.test.ts makes one.
 */

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payments-sandbox-lock-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('stateOfStat', () => {
  it('reads the state after the command name, whatever the name holds', () => {
    expect(stateOfStat('4242 (node) S 1 4242 4242 0 -1 4194560 0 0 0 0')).toBe('S');
    expect(stateOfStat('4243 (payments-sandbox) Z 1 4243 4243 0 -1 4227084 0 0')).toBe('Z');
    // A name may hold spaces and parentheses: the state follows the last `)`.
    expect(stateOfStat('4244 (a) Z (b) R 1 4244 4244 0 -1 0')).toBe('R');
    expect(stateOfStat('4245 (x) ) X 7 0 0')).toBe('X');
  });

  it('finds none in a text that is no stat line', () => {
    expect(stateOfStat('')).toBeUndefined();
    expect(stateOfStat('4246 (node')).toBeUndefined();
    expect(stateOfStat('4247 (node)')).toBeUndefined();
  });
});

describe('alive', () => {
  it('is true of this process and false of a pid no process has', () => {
    expect(alive(process.pid)).toBe(true);
    // Above Linux's highest pid (2^22).
    expect(alive(2 ** 22 + 17)).toBe(false);
  });

  it('is false of what names no single process: 0, negative, fractional, NaN', () => {
    for (const pid of [0, -1, 1.5, Number.NaN]) expect(alive(pid), String(pid)).toBe(false);
  });
});

describe('StoreLock.acquire where no lock can be made', () => {
  it('names the missing folder, not the temporary file of the lock, and leaves nothing', async () => {
    const folder = join(dir, 'missing');
    const error = await StoreLock.acquire(join(folder, 'sb.json')).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreOpenError);
    expect((error as Error).message).toBe(`cannot lock the store file ${join(folder, 'sb.json')}: its folder ${folder} does not exist`);
    expect(await readdir(dir)).toEqual([]);
  });

  it('names a folder that is a file', async () => {
    const file = join(dir, 'plain');
    await writeFile(file, '');
    const error = await StoreLock.acquire(join(file, 'sb.json')).catch((caught: unknown) => caught);
    expect((error as Error).message).toBe(`cannot lock the store file ${join(file, 'sb.json')}: ${file} is not a folder`);
    expect((error as Error).message).not.toContain('.tmp');
  });
});
