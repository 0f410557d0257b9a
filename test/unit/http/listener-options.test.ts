import { describe, expect, it } from 'vitest';
import { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MAX_CONNECTIONS, isLoopback, startSandbox } from '../../../src/index.js';

/**
 * What a listener is started with, judged before anything listens: the
 * bounds on connections (README, "Security"), and which addresses are
 * loopback, where the control API needs no token. The connections
 * themselves: test/http/connections.test.ts; the warning of a sandbox open
 * to the network: test/cli/open-banner.test.ts.
 */

describe('the bounds as options', () => {
  it('default to 30 s and 2000, and refuse a bound that is no positive number', async () => {
    expect([DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MAX_CONNECTIONS]).toEqual([30_000, 2000]);
    // Refused before anything listens: `listen: false` keeps a regression from opening a port here.
    await expect(startSandbox({ listen: false, idleTimeoutMs: 0 })).rejects.toThrow(/idleTimeoutMs/);
    await expect(startSandbox({ listen: false, maxConnections: 1.5 })).rejects.toThrow(/maxConnections/);
  });
});

describe('isLoopback', () => {
  it('knows the addresses only this machine reaches from the rest', () => {
    for (const address of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) expect(isLoopback(address), address).toBe(true);
    for (const address of ['0.0.0.0', '::', '192.168.1.20', '10.0.0.1', '::ffff:10.0.0.1', 'fe80::1', '128.0.0.1']) expect(isLoopback(address), address).toBe(false);
  });
});
