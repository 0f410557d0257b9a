import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, START_WITHIN, TIMEOUT, within } from '../support/process.js';

/**
 * bin/payments-sandbox.js in a clone: it builds dist/ when there is none, and
 * again when a source is newer than the build, saying so in one line
 * (docs/decisions.md#d70-stale-dist); in an installed package it looks at
 * nothing. The executable runs here in a package of its own whose build steps
 * are small scripts that write down that they ran, so that the repository's
 * own dist/, which other tests are using, is never rebuilt under them.
 */

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'payments-sandbox-stale-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function put(relative: string, text: string): void {
  mkdirSync(dirname(join(root, relative)), { recursive: true });
  writeFileSync(join(root, relative), text);
}

// The build steps bin/ runs, each writing its name to steps.log; tsc writes dist/ (a main that says it ran) and
// takes a moment, so that two starts at once overlap. tsc fails while src/broken exists, as it would on a type error.
const STEP = (name: string) => `import { appendFileSync } from 'node:fs';\nappendFileSync(new URL('${'../'.repeat(name === 'tsc' ? 3 : 1)}steps.log', import.meta.url), '${name}\\n');\n`;
const TSC = `${STEP('tsc')}import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
if (existsSync('src/broken')) { console.log('src/broken.ts(1,1): error TS2304: Cannot find name "oops".'); process.exit(2); }
const until = Date.now() + 400; while (Date.now() < until);
mkdirSync('dist/cli', { recursive: true });
writeFileSync('dist/cli/main.js', 'export function main() { console.log("main ran"); }\\n');
writeFileSync('dist/prepare.js', ${JSON.stringify(STEP('prepare'))});
`;

/** A clone: bin/, src/, the sources beside it, and stand-ins for the build's steps; no dist/ yet. */
function clone(): void {
  put('package.json', JSON.stringify({ name: 'payments-sandbox', type: 'module' }));
  mkdirSync(join(root, 'bin'));
  copyFileSync(BIN, join(root, 'bin/payments-sandbox.js'));
  put('src/cli/main.ts', 'export {};\n');
  put('src/api/core.ts', 'export {};\n');
  put('src/api/old.ts', 'export {};\n');
  put('openapi/payments-api.yaml', 'openapi: 3.1.0\n');
  put('openapi/control-api.yaml', 'openapi: 3.1.0\n');
  put('scripts/operation-ids.mjs', STEP('operation-ids'));
  put('node_modules/typescript/bin/tsc', TSC);
}

/** Every file and folder of the sources a minute in the past, and the build half a minute: a build newer than its sources. */
function settle(): void {
  const now = Date.now() / 1000;
  const past = (path: string): void => {
    utimesSync(path, now - 60, now - 60);
    if (statSync(path).isDirectory()) for (const name of readdirSync(path)) past(join(path, name));
  };
  for (const relative of ['src', 'openapi', 'scripts']) past(join(root, relative));
  utimesSync(join(root, 'dist/cli/main.js'), now - 30, now - 30);
}

async function start(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(root, 'bin/payments-sandbox.js'), '--version'], { cwd: root, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await within(new Promise<number | null>((done) => child.once('close', (exit) => done(exit))), START_WITHIN, 'the start');
  return { code, stdout, stderr };
}

/** The steps run since the last call. */
function steps(): string[] {
  const log = join(root, 'steps.log');
  if (!existsSync(log)) return [];
  const ran = readFileSync(log, 'utf8').split('\n').filter((line) => line !== '');
  rmSync(log);
  return ran;
}

describe('bin/payments-sandbox.js in a clone', () => {
  it('builds dist/ on the first run, then starts it as it is while nothing changed', { timeout: TIMEOUT }, async () => {
    clone();
    expect(await start()).toEqual({ code: 0, stdout: 'main ran\n', stderr: 'payments-sandbox: building dist/ from src/ (the first run in a clone)\n' });
    expect(steps()).toEqual(['operation-ids', 'tsc', 'prepare']);
    settle();
    expect(await start()).toEqual({ code: 0, stdout: 'main ran\n', stderr: '' });
    expect(steps()).toEqual([]);
  });

  it('rebuilds after an edit, a new or removed file, or a newer OpenAPI document, naming what changed', { timeout: TIMEOUT }, async () => {
    clone();
    await start();
    steps();
    const changes: Array<[string, () => void, string]> = [
      ['an edit', () => writeFileSync(join(root, 'src/api/core.ts'), 'export const edited = 1;\n'), 'src/api/core.ts'],
      ['a removed file', () => rmSync(join(root, 'src/api/old.ts')), 'src/api/'],
      ['a new folder', () => put('src/agenda/new.ts', 'export {};\n'), 'src/'],
      ['a newer document', () => writeFileSync(join(root, 'openapi/payments-api.yaml'), 'openapi: 3.1.0\ninfo: {}\n'), 'openapi/payments-api.yaml'],
      ['a newer script', () => writeFileSync(join(root, 'scripts/operation-ids.mjs'), `${STEP('operation-ids')}// edited\n`), 'scripts/operation-ids.mjs'],
    ];
    for (const [what, change, named] of changes) {
      settle();
      change();
      expect(await start(), what).toEqual({ code: 0, stdout: 'main ran\n', stderr: `payments-sandbox: rebuilding dist/: ${named} changed since the last build\n` });
      expect(steps(), what).toEqual(['operation-ids', 'tsc', 'prepare']);
      expect((await start()).stderr, `${what}, then a second start`).toBe('');
      expect(steps()).toEqual([]);
    }
  });

  it('builds once when several start together', { timeout: TIMEOUT }, async () => {
    clone();
    const all = await Promise.all([start(), start(), start()]);
    for (const one of all) expect(one.code, one.stderr).toBe(0);
    expect(steps()).toEqual(['operation-ids', 'tsc', 'prepare']);
    expect(all.filter((one) => one.stderr !== '')).toHaveLength(1);
    expect(existsSync(join(root, 'dist.building'))).toBe(false);
  });

  it('a build that fails: the compiler\'s errors on stderr, one line to end, exit 1, no lock left', { timeout: TIMEOUT }, async () => {
    clone();
    put('src/broken', '');
    const { code, stdout, stderr } = await start();
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr.split('\n')).toEqual([
      'payments-sandbox: building dist/ from src/ (the first run in a clone)',
      'src/broken.ts(1,1): error TS2304: Cannot find name "oops".',
      'payments-sandbox: the build failed (its errors are above): fix them and start again, or run `npm run build`',
      '',
    ]);
    expect(existsSync(join(root, 'dist.building'))).toBe(false);
  });
});

describe('bin/payments-sandbox.js in an installed package', () => {
  it('looks at no source: newer files under src/pages/assets rebuild nothing', { timeout: TIMEOUT }, async () => {
    clone();
    await start();
    rmSync(join(root, 'src/cli'), { recursive: true });
    rmSync(join(root, 'src/api'), { recursive: true });
    settle();
    put('src/pages/assets/app.css', 'body {}\n');
    steps();
    expect(await start()).toEqual({ code: 0, stdout: 'main ran\n', stderr: '' });
    expect(steps()).toEqual([]);
  });
});
