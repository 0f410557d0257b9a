#!/usr/bin/env node
// The executable parses nothing itself: the CLI module owns argv.
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const BUILT = `${root}dist/cli/main.js`;
/** The sources of the build beside src/: the documents the operation list and validators come from, and the script that writes the list. */
const SOURCES = ['openapi/payments-api.yaml', 'openapi/control-api.yaml', 'scripts/operation-ids.mjs'];
/** A build lock older than this was left by a build that was killed. */
const LOCK_STALE_MS = 120_000;

// The package is built when it is packed, never by an install script. In a clone, the first run builds dist/,
// and a run finding a source newer than the build (a `git pull`, an edit) builds it again: running an old dist/
// without a word is worse than the seconds tsc takes (docs/decisions.md#d70-stale-dist).
// An installed package has no src/cli/: nothing is looked at.
if (existsSync(`${root}src/cli/main.ts`)) {
  const changed = staleBecause();
  if (changed !== undefined) build(changed);
}
const { main } = await import('../dist/cli/main.js');
main(process.argv);

/** Why dist/ must be built: '' when it was never built, else the first source found newer than dist/cli/main.js (which tsc writes at every build); undefined when fresh. */
function staleBecause() {
  const built = mtimeOf(BUILT);
  if (built === undefined) return '';
  return changedIn(`${root}src`, 'src', built) ?? SOURCES.find((path) => (mtimeOf(`${root}${path}`) ?? 0) > built);
}

// The first file or folder under `dir` changed after `time`; a folder's time moves when a file in it is added, removed or renamed.
function changedIn(dir, name, time) {
  if ((mtimeOf(dir) ?? 0) > time) return `${name}/`;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    const found = entry.isDirectory() ? changedIn(path, `${name}/${entry.name}`, time) : (mtimeOf(path) ?? 0) > time ? `${name}/${entry.name}` : undefined;
    if (found !== undefined) return found;
  }
  return undefined;
}

function mtimeOf(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

// One build at a time: sandboxes started together (a test run) would otherwise compile over each other, and one
// could load a file another is writing. The others wait for the lock, then find dist/ fresh.
function build(changed) {
  const lock = `${root}dist.building`;
  const since = Date.now();
  let waited = false;
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx'));
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') {
        // A clone this user cannot write to: its dist/ is what there is.
        if (!existsSync(BUILT)) fail(`cannot build dist/ in ${root} (${error.code}): run \`npm run build\` as a user who can write there`);
        console.error(`payments-sandbox: dist/ is older than ${changed} but cannot be rebuilt in ${root} (${error.code}): running it as it is`);
        return;
      }
      if (Date.now() - (mtimeOf(lock) ?? Date.now()) > LOCK_STALE_MS) unlinkSync(lock);
      else if (Date.now() - since > 2 * LOCK_STALE_MS) fail(`${lock} has been held for minutes: remove it if no build is running`);
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
      waited = true;
    }
  }
  let failed = false;
  try {
    // Built by the process this one waited for.
    if (waited && staleBecause() === undefined) return;
    console.error(`payments-sandbox: ${changed === '' ? 'building dist/ from src/ (the first run in a clone)' : `rebuilding dist/: ${changed} changed since the last build`}`);
    // tsc writes its errors on stdout: they go to stderr, as this process's stdout is the sandbox's.
    const step = (args) => execFileSync(process.execPath, args, { cwd: root, stdio: ['ignore', 2, 2] });
    step([`${root}scripts/operation-ids.mjs`]);
    step([`${root}node_modules/typescript/bin/tsc`, '-p', 'tsconfig.json']);
    step([`${root}dist/prepare.js`]);
  } catch {
    failed = true;
  } finally {
    unlinkSync(lock);
  }
  if (failed) fail('the build failed (its errors are above): fix them and start again, or run `npm run build`');
}

function fail(message) {
  console.error(`payments-sandbox: ${message}`);
  process.exit(1);
}
