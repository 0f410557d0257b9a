import { describe, expect, it } from 'vitest';
import { connectToSandbox, jestGlobalTeardown } from '../../../src/testing/index.js';

/**
 * payments-sandbox/testing where no sandbox runs: what it says, and what it
 * leaves alone. With a sandbox, over HTTP as a suite uses it:
 * test/testing/control.test.ts and test/testing/jest.test.ts.
 */

describe('connectToSandbox', () => {
  it('says how to name a sandbox when SANDBOX_URL is not set', () => {
    expect(() => connectToSandbox({})).toThrow(/SANDBOX_URL is not set: .*global set-up/);
  });
});

describe('the Jest global teardown', () => {
  it('does nothing when no sandbox runs', async () => {
    await expect(jestGlobalTeardown()).resolves.toBeUndefined();
  });
});
