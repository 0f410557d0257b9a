import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { ControlClient, eventually } from '../support/control.js';
import { accountPayment, ApiClient, listeningSandbox, type ApiResponse, type TestMerchant } from '../support/sandbox.js';

/**
 * Network faults forced over the control API or the X-Sandbox-Scenario
 * header, as a client of the Payments API meets them on a connection: no
 * answer at all, and an answer lost after the payment was made
 * (test/unit/api/delays-and-draws.test.ts has late answers and seeded
 * random failures).
 */

/** How long a client waits for an answer before it gives up, in the hang tests. */
const CLIENT_TIMEOUT_MS = 300;

let sandbox: Sandbox;
let api: ApiClient;
let control: ControlClient;

beforeAll(async () => {
  sandbox = await listeningSandbox({ seed: 'faults' });
  api = await ApiClient.overHttp(sandbox);
  control = await ControlClient.for(sandbox);
});
afterAll(() => sandbox.close());
afterEach(async () => {
  expect((await control.deleteOverrides()).status).toBe(204);
});

const initiate = (merchant: TestMerchant, body: Record<string, unknown>, headers: Record<string, string> = {}, timeoutMs = 5000): Promise<ApiResponse> =>
  api.send('POST', '/payments/initiates', { publicKey: merchant.publicKey, ...body }, `Bearer ${merchant.token}`, undefined, { headers, timeoutMs });

/** The journal entry of the request about `paymentReference`, once the sandbox has recorded it. */
const journalled = (client: ControlClient, publicKey: string, paymentReference: string) =>
  eventually(`the journal entry of ${paymentReference}`, async () => {
    const response = await client.requests({ publicKey, paymentReference });
    return response.body.requests[0] as { status: number; fault?: string; scenario?: string; response?: unknown } | undefined;
  });

describe('lose-response', () => {
  it('carries the payment out and stores it, but the client gets no answer; a retry is S18', async () => {
    const merchant = await api.merchant();
    const body = accountPayment();
    const reference = String(body.paymentReference);
    await control.override({ scenario: 'lose-response', publicKey: merchant.publicKey, times: 1 });

    const lost = await initiate(merchant, body);
    expect(lost.status).toBe(0);

    const stored = await control.payment(reference, merchant.publicKey);
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ status: 'SUCCESSFUL', code: '00', method: 'ACCOUNT', scenario: 'lose-response' });

    const retried = await initiate(merchant, body);
    expect(retried.status).toBe(200);
    expect(retried.body.data).toMatchObject({ code: 'S18', message: 'Transaction reference must be unique' });
    expect(retried.headers['x-sandbox-scenario']).toBe('duplicate-reference');

    const entries = (await control.requests({ publicKey: merchant.publicKey, paymentReference: reference })).body.requests;
    expect(entries.map((entry: { status: number }) => entry.status)).toEqual([200, 0]);
    expect(entries[1]).toMatchObject({ fault: 'lose-response', scenario: 'lose-response' });
    expect(entries[1]).not.toHaveProperty('response');
  });
});

describe('drop-connection', () => {
  it('by the X-Sandbox-Scenario header: no answer, nothing stored, journalled as status 0', async () => {
    const merchant = await api.merchant();
    const body = accountPayment();
    const reference = String(body.paymentReference);

    const dropped = await initiate(merchant, body, { 'X-Sandbox-Scenario': 'drop-connection' });
    expect(dropped.status).toBe(0);
    expect((await control.payment(reference, merchant.publicKey)).status).toBe(404);
    expect(await journalled(control, merchant.publicKey, reference)).toMatchObject({ status: 0, fault: 'drop-connection' });

    // The reference was never used: the same request without the header goes through.
    expect((await initiate(merchant, body)).body.data.code).toBe('20');
  });

  it('by an override {fault: drop-connection}: no answer, nothing stored, journalled with the fault', async () => {
    const merchant = await api.merchant();
    const body = accountPayment();
    const reference = String(body.paymentReference);
    await control.override({ fault: 'drop-connection', publicKey: merchant.publicKey, times: 1 });

    const dropped = await initiate(merchant, body);
    expect(dropped.status).toBe(0);
    expect((await control.payment(reference, merchant.publicKey)).status).toBe(404);
    expect(await journalled(control, merchant.publicKey, reference)).toMatchObject({ status: 0, fault: 'drop-connection' });
    expect((await control.overrides(merchant.publicKey)).body.overrides).toEqual([]);
    expect((await initiate(merchant, body)).body.data.code).toBe('20');
  });
});

describe('hang', () => {
  it('by the header: no answer within the client\'s timeout, nothing stored, journalled as status 0', async () => {
    const merchant = await api.merchant();
    const body = accountPayment();
    const reference = String(body.paymentReference);

    const hung = await initiate(merchant, body, { 'X-Sandbox-Scenario': 'hang' }, CLIENT_TIMEOUT_MS);
    expect(hung.status).toBe(0);
    expect((await control.payment(reference, merchant.publicKey)).status).toBe(404);
    expect(await journalled(control, merchant.publicKey, reference)).toMatchObject({ status: 0, fault: 'hang' });
  });

  it('by an override {fault: hang}: no answer within the client\'s timeout, nothing stored', async () => {
    const merchant = await api.merchant();
    const body = accountPayment();
    const reference = String(body.paymentReference);
    await control.override({ fault: 'hang', publicKey: merchant.publicKey, times: 1 });

    const hung = await initiate(merchant, body, {}, CLIENT_TIMEOUT_MS);
    expect(hung.status).toBe(0);
    expect((await control.payment(reference, merchant.publicKey)).status).toBe(404);
    expect(await journalled(control, merchant.publicKey, reference)).toMatchObject({ status: 0, fault: 'hang' });
  });

  it('close() of the sandbox completes while a request hangs, and that request ends without an answer', { timeout: 20_000 }, async () => {
    const own = await listeningSandbox();
    let closed = false;
    try {
      const ownApi = await ApiClient.for(own);
      const ownControl = await ControlClient.for(own);
      const merchant = await ownApi.merchant();
      const held = await ownControl.override({ fault: 'hang', publicKey: merchant.publicKey, times: 1 });

      // A client without a short timeout, straight over loopback to the sandbox's own server.
      const pending = fetch(`${own.apiBase}/payments/initiates`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${merchant.token}` },
        body: JSON.stringify({ publicKey: merchant.publicKey, ...accountPayment() }),
        signal: AbortSignal.timeout(15_000),
      }).then(
        (response) => response.status,
        (error: Error) => error,
      );
      // The override is spent once the request is held.
      await eventually('the hang override to be used', async () => {
        const left = (await ownControl.overrides()).body.overrides as Array<{ id: string }>;
        return left.some((override) => override.id === held.id) ? undefined : true;
      });

      await own.close();
      closed = true;
      const outcome = await pending;
      expect(outcome).toBeInstanceOf(Error);
      expect((outcome as Error).name).not.toBe('TimeoutError');
    } finally {
      if (!closed) await own.close();
    }
  });
});

// Delays and seeded draws need no connection: test/unit/api/delays-and-draws.test.ts.
