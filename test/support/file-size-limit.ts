import { execFileSync } from 'node:child_process';

/**
 * A full disk, for real: the file size limit of this test's own process
 * (RLIMIT_FSIZE, set with prlimit) makes a write past it fail with EFBIG,
 * part of it written, as a full disk does; root is bound by it too, unlike
 * permission bits. Lifting the limit is the disk recovering.
 */

/** True when prlimit is on the machine (util-linux); the tests that need it skip otherwise. */
export const prlimitAvailable = (() => {
  try {
    execFileSync('prlimit', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const originalLimit = prlimitAvailable
  ? execFileSync('prlimit', ['--pid', String(process.pid), '--fsize', '--raw', '--noheadings', '--output=SOFT'], { encoding: 'utf8' }).trim()
  : '';
let limited = false;

/** Files of this process may not grow past `bytes` (the soft limit; the hard one is left alone). */
export function limitFileSize(bytes: number): void {
  execFileSync('prlimit', ['--pid', String(process.pid), `--fsize=${bytes}:`]);
  limited = true;
}

/** The disk recovers: the limit this process started with. */
export function liftFileSizeLimit(): void {
  if (!limited) return;
  execFileSync('prlimit', ['--pid', String(process.pid), `--fsize=${originalLimit}:`]);
  limited = false;
}
