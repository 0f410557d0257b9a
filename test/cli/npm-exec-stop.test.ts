import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { banner, cleanEnv, ROOT, within, type Exit, type Run } from '../support/process.js';

/**
 * The README's background start, `npx payments-sandbox … &` then `kill $!`:
 * the signal reaches npm, which passes it to its shell only; the sandbox
 * closes once that shell has exited (docs/decisions.md#d69-close-with-npm-exec).
 * npm runs the package of this repository (`npm exec --prefix`), as npx does
 * in a clone.
 */

/** How long npm may take to start the sandbox: npm itself starts slowly. */
const NPM_START_WITHIN = 60_000;
/** How soon the port must close once npm is signalled. */
const CLOSED_WITHIN = 5_000;

let dir: string;
let npm: ChildProcess | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payments-sandbox-npm-exec-'));
});

afterEach(async () => {
  // npm, its shell and the sandbox share the group npm leads.
  if (npm?.pid) {
    try {
      process.kill(-npm.pid, 'SIGKILL');
    } catch {
      // All gone already.
    }
  }
  npm = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** `npm exec --prefix <repo> -- payments-sandbox args`, as a Run whose child is npm. */
function npmExec(args: string[]): Run {
  const child = spawn('npm', ['exec', '--prefix', ROOT, '--', 'payments-sandbox', ...args], { cwd: dir, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  npm = child;
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<Exit>((done) => child.once('exit', (code, signal) => done({ code, signal })));
  const closed = new Promise<Exit>((done) => child.once('close', (code, signal) => done({ code, signal })));
  return { child, stdout: () => stdout, stderr: () => stderr, exited, closed };
}

/** Whether anything answers on `origin` now. */
async function answers(origin: string): Promise<boolean> {
  try {
    await fetch(`${origin}/__sandbox/health`, { signal: AbortSignal.timeout(1_000) });
    return true;
  } catch {
    return false;
  }
}

describe('a sandbox started through npm exec', () => {
  it('closes when npm is sent SIGTERM, though npm does not pass it on: the port closes within seconds', { timeout: NPM_START_WITHIN + 30_000 }, async () => {
    const started = npmExec(['--port', '0', '--in-memory', '--log-level', 'silent']);
    const shown = await within(banner(started), NPM_START_WITHIN, 'the banner through npm exec');
    expect(await answers(shown.origin)).toBe(true);

    started.child.kill('SIGTERM');
    await within(started.exited, CLOSED_WITHIN, 'npm to exit');
    const since = Date.now();
    while ((await answers(shown.origin)) && Date.now() - since < CLOSED_WITHIN) await new Promise((done) => setTimeout(done, 100));
    expect(await answers(shown.origin), `still serving ${CLOSED_WITHIN} ms after npm exited`).toBe(false);
    // The sandbox closed as on SIGTERM (its pipes close once it has exited), saying why.
    await within(started.closed, CLOSED_WITHIN, 'the sandbox to exit and close its output');
    expect(started.stdout()).toContain('payments-sandbox: the process that started it exited, closing');
  });
});
