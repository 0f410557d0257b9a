import { existsSync } from 'node:fs';

/**
 * Whether this run can drive Chromium, read by vitest.config.ts (to skip the
 * browser tests), by the run's end notice and by the harness that launches it.
 * A contributor's machine need not have Chromium: there the browser tests are
 * skipped and the run says so. CI must have it: there a missing browser fails
 * the browser tests, so that they can never pass by not running.
 */

/** Where Chromium is: CHROMIUM_PATH, else Debian's package. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The vitest tag each browser test file carries (`// @module-tag browser`), which skips it when Chromium is missing outside CI. */
export const BROWSER_TAG = 'browser';

/** Whether this is a CI run: `CI` set to anything but empty, `0` or `false`, as CI services set it. */
export function isCI(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.CI?.trim().toLowerCase();
  return value !== undefined && value !== '' && value !== '0' && value !== 'false';
}

/** Whether the browser tests are skipped in this run: Chromium is missing and this is not CI. */
export function browserTestsSkipped(): boolean {
  return !existsSync(CHROMIUM) && !isCI();
}

/**
 * The one line that ends a run whose browser tests were skipped: which files,
 * why, and the command that runs them. `files` are paths relative to the
 * repository, such as `test/browser/checkout.test.ts`.
 */
export function skippedBrowserTestsLine(files: readonly string[]): string {
  const names = files.map((file) => file.replace(/^test\/browser\//, '').replace(/\.test\.ts$/, '')).sort();
  const which = names.length === 1 ? `test/browser/${names[0]}.test.ts` : `test/browser/{${names.join(',')}}.test.ts`;
  return `Skipped the browser tests, no Chromium at ${CHROMIUM}: ${which}. Run them with CHROMIUM_PATH=/path/to/chromium npm test`;
}
