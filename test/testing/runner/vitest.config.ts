import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * A test run of its own, started by test/testing/vitest-global-setup.test.ts
 * (`vitest run --config` this file): the Vitest global set-ups of
 * payments-sandbox/testing as a user's config names them. RUNNER_SETUP picks
 * one: `packaged`, the package's ready-made module named by its export
 * (`payments-sandbox/testing/vitest-global-setup`, from the built dist/), or
 * `fixtures`, global-setup.ts, which loads the files of RUNNER_FIXTURES.
 * Its checks are *.check.ts: the outer e2e project does not run them.
 */
const setup = process.env.RUNNER_SETUP === 'fixtures' ? fileURLToPath(new URL('./global-setup.ts', import.meta.url)) : 'payments-sandbox/testing/vitest-global-setup';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['*.check.ts'],
    globalSetup: [setup],
  },
});
