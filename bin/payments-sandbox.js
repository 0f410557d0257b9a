#!/usr/bin/env node
// The executable parses nothing itself: the CLI module owns argv.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
// The package is built when it is packed, never by an install script. A clone after
// `npm ci` has no dist/ yet: the first run builds it, as `npm run build` would.
if (!existsSync(`${root}dist/cli/main.js`) && existsSync(`${root}src/cli/main.ts`)) {
  console.error('payments-sandbox: building dist/ from src/ (the first run in a clone)');
  const build = (args) => execFileSync(process.execPath, args, { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  build([`${root}scripts/operation-ids.mjs`]);
  build([`${root}node_modules/typescript/bin/tsc`, '-p', 'tsconfig.json']);
  build([`${root}dist/prepare.js`]);
}
const { main } = await import('../dist/cli/main.js');
main(process.argv);
