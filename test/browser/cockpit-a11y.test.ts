// @module-tag browser
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cockpitAddresses } from '../../scripts/cockpit-scene.mjs';
import { seriousViolations } from './axe.js';
import { COCKPIT_WIDTHS, cockpitSession, type CockpitSession } from './cockpit-session.js';

/**
 * The dashboard's views pass axe-core: each opened by its address over the
 * cockpit scene (scripts/cockpit-scene.mjs), at a desktop's width and a
 * phone's, without a serious or critical violation.
 */

let session: CockpitSession;

beforeAll(async () => {
  session = await cockpitSession();
}, 60_000);
afterAll(() => session?.close());

describe.each(COCKPIT_WIDTHS)('the dashboard at $width px', (viewport) => {
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    // The pages' CSP is self-only: axe is injected as a script of the page, so this context alone, made for the check, bypasses it.
    context = await session.browser.newContext({ viewport, bypassCSP: true });
    page = await context.newPage();
    // Nothing but the sandbox: a view that loaded something from elsewhere would not be the one a tester sees offline.
    await page.route('**/*', (route) => (new URL(route.request().url()).hostname === '127.0.0.1' ? route.continue() : route.abort()));
  });
  afterAll(() => context?.close());

  it.each(cockpitAddresses())('has no serious or critical axe violation on $name', async ({ name, view, path }) => {
    await session.openView(page, path, view);
    expect(await seriousViolations(page), `${name} (${path}) at ${viewport.width} px`).toEqual([]);
  }, 45_000);
});
