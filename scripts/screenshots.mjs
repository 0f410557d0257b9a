// `npm run screenshots`: pictures of every view of the dashboard, as the
// README's "Pages" section shows them. Starts the built sandbox (in memory, on
// a free loopback port), stages the cockpit scene (scripts/cockpit-scene.mjs,
// the one the accessibility and layout tests check), and drives Chromium
// (CHROMIUM_PATH, else /usr/bin/chromium) through each view at 1440 px (the
// whole page, down to 2400 px) and 360 px (the first screen), writing
// docs/screenshots/<view>-<width>.png. A rerun changes little: the same scene
// and seed, each picture taken once its view says it has drawn its data
// (`data-ready`); only the times on the merchants' clocks move.
// Usage: npm run screenshots
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { cockpitAddresses, stageCockpitScene } from './cockpit-scene.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = `${ROOT}docs/screenshots`;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** The receiver's port when free, so that the URL the notification views show stays the same from run to run. */
const RECEIVER_PORT = 47329;
/** A whole page is pictured down to this height at most: a picture of a long list says no more than its first screens, and weighs far more. */
const MAX_HEIGHT = 2400;
const WIDTHS = [
  { width: 1440, height: 900, fullPage: true },
  { width: 360, height: 740, fullPage: false },
];

/** A port free on loopback now, for the sandbox to take. */
async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts bin/payments-sandbox.js (dist/ must be built) and resolves with its base URL and the child once /__sandbox/health answers 200. */
async function startSandbox() {
  const port = await freePort();
  const child = spawn(process.execPath, [`${ROOT}bin/payments-sandbox.js`, '--in-memory', '--port', String(port), '--seed', '29', '--log-level', 'error'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  const until = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the sandbox exited (${child.exitCode}) before it served`);
    try {
      if ((await fetch(`${base}/__sandbox/health`)).status === 200) return { base, child };
    } catch {
      // Not listening yet.
    }
    if (Date.now() > until) {
      child.kill();
      throw new Error(`the sandbox did not answer ${base}/__sandbox/health within 30 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

if (!existsSync(CHROMIUM)) {
  console.error(`Chromium not found at ${CHROMIUM}: install Debian's package (apt-get install -y chromium) or set CHROMIUM_PATH`);
  process.exit(1);
}
await mkdir(OUT, { recursive: true });
const { base, child } = await startSandbox();
let scene;
let browser;
try {
  scene = await stageCockpitScene(base, { receiverPort: RECEIVER_PORT });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  let total = 0;
  for (const { width, height, fullPage } of WIDTHS) {
    const context = await browser.newContext({ viewport: { width, height } });
    const page = await context.newPage();
    // The pages load nothing from elsewhere; should one try, the picture shows it missing rather than waiting on the network.
    await page.route('**/*', (route) => (new URL(route.request().url()).hostname === '127.0.0.1' ? route.continue() : route.abort()));
    for (const { name, view, path, pictured } of cockpitAddresses()) {
      if (!pictured) continue;
      await page.goto(`${base}${path}`);
      await page.waitForSelector(`main#view[data-view="${view}"][data-ready="true"]`, { timeout: 15_000 }).catch((error) => {
        throw new Error(`${name} (${path}) at ${width} px never said it had drawn its data (data-ready): ${error.message}`);
      });
      const file = `${OUT}/${name}-${width}.png`;
      const height = await page.evaluate(() => document.documentElement.scrollHeight);
      const clip = fullPage && height > MAX_HEIGHT ? { x: 0, y: 0, width, height: MAX_HEIGHT } : undefined;
      await page.screenshot({ path: file, fullPage, clip, animations: 'disabled', caret: 'hide' });
      const { size } = await stat(file);
      total += size;
      console.log(`docs/screenshots/${name}-${width}.png  ${Math.round(size / 1024)} KiB`);
    }
    await context.close();
  }
  console.log(`${Math.round(total / 1024)} KiB in all`);
} finally {
  await browser?.close();
  child.kill();
  await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', resolve)));
  await scene?.close();
}
