// @module-tag browser
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cockpitAddresses, stageCockpitScene, type CockpitScene } from '../../scripts/cockpit-scene.mjs';
import type { Sandbox } from '../../src/index.js';
import { listeningSandbox } from '../support/sandbox.js';
import { seriousViolations } from './axe.js';
import { launchBrowser } from './support.js';

/**
 * The dashboard's views pass axe-core: each opened by its address over the
 * cockpit scene (scripts/cockpit-scene.mjs), at a desktop's width and a
 * phone's, without a serious or critical violation.
 */

const WIDTHS = [
  { width: 1440, height: 900 },
  { width: 360, height: 740 },
];

let sandbox: Sandbox;
let scene: CockpitScene;
let browser: Browser;

beforeAll(async () => {
  sandbox = await listeningSandbox();
  scene = await stageCockpitScene(sandbox.url);
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
  await scene?.close();
});

/** Opens `path` and waits until its view has drawn its data (a view reads several lists: slow on two loaded cores). */
async function openView(page: Page, path: string, view: string): Promise<void> {
  await page.goto(`${sandbox.url}${path}`);
  await page.waitForSelector(`main#view[data-view="${view}"][data-ready="true"]`, { timeout: 20_000 });
}

describe.each(WIDTHS)('the dashboard at $width px', (viewport) => {
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    // The pages' CSP is self-only: axe is injected as a script of the page, so this context alone, made for the check, bypasses it.
    context = await browser.newContext({ viewport, bypassCSP: true });
    page = await context.newPage();
    // Nothing but the sandbox: a view that loaded something from elsewhere would not be the one a tester sees offline.
    await page.route('**/*', (route) => (new URL(route.request().url()).hostname === '127.0.0.1' ? route.continue() : route.abort()));
  });
  afterAll(() => context?.close());

  it.each(cockpitAddresses())('has no serious or critical axe violation on $name', async ({ name, view, path }) => {
    await openView(page, path, view);
    expect(await seriousViolations(page), `${name} (${path}) at ${viewport.width} px`).toEqual([]);
  }, 45_000);
});
