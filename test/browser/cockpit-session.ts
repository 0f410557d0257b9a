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
