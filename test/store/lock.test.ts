import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import ts from 'typescript';
import { afterEach, describe, expect, it } from 'vitest';
import { Store, StoreOpenError } from '../../src/store/store.js';
import { changeLine, paymentRecord, PUBLIC_A, storeFiles } from './fixtures.js';

/**
 * The exclusive lock on the store file held by another process: a second
 * user of the same file refuses to start naming the file and the holder's
 * pid; a lock left by a process that was killed is taken over. The lock
 * within this process (a second store, an empty lock, close, memory):
 * test/unit/store/lock.test.ts.
 */

const files = storeFiles('payments-sandbox-lock-');
let children: ChildProcess[] = [];

afterEach(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
  }
  children = [];
});

const SOURCE = new URL('../../src/store/', import.meta.url);

/**
 * Another process holding the lock on `file` with the store's own lock code
 * (compiled to JavaScript for it): resolves once it holds the lock.
 */
async function lockHolder(file: string): Promise<ChildProcess> {
  const dir = join(files.dir, 'holder');
  await mkdir(dir);
  for (const name of ['lock', 'errors']) {
    const source = await readFile(new URL(`${name}.ts`, SOURCE), 'utf8');
    const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
    await writeFile(join(dir, `${name}.js`), outputText);
  }
  await writeFile(join(dir, 'package.json'), '{"type":"module"}');
  await writeFile(
    join(dir, 'hold.js'),
    "import { StoreLock } from './lock.js';\nawait StoreLock.acquire(process.argv[2]);\nconsole.log('locked');\nsetInterval(() => {}, 60_000);\n",
  );
  const child = spawn(process.execPath, [join(dir, 'hold.js'), file], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  let out = '';
  child.stdout!.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('locked')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the lock holder exited (${code}) before locking`)));
  });
  return child;
}

async function contents(): Promise<Array<Buffer | undefined>> {
  return Promise.all([files.file, `${files.file}.wal`].map((path) => readFile(path).catch(() => undefined)));
}

describe('the lock on the store file', () => {
  it('refuses a second process on the same file, naming the file and the holder\'s pid, and touches nothing', { timeout: 20_000 }, async () => {
    await writeFile(`${files.file}.wal`, changeLine(paymentRecord(PUBLIC_A, 1)) + '\n');
    const holder = await lockHolder(files.file);
    const before = await contents();

    const opening = Store.open({ file: files.file });
    await expect(opening).rejects.toBeInstanceOf(StoreOpenError);
    await expect(opening).rejects.toThrow(
      `the store file ${files.file} is in use by process ${holder.pid} (${files.file}.lock): stop it, or give this one another store file`,
    );
    expect(await contents()).toEqual(before);
    expect((await readFile(`${files.file}.lock`, 'utf8')).trim()).toBe(String(holder.pid));
  });

  it('takes over the lock of a process that was killed, and keeps its data', { timeout: 20_000 }, async () => {
    await writeFile(`${files.file}.wal`, changeLine(paymentRecord(PUBLIC_A, 1)) + '\n');
    const holder = await lockHolder(files.file);
    holder.kill('SIGKILL');
    await once(holder, 'exit');
    expect(existsSync(`${files.file}.lock`)).toBe(true);

    const store = await files.open();
    expect(store.payments(PUBLIC_A)).toHaveLength(1);
    expect((await readFile(`${files.file}.lock`, 'utf8')).trim()).toBe(String(process.pid));
    expect(existsSync(`${files.file}.lock.takeover`)).toBe(false);
  });

});
