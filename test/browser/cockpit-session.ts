import type { Browser, Page } from 'playwright-core';
import { stageCockpitScene, type CockpitScene } from '../../scripts/cockpit-scene.mjs';
import type { Sandbox } from '../../src/index.js';
import { listeningSandbox } from '../support/sandbox.js';
import { launchBrowser } from './support.js';

/** The widths every check of the dashboard's views runs at: a desktop's and a phone's (issue's acceptance: 1440 and 360 px). */
export const COCKPIT_WIDTHS = [
  { width: 1440, height: 900 },
  { width: 360, height: 740 },
];

/** A listening sandbox with the cockpit scene staged (scripts/cockpit-scene.mjs) and Chromium, for the checks of every view. */
export interface CockpitSession {
  sandbox: Sandbox;
  scene: CockpitScene;
  browser: Browser;
  /** Opens `path` and waits until its view (`data-view`) has drawn its data (`data-ready`): a view reads several lists, slow on two loaded cores. */
  openView(page: Page, path: string, view: string): Promise<void>;
  /** Closes the browser, the sandbox and the scene's receiver. */
  close(): Promise<void>;
}

/** Starts a CockpitSession; call it in `beforeAll` with a minute to spare. */
export async function cockpitSession(): Promise<CockpitSession> {
  const sandbox = await listeningSandbox();
  const scene = await stageCockpitScene(sandbox.url);
  const browser = await launchBrowser();
  return {
    sandbox, scene, browser,
    openView: async (page, path, view) => {
      await page.goto(`${sandbox.url}${path}`);
      await page.waitForSelector(`main#view[data-view="${view}"][data-ready="true"]`, { timeout: 20_000 });
    },
    close: async () => {
      await browser.close();
      await sandbox.close();
      await scene.close();
    },
  };
}

/** How long the dashboard may take to show a change: the "within a second". */
export const LIVE_MS = 1000;

/** A Chromium page on payments' stories, counting its full loads (a view changed in place adds none) and keeping its script errors. */
export interface StoryPage {
  page: Page;
  /** how many documents the page has loaded so far */
  loads(): number;
  /** the page's uncaught script errors */
  errors: string[];
  /** Opens the story of `paymentReference` of `publicKey` and waits until it has drawn its data and reads the live events. */
  openStory(publicKey: string, paymentReference: string): Promise<void>;
  /** Waits, at most `ms`, until the open story shows its payment in `status`. */
  shows(status: string, ms?: number): Promise<unknown>;
}

/** Opens a StoryPage at 1280×900 in `browser` on the sandbox at `sandboxUrl`. */
export async function storyPage(browser: Browser, sandboxUrl: string): Promise<StoryPage> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(10_000);
  const errors: string[] = [];
  let loads = 0;
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('load', () => { loads += 1; });
  return {
    page, errors,
    loads: () => loads,
    openStory: async (publicKey, paymentReference) => {
      await page.goto(`${sandboxUrl}/__sandbox/dashboard/merchants/${publicKey}/payments/${paymentReference}`);
      await page.waitForSelector('main#view[data-view="payment"][data-ready="true"]');
      await page.waitForSelector('main#view[data-live="true"]');
    },
    shows: (status, ms = LIVE_MS) => page.waitForSelector(`main#view[data-status="${status}"][data-ready="true"]`, { timeout: ms }),
  };
}
