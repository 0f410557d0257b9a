// @module-tag browser
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cockpitAddresses } from '../../scripts/cockpit-scene.mjs';
import { COCKPIT_WIDTHS, cockpitSession, type CockpitSession } from './cockpit-session.js';

/**
 * The dashboard's tables read at a desktop's width and a phone's: on every
 * view over the cockpit scene (scripts/cockpit-scene.mjs), no cell that holds
 * a code, state, status, amount, method, time, key or reference (marked
 * `data-one-line`) breaks its text over two lines, no word of any table cell
 * (or description list's value) is broken over two, and nothing is wider
 * than the window but inside a wrapper that scrolls sideways.
 */

let session: CockpitSession;

beforeAll(async () => {
  session = await cockpitSession();
}, 60_000);
afterAll(() => session?.close());

/**
 * The text of each shown `data-one-line` cell that lays out on more than one
 * line, with its number of lines. A line is a group of the rectangles of the
 * cell's text (one per line box each text node spans) that overlap
 * vertically: unlike comparing tops, this holds with a smaller font or a
 * button beside the text on the same line.
 */
function cellsOnSeveralLines(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const broken: string[] = [];
    for (const cell of document.querySelectorAll('[data-one-line]')) {
      const rects: DOMRect[] = [];
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (!node.textContent?.trim()) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        rects.push(...[...range.getClientRects()].filter((rect) => rect.width > 0 && rect.height > 0));
      }
      // Lines, as vertical spans: a rectangle joins the line it overlaps by more than a pixel, or starts one.
      const lines: { top: number; bottom: number }[] = [];
      for (const rect of rects.sort((a, b) => a.top - b.top)) {
        const line = lines.find((span) => Math.min(span.bottom, rect.bottom) - Math.max(span.top, rect.top) > 1);
        if (line) {
          line.top = Math.min(line.top, rect.top);
          line.bottom = Math.max(line.bottom, rect.bottom);
        } else lines.push({ top: rect.top, bottom: rect.bottom });
      }
      if (lines.length > 1) broken.push(`"${cell.textContent?.trim().replace(/\s+/g, ' ')}" on ${lines.length} lines`);
    }
    return broken;
  });
}

/**
 * Each word (a run of letters, digits and underscores) of a table cell, or of
 * a description list's value (a table of two columns: a payment's fields),
 * that the layout breaks over two lines, with its cell's text: a cell of prose
 * may wrap between words, never inside one. A word's rectangles lie on one
 * line unless it was broken. A block of code (`pre`: a body as sent) is left out:
 * it keeps its lines as they are and may wrap a long one anywhere.
 */
function wordsBrokenInCells(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const broken: string[] = [];
    for (const cell of document.querySelectorAll('td, th, dd')) {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (node.parentElement?.closest('pre')) continue;
        for (const word of (node.textContent ?? '').matchAll(/[\p{L}\p{N}_]{2,}/gu)) {
          const range = document.createRange();
          range.setStart(node, word.index!);
          range.setEnd(node, word.index! + word[0].length);
          const rects = [...range.getClientRects()].filter((rect) => rect.width > 0 && rect.height > 0);
          // Two rectangles of one word that do not overlap vertically sit on two lines.
          if (rects.some((rect) => rects.some((other) => Math.min(rect.bottom, other.bottom) - Math.max(rect.top, other.top) <= 1))) {
            broken.push(`"${word[0]}" in "${cell.textContent?.trim().replace(/\s+/g, ' ').slice(0, 60)}"`);
          }
        }
      }
    }
    return broken;
  });
}

/**
 * Whether the page itself scrolls sideways, and each shown element whose right
 * edge passes the window's outside an ancestor that scrolls sideways (a
 * table's wrapper) or shortens its text with an ellipsis, named by its tag, id,
 * classes and some text. An ancestor that merely hides what passes it does not
 * excuse it: what it hides is cut off, not readable. (That ancestor, when it
 * too is wider than the window, is named for itself.)
 */
function tooWide(page: Page): Promise<{ pageScrolls: boolean; elements: string[] }> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const contained = (element: Element): boolean => {
      for (let parent = element.parentElement; parent && parent !== document.body; parent = parent.parentElement) {
        const style = getComputedStyle(parent);
        if (style.overflowX === 'auto' || style.overflowX === 'scroll') return true;
        if ((style.overflowX === 'hidden' || style.overflowX === 'clip') && style.textOverflow === 'ellipsis') return true;
      }
      return false;
    };
    const elements: string[] = [];
    for (const element of document.body.querySelectorAll('*')) {
      const rect = element.getBoundingClientRect();
      if (rect.width === 0 || rect.height === 0 || rect.right <= width + 1 || contained(element)) continue;
      const name = `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''}${[...element.classList].map((c) => `.${c}`).join('')}`;
      elements.push(`${name} "${(element.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40)}" ends at ${Math.round(rect.right)} px`);
    }
    return { pageScrolls: document.documentElement.scrollWidth > width + 1, elements };
  });
}

describe.each(COCKPIT_WIDTHS)('the dashboard at $width px', (viewport) => {
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    context = await session.browser.newContext({ viewport });
    page = await context.newPage();
    await page.route('**/*', (route) => (new URL(route.request().url()).hostname === '127.0.0.1' ? route.continue() : route.abort()));
  });
  afterAll(() => context?.close());

  it.each(cockpitAddresses())('keeps one-line cells and words on one line and fits the window on $name', async ({ name, view, path }) => {
    await session.openView(page, path, view);
    const where = `${name} (${path}) at ${viewport.width} px`;
    if (view !== 'not-found') expect(await page.locator('[data-one-line]').count(), `${where}: cells marked data-one-line (none: an empty list, or a list the sandbox refused?)`).toBeGreaterThan(0);
    expect(await cellsOnSeveralLines(page), `${where}: cells broken over lines`).toEqual([]);
    expect(await wordsBrokenInCells(page), `${where}: words broken inside table cells`).toEqual([]);
    const wide = await tooWide(page);
    expect(wide.elements, `${where}: wider than the window outside a scrolling wrapper`).toEqual([]);
    expect(wide.pageScrolls, `${where}: the page scrolls sideways`).toBe(false);
  }, 45_000);
});
