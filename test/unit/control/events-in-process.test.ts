import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { ControlClient } from '../../support/control.js';
import { sandboxForTest } from '../../support/sandbox.js';

/**
 * GET /__sandbox/events without a socket: a stream never ends, so in process
 * it is refused at once instead of holding `Sandbox.handle()` (or a fixtures
 * load) forever (test/control/events.test.ts reads it over a connection).
 */

let sandbox: Sandbox;
let control: ControlClient;

beforeAll(async () => {
  sandbox = await sandboxForTest();
  control = await ControlClient.for(sandbox);
});
afterAll(() => sandbox.close());

describe('GET /__sandbox/events in process', () => {
  it('answers 400 INPUT at once, and opens no stream', async () => {
    const response = await control.send('GET', '/events');
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: 'INPUT', message: expect.stringContaining('open it over HTTP') });
    expect(sandbox.events.subscriberCount).toBe(0);
  });

  it('refuses it as a fixtures step too, naming the step', async () => {
    const response = await control.send('POST', '/fixtures', { body: { version: 1, steps: [{ control: { method: 'GET', path: '/events' } }] } });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: 'INPUT', message: expect.stringContaining('a stream that never ends'), step: { index: 0 } });
    expect(sandbox.events.subscriberCount).toBe(0);
  });
});
