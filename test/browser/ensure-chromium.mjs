// Run before the tests (npm's pretest): the browser tests drive Debian's
// Chromium. When it is missing and this is a Debian machine where we are
// root, install it; otherwise say how, and stop.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (!existsSync(chromium)) {
  const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
  if (!canInstall) {
    console.error(`The browser tests need Chromium at ${chromium}: run 'apt-get install -y chromium' as root, or set CHROMIUM_PATH.`);
    process.exit(1);
  }
  console.log(`Chromium is missing at ${chromium}: installing Debian's chromium package for the browser tests.`);
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
  execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}
