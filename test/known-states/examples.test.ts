import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox, SandboxOptions } from '../../src/index.js';
import { ControlClient } from '../support/control.js';
import { sandboxForTest } from '../support/sandbox.js';

/**
 * The subscription fixture of examples/fixtures/, loaded as a user loads it
 * (at start). End to end: its notifications are sent to its receiver's URL
 * on loopback, where nothing listens. The other example, and both against
 * the served schema: test/unit/known-states/examples.test.ts.
 */

const EXAMPLES = new URL('../../examples/fixtures/', import.meta.url);

const open: Sandbox[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((sandbox) => sandbox.close()));
});

async function started(options: SandboxOptions = {}): Promise<{ sandbox: Sandbox; control: ControlClient }> {
  const sandbox = await sandboxForTest(options);
  open.push(sandbox);
  return { sandbox, control: await ControlClient.for(sandbox) };
}

describe('the example fixtures', () => {
  it('subscription.yaml loads at start: three charges on a moved clock, a receiver failing twice', async () => {
    const { sandbox, control } = await started({ fixtures: [new URL('subscription.yaml', EXAMPLES).pathname] });
    const publicKey = 'SBTESTPUBK_Subscriber01';
    expect(sandbox.store.payments(publicKey).map((payment) => payment.paymentReference)).toEqual(['SUB-DAILY-1', 'SUB-DAILY-1-1', 'SUB-DAILY-1-2', 'SUB-DAILY-1-3']);
    expect(sandbox.store.clock(publicKey)?.offsetMs).toBeGreaterThanOrEqual(3 * 86_400_000);
    const deliveries = sandbox.store.deliveries(publicKey);
    const first = deliveries.find((delivery) => delivery.paymentReference === 'SUB-DAILY-1')!;
    // The first two attempts were answered 500 in the receiver's place; the fault is used up.
    expect(first.attempts.slice(0, 2).map((attempt) => attempt.status)).toEqual([500, 500]);
    expect((await control.send('GET', `/webhooks/${publicKey}`)).body.faults).toEqual([]);
  });
});

