/**
 * `payments-sandbox/testing/jest-global-setup`: a Jest global set-up with the
 * default options, for `globalSetup` (docs/testing.md): one sandbox for the
 * run, on a free port, in memory, as `jestGlobalSetup()` describes; pair it
 * with `payments-sandbox/testing/jest-global-teardown`. For fixtures or
 * other options, a file of one's own exports `jestGlobalSetup({ fixtures:
 * [...] })` as its default.
 */
import { jestGlobalSetup } from './index.js';

export default jestGlobalSetup();
