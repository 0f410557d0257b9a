import { spawn, spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, run, START_WITHIN, stopAll, TIMEOUT, within, type Exit } from '../support/process.js';

/**
 * A start-up that cannot go on because of what it was given ends with one
 * line on stderr naming the path and the fix, exit code 2, and no stack
 * (docs/decisions.md#d68-start-up-refusals); nothing is created.
 */

/** A user who owns nothing here, for a folder root could write to anyway (root passes every permission check). */
const NOBODY = 65534;

/**
 * Can that user run the executable from this checkout, and reach a temporary folder? Not in a clone inside a
 * folder only its owner may enter (a private home, `mktemp -d`): the tests that need that user are then skipped.
 */
const otherUserCanRun = process.getuid?.() !== 0 || spawnSync(process.execPath, ['-e', `const fs = require('node:fs'); fs.accessSync(${JSON.stringify(BIN)}, fs.constants.R_OK); fs.accessSync(${JSON.stringify(tmpdir())}, fs.constants.X_OK)`], { uid: NOBODY, gid: NOBODY, stdio: 'ignore' }).status === 0;

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payments-sandbox-refusals-'));
});

afterEach(async () => {
  await stopAll();
  await rm(dir, { recursive: true, force: true });
});

async function refused(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<{ exit: Exit; line: string; stdout: string }> {
  const started = run(args, { cwd: options.cwd ?? dir, env: options.env });
  const exit = await within(started.closed, START_WITHIN, `payments-sandbox ${args.join(' ')} to exit`);
  const lines = started.stderr().split('\n').filter((line) => line !== '');
  expect(lines, started.stderr()).toHaveLength(1);
  return { exit, line: lines[0]!, stdout: started.stdout() };
}

/**
 * Runs the executable as a user who cannot write to `dir` (the test's own user
 * unless that is root, who can write anywhere), in `cwd`.
 */
async function refusedAsOtherUser(args: string[], cwd: string): Promise<{ exit: Exit; stderr: string }> {
  const asRoot = process.getuid?.() === 0;
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'], ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}) });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout.resume();
  const exit = await within(new Promise<Exit>((done) => child.once('close', (code, signal) => done({ code, signal }))), START_WITHIN, 'the refusal');
  return { exit, stderr };
}

describe('--scenarios naming no folder', () => {
  it('a missing folder: one line naming it and the fix, exit 2, no stack', { timeout: TIMEOUT }, async () => {
    const missing = join(dir, 'nonexistent');
    const { exit, line, stdout } = await refused(['--port', '0', '--in-memory', '--scenarios', missing]);
    expect(exit.code).toBe(2);
    expect(line).toBe(`payments-sandbox: --scenarios ${missing}: the scenario folder ${missing} does not exist: create it, or name the folder that holds your scenario files`);
    expect(stdout).toBe('');
  });

  it('a file: names the folder that holds it; from SANDBOX_SCENARIOS, names the variable', { timeout: TIMEOUT }, async () => {
    const file = join(dir, 'team.yaml');
    await writeFile(file, 'scenarios: []\n');
    const flag = await refused(['--port', '0', '--in-memory', '--scenarios', file]);
    expect(flag.exit.code).toBe(2);
    expect(flag.line).toBe(`payments-sandbox: --scenarios ${file}: ${file} is a file, not a folder: name the folder that holds it (${dir})`);
    const variable = await refused(['--port', '0', '--in-memory'], { env: { SANDBOX_SCENARIOS: file } });
    expect(variable.exit.code).toBe(2);
    expect(variable.line).toMatch(new RegExp(`^payments-sandbox: SANDBOX_SCENARIOS=${file}: `));
  });

  it('payments-sandbox scenarios list answers the same', { timeout: TIMEOUT }, async () => {
    const missing = join(dir, 'nonexistent');
    const { exit, line } = await refused(['scenarios', 'list', '--scenarios', missing]);
    expect(exit.code).toBe(2);
    expect(line).toContain(`the scenario folder ${missing} does not exist`);
  });
});

describe('--data in a folder that cannot hold the store', () => {
  it('a missing folder: refused, named with the three ways out, and not created', { timeout: TIMEOUT }, async () => {
    const folder = join(dir, 'missing');
    const { exit, line, stdout } = await refused(['--port', '0', '--data', join(folder, 'x.json')]);
    expect(exit.code).toBe(2);
    expect(line).toBe(
      `payments-sandbox: --data ${join(folder, 'x.json')}: the folder ${folder} does not exist (it is not created): create it (mkdir -p ${folder}), or choose another store file with --data <file>, or keep no file with --in-memory`,
    );
    expect(stdout).toBe('');
    expect(await readdir(dir)).toEqual([]);
  });

  it.skipIf(!otherUserCanRun)('a folder this user cannot write to: refused naming the folder, not an internal file', { timeout: TIMEOUT }, async () => {
    const folder = join(dir, 'read-only');
    await mkdir(folder);
    await chmod(dir, 0o755);
    await chmod(folder, 0o555);
    const { exit, stderr } = await refusedAsOtherUser(['--port', '0', '--data', join(folder, 'x.json')], dir);
    expect(exit.code, stderr).toBe(2);
    expect(stderr).toBe(
      `payments-sandbox: --data ${join(folder, 'x.json')}: the folder ${folder} is not writable by this user (EACCES): make it writable, or choose another store file with --data <file>, or keep no file with --in-memory\n`,
    );
    expect(await readdir(folder)).toEqual([]);
  });

  it.skipIf(!otherUserCanRun)('no flag at all, in a working directory that cannot be written to: says so, and how to run', { timeout: TIMEOUT }, async () => {
    const folder = join(dir, 'read-only-cwd');
    await mkdir(folder);
    await chmod(dir, 0o755);
    await chmod(folder, 0o555);
    const { exit, stderr } = await refusedAsOtherUser(['--port', '0'], folder);
    expect(exit.code, stderr).toBe(2);
    expect(stderr).toBe(
      `payments-sandbox: the store file is kept in the working directory by default, and ${folder} is not writable by this user (EACCES): run from a writable folder, choose another store file with --data <file>, or keep no file with --in-memory\n`,
    );
    expect(stderr).not.toContain('.lock');
  });
});

describe('every other start-up refusal is exit 2', () => {
  it('a store file in use by another sandbox', { timeout: TIMEOUT }, async () => {
    const dataFile = join(dir, 'sb.json');
    await writeFile(`${dataFile}.lock`, `${process.pid}\n`);
    const { exit, line } = await refused(['--port', '0', '--data', dataFile]);
    expect(exit.code).toBe(2);
    expect(line).toBe(`payments-sandbox: the store file ${dataFile} is in use by process ${process.pid} (${dataFile}.lock): stop it, or give this one another store file`);
  });

  it('--data and SANDBOX_IN_MEMORY together', { timeout: TIMEOUT }, async () => {
    const { exit, line } = await refused(['--port', '0', '--data', join(dir, 'sb.json')], { env: { SANDBOX_IN_MEMORY: '1' } });
    expect(exit.code).toBe(2);
    expect(line).toBe('payments-sandbox: --data and --in-memory (or SANDBOX_IN_MEMORY) cannot be used together: keep one');
  });
});
