import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { alive } from '../../src/store/lock.js';
import { banner, EXIT_WITHIN, run, START_WITHIN, stopAll, TIMEOUT, within } from '../support/process.js';

/**
 * A store lock left by a process that has exited but not been reaped (a
 * zombie): after `kill -9` of a sandbox started through npx, the killed node
 * waits for init to collect it, and its pid still answers a signal 0. It holds
 * no lock: a restart on the same store file takes the lock over at once.
 */

let dir: string;
let holder: ChildProcess | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payments-sandbox-zombie-'));
});

afterEach(async () => {
  await stopAll();
  holder?.kill('SIGKILL');
  holder = undefined;
  await rm(dir, { recursive: true, force: true });
});

/**
 * A zombie's pid: `sh` starts `sleep 0.3` in the background, prints its pid and
 * becomes `sleep 60`, which never waits for the child it inherited; the child
 * exits once the shell is `sleep` (a child that ended before could be reaped
 * by the shell) and stays a zombie until its parent is killed.
 */
async function zombie(): Promise<number> {
  holder = spawn('sh', ['-c', 'sleep 0.3 & echo $!; exec sleep 60'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const pid = await within(
    new Promise<number>((done) => holder!.stdout!.setEncoding('utf8').once('data', (text: string) => done(Number(text.trim())))),
    START_WITHIN,
    'the pid of the background child',
  );
  // The state follows the command name's closing parenthesis (proc(5)).
  const state = () => / (\w) /.exec(readFileSync(`/proc/${pid}/stat`, 'latin1').split(')').pop()!)?.[1];
  await expect.poll(state, { timeout: EXIT_WITHIN }).toBe('Z');
  return pid;
}

describe.runIf(process.platform === 'linux')('a lock held by a zombie', () => {
  it('counts as no lock: a signal 0 reaches the pid, yet alive() says it has exited', { timeout: TIMEOUT }, async () => {
    const pid = await zombie();
    expect(() => process.kill(pid, 0)).not.toThrow();
    expect(alive(pid)).toBe(false);
    expect(alive(holder!.pid!)).toBe(true);
  });

  it('payments-sandbox --data starts on a store file whose lock names a zombie', { timeout: TIMEOUT }, async () => {
    const dataFile = join(dir, 'sb.json');
    const pid = await zombie();
    await writeFile(`${dataFile}.lock`, `${pid}\n`);
    const started = run(['--port', '0', '--data', dataFile]);
    const shown = await banner(started);
    expect(shown.store).toBe(dataFile);
    expect(started.stderr()).not.toContain('in use');
    expect(readFileSync(`${dataFile}.lock`, 'utf8')).toBe(`${started.child.pid}\n`);
    started.child.kill('SIGTERM');
    expect(await within(started.exited, EXIT_WITHIN, 'the sandbox to stop'), started.stderr() + started.stdout()).toEqual({ code: 0, signal: null });
  });
});
