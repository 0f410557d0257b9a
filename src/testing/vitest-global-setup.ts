/**
 * `payments-sandbox/testing/vitest-global-setup`: a Vitest global set-up
 * with the default options, for `test.globalSetup` (docs/testing.md): one
 * sandbox for the run, on a free port, in memory, as `vitestGlobalSetup()`
 * describes. For fixtures or other options, a file of one's own exports
 * `vitestGlobalSetup({ fixtures: [...] })` as its default.
 */
import { vitestGlobalSetup } from './index.js';

export default vitestGlobalSetup();
