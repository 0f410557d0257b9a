import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { lstat, open, readdir, rm, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * The store's files are its owner's alone (README, "Security"): the snapshot
 * and the logs hold every merchant's test secret key. A file the store makes
 * is created fresh (O_EXCL) at mode 0600; a file it finds is used only once
 * an fstat of the open file says it belongs to this process's user, and its
 * mode is set to 0600 before anything is written in it. The checks are made
 * on the open file (fstat, fchmod), not on its name: a file put in the name's
 * place after the check is never the one written to.
 */

/**
 * The mode of the files that hold secret keys (snapshot, logs, the
 * snapshot's temporary file): readable and writable by their owner only.
 */
export const OWNER_ONLY = 0o600;

// Absent on Windows, where modes and owners mean nothing to Node: 0 leaves the flag out.
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
const NO_BLOCK = constants.O_NONBLOCK ?? 0;
// A device or a pipe in a file's place must not hold the open for ever: it is refused once opened.
const READ = constants.O_RDONLY | NO_BLOCK;
// Appends always go to the end, also after a truncate; a symbolic link would send them to a file the store did not choose.
const APPEND = constants.O_RDWR | constants.O_APPEND | NO_FOLLOW;
const CREATE = APPEND | constants.O_CREAT | constants.O_EXCL;
// The sticky bit of a folder's mode (S_ISVTX): only a file's owner may remove or rename it.
const STICKY = 0o1000;

/** An open file of the store and what fstat said of it when it was opened. */
export interface OpenFile {
  handle: FileHandle;
  stats: Stats;
}

/**
 * Why this process's user must not use a file whose fstat is `found`, or
 * undefined when it may: the file belongs to another user, who could read
 * the secret keys written in it (or wrote what it holds). Undefined where
 * processes have no uid (Windows).
 */
export function foreignOwner(found: Stats): string | undefined {
  const uid = process.getuid?.();
  if (uid === undefined || found.uid === uid) return undefined;
  return `it belongs to user ${found.uid}, not to user ${uid} who runs the sandbox: its owner could read the secret keys written in it, or change what it holds; remove it, or chown it to user ${uid}`;
}

/**
 * Opens a file of the store to read it, checked: a regular file belonging
 * to this process's user.
 * @returns the open file, or undefined when there is no file at `path`
 * @throws Error saying what is wrong (`not a regular file`, whose it is), the
 *   file closed; Error from the disk
 */
export async function openToRead(path: string): Promise<OpenFile | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(path, READ);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return checked(handle);
}

// The open file, once it proved a regular file of this process's user; closed when it did not.
async function checked(handle: FileHandle): Promise<OpenFile> {
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new Error('not a regular file');
    const foreign = foreignOwner(stats);
    if (foreign) throw new Error(foreign);
    return { handle, stats };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Sets the mode of a file of this process's user to 0600 unless it is
 * already (a file left by an older version, or made by hand, may be 0644).
 * @throws Error from the disk, when the file system refuses the change
 */
export async function keepToOwner({ handle, stats }: OpenFile): Promise<void> {
  if ((stats.mode & 0o777) !== OWNER_ONLY) await handle.chmod(OWNER_ONLY);
}

/**
 * Opens a log for appending (read and write, every write at the end): a new
 * file is created at 0600; a file already there (never a symbolic link) is
 * checked as `openToRead()` does and set to 0600 before it is returned, so
 * before any write.
 * @throws Error saying what is wrong, the file closed; Error from the disk
 *   (ELOOP for a symbolic link)
 */
export async function openToAppend(path: string): Promise<FileHandle> {
  try {
    return await open(path, CREATE, OWNER_ONLY);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  let handle: FileHandle;
  try {
    handle = await open(path, APPEND);
  } catch (error) {
    // O_NOFOLLOW's answer to a link: say so rather than "too many symbolic links".
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new Error('a symbolic link, which the store does not follow: it writes to files of its own only');
    throw error;
  }
  const file = await checked(handle);
  try {
    await keepToOwner(file);
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
}

/**
 * Creates the temporary file a new snapshot is written to, beside `file`:
 * a name no one can guess (`.<name>.<16 hex digits>.tmp`), created fresh at
 * 0600 (O_EXCL: an existing file or link of that name is never opened).
 * @throws Error from the disk
 */
export async function createTemporary(file: string): Promise<{ path: string; handle: FileHandle }> {
  const path = join(dirname(file), `.${basename(file)}.${randomBytes(8).toString('hex')}.tmp`);
  return { path, handle: await open(path, 'wx', OWNER_ONLY) };
}

/**
 * Removes the temporary files of snapshots that were never renamed into
 * place (a crash during a write), this process's user's only: the names
 * `createTemporary()` makes, and `.<name>.tmp`, the one earlier versions
 * used. They hold nothing the store needs, and may hold secret keys at a
 * mode older versions left open. Another user's file is left alone: it
 * holds nothing of the store's.
 * @returns how many were removed
 * @throws Error from the disk when the folder cannot be listed
 */
export async function removeTemporaries(file: string): Promise<number> {
  const prefix = `.${basename(file)}`;
  const folder = dirname(file);
  let removed = 0;
  for (const name of await readdir(folder)) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    const middle = name.slice(prefix.length, -'.tmp'.length);
    if (middle !== '' && !/^\.[0-9a-f]{16}$/.test(middle)) continue;
    const path = join(folder, name);
    // lstat: a link in that place is not ours to follow, nor a temporary file.
    const found = await lstat(path).catch(() => undefined);
    if (!found?.isFile() || foreignOwner(found)) continue;
    await rm(path, { force: true });
    removed += 1;
  }
  return removed;
}

/**
 * Why the folder of the store file `file` lets other users replace the
 * store's files, or undefined when it does not: it is writable by every user
 * without the sticky bit, or writable by its group while it belongs to
 * another user. A folder like /tmp (1777) is not reported: the sticky bit
 * keeps others from removing or renaming the store's files, and the checks
 * of each file keep their own files out. Undefined where processes have no
 * uid (Windows), and when the folder cannot be examined (opening the files
 * then says why).
 */
export async function folderWarning(file: string): Promise<string | undefined> {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  const folder = dirname(file);
  const found = await stat(folder).catch(() => undefined);
  if (!found || (found.mode & STICKY) !== 0) return undefined;
  const mode = (found.mode & 0o777).toString(8).padStart(4, '0');
  const advice = `other users can replace the store's files with their own; keep the store in a folder only you can write to, or one with the sticky bit (chmod +t ${folder})`;
  if ((found.mode & 0o002) !== 0) return `the folder ${folder} of the store file ${file} is writable by every user (mode ${mode}): ${advice}`;
  if ((found.mode & 0o020) !== 0 && found.uid !== uid) {
    return `the folder ${folder} of the store file ${file} is writable by its group (mode ${mode}) and belongs to user ${found.uid}: ${advice}`;
  }
  return undefined;
}
