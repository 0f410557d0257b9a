import { vitestGlobalSetup } from '../../../src/testing/index.js';

/**
 * A global set-up of one's own, as docs/testing.md shows it: the sandbox of
 * the run with fixtures loaded, here the files of RUNNER_FIXTURES
 * (comma-separated paths), set by test/testing/vitest-global-setup.test.ts.
 */
export default vitestGlobalSetup({ fixtures: (process.env.RUNNER_FIXTURES ?? '').split(',').filter(Boolean) });
