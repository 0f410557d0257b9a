import { createRequire } from 'node:module';
import type { AxeResults, ImpactValue } from 'axe-core';
import type { Page } from 'playwright-core';

/**
 * axe-core (the npm package, no browser extension) run in the page Chromium
 * shows, for the accessibility checks of the dashboard's views.
 */

const AXE_SOURCE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** The impacts a check fails on: what axe rates as blocking or seriously hindering someone. */
const FAILING: ReadonlySet<ImpactValue> = new Set(['serious', 'critical']);

/**
 * Runs axe-core's default rules on the whole of `page` as it is and returns
 * its serious and critical violations, one line per rule broken: the rule,
 * its impact, what it asks, the selectors of the nodes that break it (the
 * first five, and how many in all) and the help URL, so that a failing check
 * says what to fix where. An empty list is a pass.
 * The page must have been opened in a context made with `bypassCSP: true`:
 * axe is injected as a script of the page, which a self-only CSP refuses.
 * @throws Error when axe cannot be injected or run (the page's CSP was kept).
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Injected once per document: a second copy would redefine window.axe while a run may be going.
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE_SOURCE });
  const results = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<AxeResults> } }).axe;
    return axe.run(document, { resultTypes: ['violations'] });
  });
  return results.violations
    .filter((violation) => FAILING.has(violation.impact ?? null))
    .map((violation) => {
      const selectors = violation.nodes.map((node) => node.target.join(' '));
      const more = selectors.length > 5 ? ` and ${selectors.length - 5} more` : '';
      return `${violation.id} (${violation.impact}): ${violation.help} at ${selectors.slice(0, 5).join(', ')}${more} (${violation.helpUrl})`;
    });
}
