import { accessSync, constants, statSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The folders the command line names, checked before the sandbox starts, so
 * that a mistake is one line naming the path and what to do, not a stack
 * trace of the first file operation that trips on it
 * (docs/decisions.md#d68-start-up-refusals). Each check reads the file
 * system and changes nothing: a missing folder is never created.
 */

/** How a path reached the command line, to name it in a message: a flag, its environment variable, or the default. */
export type Given = { flag: string } | { variable: string } | 'default';

// `--scenarios /x` or `SANDBOX_SCENARIOS=/x`, as the user wrote it.
const named = (given: Given, path: string): string =>
  given === 'default' ? path : 'flag' in given ? `${given.flag} ${path}` : `${given.variable}=${path}`;

/**
 * Why `folder` cannot be read as a folder of scenario files (`--scenarios`),
 * in one line with the fix; undefined when it can.
 * @param folder an absolute path
 */
export function scenarioFolderProblem(folder: string, given: Given): string | undefined {
  const what = named(given, folder);
  const found = inspect(folder);
  if (found === 'missing') return `${what}: the scenario folder ${folder} does not exist: create it, or name the folder that holds your scenario files`;
  if (found === 'file') return `${what}: ${folder} is a file, not a folder: name the folder that holds it (${dirname(folder)})`;
  if (found === 'path-through-file') return `${what}: ${folder} is not a folder (a part of the path is a file): name the folder that holds your scenario files`;
  if (typeof found === 'object') return `${what}: cannot read the scenario folder ${folder} (${found.code}): name another folder`;
  const denied = deniedCode(folder, constants.R_OK | constants.X_OK);
  if (denied) return `${what}: the scenario folder ${folder} cannot be read by this user (${denied}): make it readable, or name another folder`;
  return undefined;
}

/**
 * Why the store file `file` cannot be kept where it is named (`--data`, or
 * the default in the working directory), in one line with the fix: its
 * folder is missing, is no folder, or is not writable by this user; or
 * `file` is a folder. Undefined when the store can try: what the file holds
 * is the store's to judge.
 * @param file an absolute path
 */
export function dataFolderProblem(file: string, given: Given): string | undefined {
  const folder = dirname(file);
  const choose = 'choose another store file with --data <file>, or keep no file with --in-memory';
  if (given === 'default') {
    const found = inspect(folder);
    const denied = found === 'folder' ? deniedCode(folder, constants.W_OK | constants.X_OK) : codeOf(found);
    if (denied) return `the store file is kept in the working directory by default, and ${folder} is not writable by this user (${denied}): run from a writable folder, ${choose}`;
  } else {
    const what = named(given, file);
    const found = inspect(folder);
    if (found === 'missing') return `${what}: the folder ${folder} does not exist (it is not created): create it (mkdir -p ${quoted(folder)}), or ${choose}`;
    if (found === 'file' || found === 'path-through-file') return `${what}: ${folder} is not a folder: ${choose}`;
    if (typeof found === 'object') return `${what}: cannot use the folder ${folder} (${found.code}): ${choose}`;
    const denied = deniedCode(folder, constants.W_OK | constants.X_OK);
    if (denied) return `${what}: the folder ${folder} is not writable by this user (${denied}): make it writable, or ${choose}`;
  }
  if (inspect(file) === 'folder') return `${named(given, file)}: ${file} is a folder: name a file in it (${file}/payments-sandbox.json), or keep no file with --in-memory`;
  return undefined;
}

/**
 * One line for an error of the file system that reached the command line
 * anyway (`EACCES: permission denied, open '/x'`): the operation, the path
 * and the code. Undefined for any other error, whose stack is worth seeing.
 */
export function fileSystemProblem(error: unknown): string | undefined {
  const { code, syscall, path } = (error ?? {}) as NodeJS.ErrnoException;
  if (typeof code !== 'string' || typeof path !== 'string') return undefined;
  // Node writes `CODE: description, syscall 'path'`: the description is the middle.
  const description = /^[A-Z]+: ([^,]+),/.exec((error as Error).message)?.[1];
  return `cannot ${syscall ?? 'use'} ${path}: ${description ? `${description} (${code})` : code}`;
}

type Found = 'folder' | 'file' | 'missing' | 'path-through-file' | { code: string };

function inspect(path: string): Found {
  try {
    return statSync(path).isDirectory() ? 'folder' : 'file';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
    return code === 'ENOENT' ? 'missing' : code === 'ENOTDIR' ? 'path-through-file' : { code };
  }
}

// The error code a finding stands for, as the system would name it.
function codeOf(found: Exclude<Found, 'folder'>): string {
  return typeof found === 'object' ? found.code : found === 'missing' ? 'ENOENT' : 'ENOTDIR';
}

// access(2) answers for this process's user, and says EROFS for a read-only file system whoever asks.
function deniedCode(path: string, mode: number): string | undefined {
  try {
    accessSync(path, mode);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? 'EACCES';
  }
}

// A path as a POSIX shell reads it back.
function quoted(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}
