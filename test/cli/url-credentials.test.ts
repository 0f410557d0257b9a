import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freePort, run, START_WITHIN, stopAll, TIMEOUT, within } from '../support/process.js';

/**
 * A `--url` with a user and password (README, "Security"): the sub-commands
 * that take one print it without its credentials, whatever goes wrong.
 */

const PASSWORD = 's3cretpw';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payments-sandbox-cli-url-'));
  // A file to load, so that `snapshot load` gets as far as the sandbox.
  await writeFile(join(dir, 'snapshot.json'), '{}');
});
afterEach(async () => {
  await stopAll();
  await rm(dir, { recursive: true, force: true });
});

// Nothing listens there: the port was free a moment ago (filled in each test).
const COMMANDS: Array<[string, (url: string, file: string) => string[]]> = [
  ['snapshot save', (url, file) => ['snapshot', 'save', file, '--url', url]],
  ['snapshot load', (url, file) => ['snapshot', 'load', file, '--url', url]],
  ['trigger', (url) => ['trigger', 'transaction', '--reference', 'REF-1', '--url', url]],
  // An argument refused before anything is sent: commander names its value.
  ['snapshot save, given no http URL', (url, file) => ['snapshot', 'save', file, '--url', url.replace(/^http/, 'ftp')]],
];

describe('a --url with credentials', () => {
  it.each(COMMANDS)('is never printed with its password by %s, which fails', { timeout: TIMEOUT }, async (what, args) => {
    const url = `http://user:${PASSWORD}@127.0.0.1:${await freePort()}/`;
    const ran = run(args(url, join(dir, 'snapshot.json')));
    const exit = await within(ran.closed, START_WITHIN, what);
    expect(exit.code).not.toBe(0);
    expect(ran.stderr()).toContain('***@127.0.0.1');
    expect(ran.stdout() + ran.stderr()).not.toContain(PASSWORD);
  });
});
