/**
 * `payments-sandbox snapshot save FILE` and `snapshot load FILE`: take a
 * running sandbox's state into a file, or put a file's in its place, through
 * the control API (GET and PUT /__sandbox/snapshot; docs/known-states.md).
 * Streams both ways: neither the sandbox's answer nor the file is held whole
 * in this process. Loads nothing of the server.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { redactUrlCredentials } from '../redaction/url-credentials.js';
import { controlRequest, type ControlTarget } from './control-request.js';

/** Where the sandbox is, and whose state. */
export interface SnapshotTarget extends ControlTarget {
  /** one merchant's state; absent: every merchant's */
  publicKey?: string;
}

/**
 * Writes the sandbox's snapshot to `file`: to a temporary file beside it,
 * renamed into place once whole, so a failed save leaves no half a snapshot.
 * The file is made readable by its owner alone: it holds the merchants' test secret keys.
 * @returns the line to print: the file and its size in bytes
 * @throws Error naming the sandbox's answer, or why it could not be reached or the file written
 */
export async function saveSnapshot(target: SnapshotTarget, file: string): Promise<string> {
  const response = await controlRequest(target, 'GET', pathOf(target));
  const partial = `${file}.partial`;
  try {
    await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), createWriteStream(partial, { mode: 0o600 }));
    await rename(partial, file);
  } catch (error) {
    await rm(partial, { force: true });
    throw new Error(`cannot write ${file}: ${(error as Error).message}`);
  }
  return `snapshot saved to ${file} (${(await stat(file)).size} bytes)`;
}

/**
 * Sends `file` to the sandbox as its new state (the whole state, or the merchant's).
 * @returns the line to print: what was loaded
 * @throws Error naming the sandbox's answer (a 400 names the field), or why the file could not be read
 */
export async function loadSnapshot(target: SnapshotTarget, file: string): Promise<string> {
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const stream = Readable.toWeb(createReadStream(file)) as unknown as NonNullable<RequestInit['body']>;
  const response = await controlRequest(target, 'PUT', pathOf(target), { stream, length: size });
  const answer = (await response.json()) as { loaded: string; payments: number };
  return `snapshot ${file} loaded into ${redactUrlCredentials(target.origin)} (${answer.loaded === 'all' ? 'every merchant' : answer.loaded}: ${answer.payments} payments)`;
}

function pathOf(target: SnapshotTarget): string {
  return target.publicKey === undefined ? '/snapshot' : `/snapshot?publicKey=${encodeURIComponent(target.publicKey)}`;
}
