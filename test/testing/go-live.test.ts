import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GO_LIVE_CHECK_IDS } from '../../src/model/go-live.js';
import { ControlApiError, startForTests, type GoLiveReport, type TestSandbox } from '../../src/testing/index.js';
import { Receiver } from '../support/receiver.js';

/**
 * `SandboxControl.goLive(publicKey, { run })` of payments-sandbox/testing
 * (docs/testing.md, "Is the integration ready?"), over real HTTP: the
 * report of the fixtures' merchant, the refusals as ControlApiError with the
 * sandbox's category, and a run of the receiver waited for before the report.
 */

let sandbox: TestSandbox;
let receiver: Receiver;
beforeAll(async () => {
  sandbox = await startForTests({ fixtures: [fileURLToPath(new URL('./fixtures/paid-card.yaml', import.meta.url))] });
  receiver = await Receiver.start();
});
afterAll(async () => {
  await sandbox.stop();
  await receiver.close();
});

describe('control.goLive()', () => {
  it('answers the merchant\'s report: every check in order, beginning after the fixtures\' known state', async () => {
    const report: GoLiveReport = await sandbox.control.goLive(sandbox.keyPair.publicKey);
    expect(report.publicKey).toBe(sandbox.keyPair.publicKey);
    expect(report.checks.map((check) => check.id)).toEqual([...GO_LIVE_CHECK_IDS]);
    // The fixtures' paid card is the known state the tests begin from, not the integration's doing (docs/decisions.md#d87-go-live-report).
    expect(report.checks.find((check) => check.id === 'outcomes-covered')!.status).toBe('not-exercised');
    expect(report.verdict).toBe('incomplete');
  });

  it('throws the sandbox\'s refusal: NOT_FOUND for an unknown merchant, INPUT for a key that is not a test public key', async () => {
    for (const [publicKey, status, error] of [['SBTESTPUBK_NoSuchMerchant2', 404, 'NOT_FOUND'], ['SBPUBK_live12345', 400, 'INPUT']] as const) {
      const refused = await sandbox.control.goLive(publicKey).catch((caught: unknown) => caught);
      expect(refused, publicKey).toBeInstanceOf(ControlApiError);
      expect(refused).toMatchObject({ status, error, request: `GET /__sandbox/go-live/${publicKey}` });
    }
  });

  it('with run, refuses with CONFLICT a merchant that has no notification URL', async () => {
    const refused = await sandbox.control.goLive(sandbox.keyPair.publicKey, { run: true }).catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(ControlApiError);
    expect(refused).toMatchObject({ status: 409, error: 'CONFLICT', request: `POST /__sandbox/go-live/${sandbox.keyPair.publicKey}/runs` });
  });

  it('with run, waits for the run of the receiver to be done, and its events count in the report', { timeout: 120_000 }, async () => {
    await sandbox.control.setWebhook(sandbox.keyPair.publicKey, receiver.url);
    const report = await sandbox.control.goLive(sandbox.keyPair.publicKey, { run: true });
    // The run sends an event twice and a dispute: the receiver got them before the report was made.
    expect(receiver.events().map(({ event }) => event.eventType)).toEqual(expect.arrayContaining(['transaction', 'dispute']));
    for (const id of ['notification-duplicate-acknowledged', 'notification-unknown-type-acknowledged'] as const) {
      expect(report.checks.find((check) => check.id === id)!.status, id).toBe('pass');
    }
  });
});
