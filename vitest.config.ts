import { defineConfig } from 'vitest/config';
import { BROWSER_TAG, CHROMIUM, browserTestsSkipped } from './test/browser/chromium.js';

// The browser tests need Chromium. A contributor without it still runs every
// other test, and the run ends saying which browser tests it skipped and how
// to run them; CI never skips them, so a missing browser fails there.
export default defineConfig({
  test: {
    tags: [
      {
        name: BROWSER_TAG,
        description: `drives Chromium (${CHROMIUM}); skipped when it is missing, except in CI`,
        skip: browserTestsSkipped(),
      },
    ],
    globalSetup: ['test/browser/skipped-notice.ts'],
  },
});
