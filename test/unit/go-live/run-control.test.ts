import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { ControlClient } from '../../support/control.js';
import { ApiClient, sandboxForTest } from '../../support/sandbox.js';

/**
 * The run's two operations over the control API, in process (every answer
 * checked against openapi/control-api.yaml): the refusals a run meets before
 * anything is sent. What it sends is test/notifications/go-live-run.test.ts.
 */

let sandbox: Sandbox;
let api: ApiClient;
let control: ControlClient;

beforeAll(async () => {
  sandbox = await sandboxForTest();
  api = await ApiClient.for(sandbox);
  control = await ControlClient.for(sandbox);
});
afterAll(() => sandbox.close());

describe('POST /go-live/{publicKey}/runs', () => {
  it('answers 409 CONFLICT, naming how to set one, for a merchant without a notification URL; nothing is stored', async () => {
    const merchant = await api.merchant();
    const refused = await control.send('POST', `/go-live/${merchant.publicKey}/runs`);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      message: `merchant ${merchant.publicKey} has no notification URL: set one with PUT /__sandbox/webhooks/${merchant.publicKey}`,
      error: 'CONFLICT',
    });
    expect(sandbox.store.payments(merchant.publicKey)).toEqual([]);
  });

  it('answers 404 for a merchant the sandbox does not know', async () => {
    const unknown = await control.send('POST', '/go-live/SBTESTPUBK_neverseen01/runs');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('NOT_FOUND');
  });
});

describe('GET /go-live/{publicKey}/runs/{id}', () => {
  it('answers 404 for a run the merchant does not have, 400 for an id that is no run id', async () => {
    const merchant = await api.merchant();
    const none = await control.send('GET', `/go-live/${merchant.publicKey}/runs/run_0123456789ab`);
    expect(none.status).toBe(404);
    expect(none.body).toEqual({ message: `No go-live run run_0123456789ab of merchant ${merchant.publicKey}`, error: 'NOT_FOUND' });
    const malformed = await control.send('GET', `/go-live/${merchant.publicKey}/runs/GOLIVE-1`);
    expect(malformed.status).toBe(400);
  });
});
