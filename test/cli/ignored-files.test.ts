import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/process.js';

/**
 * What a sandbox run in a clone leaves beside its store file, and the build's
 * lock, are not for git: `git status` stays clean after `npx payments-sandbox`.
 */

const LEFT_BY_A_RUN = ['payments-sandbox.json', 'payments-sandbox.json.wal', 'payments-sandbox.json.lock', 'payments-sandbox.json.lock.takeover', 'payments-sandbox.json.lock.4242.0b5e.tmp', 'data/team.json.lock', 'dist.building'];

/** Whether git would ignore `path` in this repository (`git check-ignore` exits 0 for an ignored path, 1 for one it would add). */
function ignored(path: string): boolean {
  try {
    execFileSync('git', ['check-ignore', '--quiet', '--no-index', path], { cwd: ROOT, stdio: 'ignore' });
    return true;
  } catch (error) {
    if ((error as { status?: number }).status === 1) return false;
    throw error;
  }
}

/** Whether the repository is a git work tree with git at hand (a source archive is not). */
function inWorkTree(): boolean {
  try {
    return execFileSync('git', ['rev-parse', '--is-inside-work-tree'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() === 'true';
  } catch {
    return false;
  }
}

describe.runIf(inWorkTree())('.gitignore', () => {
  it('ignores the store file, its log, its lock and the lock\'s own files, and the build\'s lock', () => {
    for (const path of LEFT_BY_A_RUN) expect(ignored(path), path).toBe(true);
  });

  it('still tracks the sources', () => {
    for (const path of ['src/store/lock.ts', 'package.json', 'scenarios/payments.yaml']) expect(ignored(path), path).toBe(false);
  });
});
