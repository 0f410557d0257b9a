/**
 * `payments-sandbox/testing/jest-global-teardown`: the Jest global teardown
 * that stops the sandbox of a `jestGlobalSetup()` set-up (docs/testing.md).
 */
export { jestGlobalTeardown as default } from './index.js';
