import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { alive, stateOfStat, StoreLock } from '../../../src/store/lock.js';
import { StoreOpenError } from '../../../src/store/errors.js';
import { Store } from '../../../src/store/store.js';
import { paymentRecord, PUBLIC_A, storeFiles } from '../../store/fixtures.js';

/**
 * The store lock's judgement of its holder, its message when no lock can
 * be made (src/store/lock.ts), and the lock on the store file within this
 * process: a second store on the same file refused, an empty lock taken
 * over, the lock gone at close, none in memory. A real zombie needs a child
 * process: test/cli/zombie-lock.test.ts makes one; a holder in another
 * process: test/store/lock.test.ts.
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

describe('the lock on the store file, within this process', () => {
  const files = storeFiles('payments-sandbox-lock-');

  it('takes over a lock that holds no pid (left empty by a crash of the machine)', async () => {
    await writeFile(`${files.file}.lock`, '');
    const store = await files.open();
    expect(store.health()).toEqual({ writable: true });
    expect((await readFile(`${files.file}.lock`, 'utf8')).trim()).toBe(String(process.pid));
  });

  it('refuses a second store on the same file in this process, and opens once the first is closed', async () => {
    const first = await files.open();
    await expect(Store.open({ file: files.file })).rejects.toThrow(`the store file ${files.file} is in use by process ${process.pid}`);
    // The same file by another path is the same file.
    const other = relative(process.cwd(), files.file);
    await expect(Store.open({ file: other })).rejects.toThrow(`the store file ${other} is in use by process ${process.pid}`);
    // Two opens at the same time: one wins.
    await first.close();
    const both = await Promise.allSettled([Store.open({ file: files.file }), Store.open({ file: files.file })]);
    const opened = both.filter((result) => result.status === 'fulfilled');
    expect(opened).toHaveLength(1);
    expect(both.find((result) => result.status === 'rejected')?.reason).toBeInstanceOf(StoreOpenError);
    await (opened[0] as PromiseFulfilledResult<Store>).value.close();
    expect(existsSync(`${files.file}.lock`)).toBe(false);
  });

  it('goes at close, leaving only the store\'s own files', async () => {
    const store = await files.open();
    store.putPayment(paymentRecord(PUBLIC_A, 1));
    await store.commit();
    expect(existsSync(`${files.file}.lock`)).toBe(true);
    await store.close();
    expect(existsSync(`${files.file}.lock`)).toBe(false);
    expect((await readdir(files.dir)).sort()).toEqual(['sandbox.json', 'sandbox.json.wal']);
  });

  it('is not taken by a store in memory', async () => {
    const first = await Store.open();
    const second = await Store.open();
    expect(first.inMemory && second.inMemory).toBe(true);
    first.putPayment(paymentRecord(PUBLIC_A, 1));
    await first.commit();
    expect(second.payments(PUBLIC_A)).toEqual([]);
    await Promise.all([first.close(), second.close()]);
  });

  it('refuses with the reason when the lock cannot be made (no such folder)', async () => {
    const file = join(files.dir, 'missing', 'sandbox.json');
    await expect(Store.open({ file })).rejects.toThrow(`cannot lock the store file ${file}: its folder ${join(files.dir, 'missing')} does not exist`);
  });
});
