import { chmodSync, chownSync } from 'node:fs';
import { lstat, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { Store, StoreOpenError } from '../../../src/store/store.js';
import { WriteAheadLog } from '../../../src/store/write-ahead-log.js';
import { ApiClient, sandboxForTest } from '../../support/sandbox.js';
import { asideOf, changeLine, merchantRecord, paymentRecord, PUBLIC_A, storeFiles } from '../../store/fixtures.js';

/**
 * The store's files are its owner's alone: whatever is found beside the
 * store file (a leftover temporary file, a log or snapshot at 0644, a link,
 * another user's file), every file holding a secret key ends at 0600, owned
 * by this process's user, or the store refuses to start naming the file. A
 * store folder others can write to is reported at start.
 */

const files = storeFiles('payments-sandbox-modes-');
const uid = process.getuid?.();
// Files of another user can only be made by root; those cases are skipped otherwise.
const asRoot = uid === 0;
const NOBODY = 65534;

let sandboxes: Sandbox[] = [];
afterEach(async () => {
  for (const sandbox of sandboxes) await sandbox.close().catch(() => undefined);
  sandboxes = [];
  vi.restoreAllMocks();
});

const modeOf = async (path: string): Promise<number> => (await stat(path)).mode & 0o777;

/** A file at `path` holding `text`, at `mode` whatever the umask, and owned by `owner` when given. */
async function plant(path: string, text: string, mode: number, owner?: number): Promise<void> {
  await writeFile(path, text);
  chmodSync(path, mode);
  if (owner !== undefined) chownSync(path, owner, owner);
}

/** The files of the folder (not links, not folders) whose bytes hold a test secret key. */
async function holdingSecrets(dir: string): Promise<string[]> {
  const names: string[] = [];
  for (const name of await readdir(dir)) {
    const found = await lstat(join(dir, name));
    if (found.isFile() && (await readFile(join(dir, name), 'utf8')).includes('SBTESTSECK_')) names.push(name);
  }
  return names.sort();
}

/** A snapshot (version 3) holding one merchant with its secret key. */
const snapshotWithMerchant = (): string =>
  JSON.stringify({ version: 3, merchants: [merchantRecord(PUBLIC_A)], payments: [], orders: [], webhooks: [], clocks: [], deliveries: [] });

/** The warnings the store gave when `open` opened it. */
async function warningsOf(open: () => Promise<Store>): Promise<readonly string[]> {
  return (await open()).warnings;
}

describe('files found beside the store file', () => {
  it('leaves no secret key readable by others after a key exchange and a stop, whatever temporary file and log were there at 0644', async () => {
    // An older version's fixed temporary name, half a snapshot left by a crash, and a log made by hand (or by another tool) at 0644.
    await plant(join(files.dir, '.sandbox.json.tmp'), '{"version": 3,\n"merchants": [\n{"secretKey":"SBTESTSECK_leftover"', 0o644);
    await plant(join(files.dir, '.sandbox.json.0123456789abcdef.tmp'), '{"version": 3,\n"merchants": [\n{"secretKey":"SBTESTSECK_crashed"', 0o644);
    await plant(`${files.file}.wal`, '', 0o644);

    const sandbox = await sandboxForTest({ dataFile: files.file });
    sandboxes.push(sandbox);
    const merchant = await (await ApiClient.for(sandbox)).merchant();
    // The log was set to 0600 before the secret key was appended to it.
    expect(await readFile(`${files.file}.wal`, 'utf8')).toContain(merchant.secretKey);
    expect(await modeOf(`${files.file}.wal`)).toBe(0o600);
    await sandbox.close();

    expect(await readFile(files.file, 'utf8')).toContain(merchant.secretKey);
    // The temporary files a crash left are gone with the secret keys they held.
    expect((await readdir(files.dir)).sort()).toEqual(['sandbox.json', 'sandbox.json.wal']);
    for (const name of await holdingSecrets(files.dir)) {
      const found = await stat(join(files.dir, name));
      expect({ name, mode: found.mode & 0o777, uid: found.uid }).toEqual({ name, mode: 0o600, uid });
    }
  });

  it('sets a snapshot found at 0644 to 0600 as soon as the store is open, before anything is written; a file that is no snapshot keeps its mode', async () => {
    // Refused as before, and not changed at all: only a file that proved to be a snapshot is.
    await plant(files.file, 'not a store', 0o644);
    await expect(files.open()).rejects.toThrow(`cannot read the store file ${files.file}: not JSON`);
    expect(await modeOf(files.file)).toBe(0o644);

    await plant(files.file, snapshotWithMerchant(), 0o644);
    const before = await readFile(files.file);
    const store = await files.open();
    expect(store.merchant(PUBLIC_A)?.secretKey).toBe(merchantRecord(PUBLIC_A).secretKey);
    expect(await modeOf(files.file)).toBe(0o600);
    expect(await readFile(files.file)).toEqual(before);
  });

  it('writes nothing through a link left at the old temporary name: the snapshot is a file of its own', async () => {
    const victim = join(files.dir, 'victim.txt');
    await plant(victim, 'untouched\n', 0o644);
    await symlink(victim, join(files.dir, '.sandbox.json.tmp'));
    const store = await files.open();
    store.putMerchant(merchantRecord(PUBLIC_A));
    await store.commit();
    await store.close();

    expect(await readFile(victim, 'utf8')).toBe('untouched\n');
    expect((await lstat(files.file)).isFile()).toBe(true);
    expect(await modeOf(files.file)).toBe(0o600);
    expect(await readFile(files.file, 'utf8')).toContain(merchantRecord(PUBLIC_A).secretKey);
  });

  it('refuses a log that is a link, naming it, and writes nothing through it', async () => {
    const victim = join(files.dir, 'victim.wal');
    await plant(victim, '', 0o644);
    await symlink(victim, `${files.file}.wal`);
    const opening = Store.open({ file: files.file });
    await expect(opening).rejects.toBeInstanceOf(StoreOpenError);
    await expect(opening).rejects.toThrow(`cannot read the store log ${files.file}.wal: a symbolic link, which the store does not follow`);
    expect(await readFile(victim, 'utf8')).toBe('');
    expect(await modeOf(victim)).toBe(0o644);
  });
});

describe.skipIf(!asRoot)('files of another user (as root: the files are given to uid 65534)', () => {
  const cases: Array<[string, string, string]> = [
    ['the snapshot', '', 'store file'],
    ['the log', '.wal', 'store log'],
    ['the log set aside by a fold', '.wal.folding', 'store log'],
  ];
  for (const [what, suffix, noun] of cases) {
    it(`refuses ${what} at start, naming it and its owner, and leaves it as it was`, async () => {
      const path = `${files.file}${suffix}`;
      await plant(path, suffix === '' ? snapshotWithMerchant() : changeLine(paymentRecord(PUBLIC_A, 1)) + '\n', 0o666, NOBODY);
      const before = await readFile(path);
      const opening = Store.open({ file: files.file });
      await expect(opening).rejects.toBeInstanceOf(StoreOpenError);
      await expect(opening).rejects.toThrow(
        `cannot read the ${noun} ${path}: it belongs to user ${NOBODY}, not to user ${uid} who runs the sandbox`,
      );
      const after = await stat(path);
      expect({ uid: after.uid, mode: after.mode & 0o777 }).toEqual({ uid: NOBODY, mode: 0o666 });
      expect(await readFile(path)).toEqual(before);
      // Nothing was made beside it, the lock aside.
      expect((await readdir(files.dir)).sort()).toEqual([`sandbox.json${suffix}`]);
    });
  }

  it('never writes to a log another user makes at the log\'s name while the log is set aside', async () => {
    const path = `${files.file}.wal`;
    const { log } = await WriteAheadLog.open(path);
    await log.append([changeLine(paymentRecord(PUBLIC_A, 1))], true);
    const reopen = WriteAheadLog.prototype.reopen;
    // The moment between the rename and the new log, which another user in a shared folder could use.
    vi.spyOn(WriteAheadLog.prototype, 'reopen').mockImplementationOnce(async function (this: WriteAheadLog) {
      await plant(path, '', 0o666, NOBODY);
      return reopen.call(this);
    });
    await expect(log.rotate(asideOf(files.file))).rejects.toThrow(`it belongs to user ${NOBODY}, not to user ${uid} who runs the sandbox`);
    expect(log.detached).toBe(true);
    expect(await readFile(path, 'utf8')).toBe('');
    expect((await stat(path)).uid).toBe(NOBODY);
    await log.close();
  });

  it('leaves another user\'s file at a temporary name alone', async () => {
    const theirs = join(files.dir, '.sandbox.json.tmp');
    await plant(theirs, 'theirs', 0o644, NOBODY);
    const store = await files.open();
    store.putMerchant(merchantRecord(PUBLIC_A));
    await store.commit();
    await store.close();
    expect(await readFile(theirs, 'utf8')).toBe('theirs');
    expect(await modeOf(files.file)).toBe(0o600);
  });
});

describe('the store folder', () => {
  it('is reported at start when every user can write to it and it has no sticky bit; not with the sticky bit (like /tmp), nor when only its owner and their group can', async () => {
    chmodSync(files.dir, 0o777);
    expect(await warningsOf(() => files.open())).toEqual([
      `the folder ${files.dir} of the store file ${files.file} is writable by every user (mode 0777): other users can replace the store's files with their own; keep the store in a folder only you can write to, or one with the sticky bit (chmod +t ${files.dir})`,
    ]);

    chmodSync(files.dir, 0o1777);
    expect(await warningsOf(() => files.open({ file: join(files.dir, 'sticky.json') }))).toEqual([]);
    chmodSync(files.dir, 0o775);
    expect(await warningsOf(() => files.open({ file: join(files.dir, 'group.json') }))).toEqual([]);
  });

  it.skipIf(!asRoot)('is reported when its group can write to it and it belongs to another user', async () => {
    const shared = join(files.dir, 'shared');
    await mkdir(shared);
    chmodSync(shared, 0o770);
    chownSync(shared, NOBODY, NOBODY);
    expect(await warningsOf(() => files.open({ file: join(shared, 'sandbox.json') }))).toEqual([
      expect.stringContaining(`the folder ${shared} of the store file ${join(shared, 'sandbox.json')} is writable by its group (mode 0770) and belongs to user ${NOBODY}`),
    ]);
  });
});
