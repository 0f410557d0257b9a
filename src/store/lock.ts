import { randomUUID } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { link, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { StoreOpenError } from './errors.js';

/**
 * The exclusive lock on a store file: `<file>.lock`, holding the pid of the
 * process that uses the store. Two processes appending to one log would
 * interleave their changes and each overwrite the other's snapshot, so the
 * second one refuses to start instead. A lock whose process is gone (killed,
 * crashed) is taken over: a pid, unlike a lock's age, tells a dead holder from
 * a slow one at once.
 *
 * The file appears with its pid already in it (written under a unique name,
 * then hard-linked into place, which fails when the lock exists), so no one
 * ever reads a half-written lock.
 */

// Locks this process holds: its own pid in a lock it does not hold is a leftover of an earlier process that had the same pid (a container restarted).
const held = new Set<string>();
let releasedAtExit = false;

/** The lock file's mode (less what the umask takes away): it holds nothing secret. */
const LOCK_MODE = 0o644;

/** How long a stale lock's takeover may wait for another process taking it over at the same time. */
const TAKEOVER_WAIT_MS = 1_000;

/** A lock held on one store file; `release()` gives it up. */
export class StoreLock {
  private constructor(readonly path: string) {}

  /**
   * Takes the lock on `file`, taking over one left by a process that no longer runs.
   * @throws StoreOpenError naming the file and the pid of the process that holds it
   *   (this process too, when it has the store open already), or why the lock cannot be made
   */
  static async acquire(file: string): Promise<StoreLock> {
    // One spelling per file, so that this process knows its own lock whatever path it was given.
    const path = `${resolve(file)}.lock`;
    // One open of a file at a time in this process, decided before anything awaits: a second open
    // while the first is still linking would otherwise read this pid in the lock and take it for a leftover.
    if (held.has(path)) throw inUse(file, process.pid, path);
    held.add(path);
    let acquired = false;
    const mine = `${path}.${process.pid}.${randomUUID()}.tmp`;
    try {
      // Created fresh (never through a file or link found there), and readable by all: it holds a pid only, which another user's sandbox names when it refuses.
      await writeFile(mine, `${process.pid}\n`, { flag: 'wx', mode: LOCK_MODE });
    } catch (error) {
      held.delete(path);
      throw new StoreOpenError(`cannot lock the store file ${file}: ${folderProblem(error, dirname(path))}`);
    }
    try {
      for (let attempt = 0; attempt < 10; attempt += 1) {
        if (await linked(mine, path)) {
          acquired = true;
          releaseAtExit();
          return new StoreLock(path);
        }
        const holder = await holderOf(path);
        if (holder === undefined) continue;
        // This pid in the lock is a leftover: this process has no other open of the file (checked above).
        if (holder !== process.pid && alive(holder)) throw inUse(file, holder, path);
        await removeStale(path, holder, mine);
      }
      throw new StoreOpenError(`cannot lock the store file ${file}: ${path} keeps changing`);
    } catch (error) {
      throw error instanceof StoreOpenError ? error : new StoreOpenError(`cannot lock the store file ${file}: ${(error as Error).message}`);
    } finally {
      if (!acquired) held.delete(path);
      await rm(mine, { force: true });
    }
  }

  /** Gives the lock up: removes the lock file, unless another process has taken it over meanwhile. */
  async release(): Promise<void> {
    if (!held.delete(this.path)) return;
    if ((await holderOf(this.path)) === process.pid) await rm(this.path, { force: true });
  }
}

const inUse = (file: string, holder: number, path: string): StoreOpenError =>
  new StoreOpenError(`the store file ${file} is in use by process ${holder} (${path}): stop it, or give this one another store file`);

// A process that exits without closing its store (an uncaught error) should not leave its lock behind.
function releaseAtExit(): void {
  if (releasedAtExit) return;
  releasedAtExit = true;
  process.once('exit', () => {
    for (const path of held) {
      try {
        if (Number(readFileSync(path, 'utf8')) === process.pid) unlinkSync(path);
      } catch {
        // Gone already, or taken over: nothing of ours to remove.
      }
    }
  });
}

async function linked(from: string, to: string): Promise<boolean> {
  try {
    await link(from, to);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** The pid in a lock file; NaN when it holds none (a crash of the machine can leave it empty); undefined when it is gone. */
async function holderOf(path: string): Promise<number | undefined> {
  try {
    const text = await readFile(path, 'utf8');
    return /^\d+\n?$/.test(text) ? Number(text) : Number.NaN;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Whether the process `pid` runs, and so may hold a lock. A zombie does not: it
 * has exited and only waits for its parent to collect its status, which can
 * take a while when the parent was killed with it and init reaps it later
 * (`kill -9` of a sandbox started through npx). On Linux, /proc tells one
 * from a running process; elsewhere a signal 0 is all there is.
 */
export function alive(pid: number): boolean {
  // 0 and negative numbers would signal process groups, not a process.
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !exited(processState(pid));
}

/** The state letter of /proc/<pid>/stat (`R`, `S`, `Z`...); undefined where there is no /proc or it is gone. */
function processState(pid: number): string | undefined {
  try {
    return stateOfStat(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return undefined;
  }
}

/**
 * The state letter in the text of a /proc/<pid>/stat file: the field after the
 * command name, which is in parentheses and may itself hold spaces and `)`,
 * so it is read after the last `)` (proc(5)). Undefined when there is none.
 */
export function stateOfStat(text: string): string | undefined {
  return /^ ([A-Za-z])/.exec(text.slice(text.lastIndexOf(')') + 1))?.[1];
}

// Z: a zombie; X: dead (proc(5)). Both have exited.
const exited = (state: string | undefined): boolean => state === 'Z' || state === 'X';

// Why this process cannot create a file beside the store file: its folder, named, rather than the lock's own temporary name.
function folderProblem(error: unknown, folder: string): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return `its folder ${folder} does not exist`;
  if (code === 'ENOTDIR') return `${folder} is not a folder`;
  if (code === 'EACCES' || code === 'EPERM') return `its folder ${folder} is not writable by this user (${code})`;
  if (code === 'EROFS') return `its folder ${folder} is on a read-only file system`;
  return `cannot create a file in ${folder}: ${(error as Error).message}`;
}

// Two processes finding the same stale lock must not both take it: one could
// remove the fresh lock the other just made. The removal happens under a
// second lock, and only if the stale holder is still the one in the file.
async function removeStale(path: string, holder: number, mine: string): Promise<void> {
  const guard = `${path}.takeover`;
  const until = Date.now() + TAKEOVER_WAIT_MS;
  while (!(await linked(mine, guard))) {
    const taker = await holderOf(guard);
    if (taker !== undefined && alive(taker) && Date.now() < until) await sleep(10);
    // A guard whose taker died, or one older than any takeover takes, is left over.
    else if (taker !== undefined) await rm(guard, { force: true });
  }
  try {
    const now = await holderOf(path);
    if (now === holder || (Number.isNaN(now) && Number.isNaN(holder))) await rm(path, { force: true });
  } finally {
    await rm(guard, { force: true });
  }
}
