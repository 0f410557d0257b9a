// @module-tag browser
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cockpitAddresses } from '../../scripts/cockpit-scene.mjs';
import { cockpitSession, type CockpitSession } from './cockpit-session.js';

/**
 * What a first look at the dashboard tripped over, over the cockpit scene
 * (scripts/cockpit-scene.mjs): the header stays one line at 1440 px with a
 * payment's crumbs; no filter's placeholder is cut off; the orders' pager
 * counts orders and says how many item rows the table shows; a table wider
 * than its box shows a shadow on the side it scrolls to; every page names an
 * icon, and /favicon.ico answers.
 */

let session: CockpitSession;

beforeAll(async () => {
  session = await cockpitSession();
}, 60_000);
afterAll(() => session?.close());

const WIDTHS = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
];

/** Each shown input whose placeholder needs more room than its box gives, with both widths. */
function cutPlaceholders(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const measure = document.createElement('canvas').getContext('2d')!;
    return [...document.querySelectorAll<HTMLInputElement>('input[placeholder]')].flatMap((input) => {
      if (!input.offsetParent) return [];
      const style = getComputedStyle(input);
      measure.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      const needed = measure.measureText(input.placeholder).width + parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
      return needed > input.clientWidth ? [`${input.name} "${input.placeholder}" needs ${Math.ceil(needed)} px, has ${input.clientWidth}`] : [];
    });
  });
}

describe.each(WIDTHS)('the dashboard at $width px', (viewport) => {
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    context = await session.browser.newContext({ viewport });
    page = await context.newPage();
    // Every <details> (the filters) open, so that its fields are measured too.
    await page.addInitScript(() => document.addEventListener('DOMContentLoaded', () => new MutationObserver(() => document.querySelectorAll('details:not([open])').forEach((details) => details.setAttribute('open', ''))).observe(document.body, { childList: true, subtree: true })));
  });
  afterAll(() => context?.close());

  it.each(cockpitAddresses())('cuts off no placeholder on $name', async ({ view, path }) => {
    await session.openView(page, path, view);
    expect(await cutPlaceholders(page)).toEqual([]);
  }, 45_000);

  it('shows a shadow on the side a wide table scrolls to', async () => {
    const merchant = cockpitAddresses().find((address) => address.name === 'merchant')!;
    await session.openView(page, merchant.path, merchant.view);
    const wrappers = await page.evaluate(() => [...document.querySelectorAll('.scroll')].map((wrapper) => {
      const style = getComputedStyle(wrapper);
      return { wide: wrapper.scrollWidth > wrapper.clientWidth + 1, shadows: (style.backgroundImage.match(/radial-gradient/g) ?? []).length, attachment: style.backgroundAttachment };
    }));
    expect(wrappers.length).toBeGreaterThan(0);
    // At 390 px the payments table is wider than its box; its wrapper, like every other, carries the two edge shadows and the covers that scroll with it.
    if (viewport.width === 390) expect(wrappers.some((wrapper) => wrapper.wide)).toBe(true);
    for (const wrapper of wrappers) expect(wrapper).toMatchObject({ shadows: 2, attachment: 'local, local, scroll, scroll' });
  }, 45_000);

  it('counts orders in the orders pager, with the item rows the table shows', async () => {
    const merchant = cockpitAddresses().find((address) => address.name === 'merchant')!;
    await session.openView(page, merchant.path, merchant.view);
    const rows = await page.locator('#orders tbody tr').count();
    expect(rows).toBeGreaterThan(1);
    await expect.poll(() => page.locator('nav.pager[data-list="orders"] span').textContent()).toMatch(new RegExp(`^orders 1–1 of 1, ${rows} item rows$`));
  }, 45_000);
});

describe('the dashboard\'s header at 1440 px', () => {
  it.each(cockpitAddresses().filter((address) => address.view === 'payment'))('stays one line with a payment\'s crumbs on $name', async ({ view, path }) => {
    const context = await session.browser.newContext({ viewport: { width: 1440, height: 900 } });
    try {
      const page = await context.newPage();
      await session.openView(page, path, view);
      // One line: every part of the bar spans some common height (their tops differ by their alignment only).
      const spans = await page.evaluate(() => [...document.querySelectorAll('.bar > *')].map((part) => [part.getBoundingClientRect().top, part.getBoundingClientRect().bottom]));
      expect(Math.max(...spans.map(([top]) => top!)), `the bar's parts: ${JSON.stringify(spans)}`).toBeLessThan(Math.min(...spans.map(([, bottom]) => bottom!)));
      expect(await page.evaluate(() => document.querySelector('.bar')!.scrollWidth <= document.querySelector('.bar')!.clientWidth)).toBe(true);
      // A crumb cut short keeps its whole value in its title.
      expect(await page.locator('.bar a[data-nav="payment"]').getAttribute('title')).toBe(decodeURIComponent(path.split('/').at(-1)!));
    } finally {
      await context.close();
    }
  }, 45_000);
});

describe('the icon', () => {
  it('is named by every page, and /favicon.ico answers with it', async () => {
    const { url } = session.sandbox;
    const context = await session.browser.newContext();
    try {
      const page = await context.newPage();
      const missing: string[] = [];
      page.on('response', (response) => {
        if (response.status() === 404) missing.push(response.url());
      });
      for (const path of ['/__sandbox/dashboard/', '/__sandbox/docs']) {
        await page.goto(`${url}${path}`);
        expect(await page.locator('link[rel="icon"]').getAttribute('href'), path).toBe('/pages/assets/favicon.svg');
      }
      const icon = await page.request.get(`${url}/favicon.ico`);
      expect(icon.status()).toBe(200);
      expect(icon.url()).toBe(`${url}/pages/assets/favicon.svg`);
      expect(icon.headers()['content-type']).toMatch(/^image\/svg\+xml/);
      expect(missing).toEqual([]);
    } finally {
      await context.close();
    }
  }, 45_000);
});
