import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ControlApiError, connectToSandbox, SandboxControl, startForTests, type SnapshotDocument, type TestSandbox } from '../../src/testing/index.js';
import { cardPayment, freshReference } from '../support/sandbox.js';
import { Receiver } from '../support/receiver.js';

/**
 * payments-sandbox/testing's `startForTests()` and its control client
 * (src/testing/), over real HTTP as a test suite's global set-up uses them:
 * fixtures loaded at start, snapshots and resets, a fixtures load refused
 * with its step named, a clock moved and a notification waited for, and the
 * refusals as ControlApiError with the sandbox's own body. What needs no
 * sandbox: test/unit/testing/no-sandbox.test.ts.
 */

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const PAID_CARD = fixture('paid-card.yaml');
const DECLINED_OTP = fixture('declined-otp.yaml');

const started: TestSandbox[] = [];
const receivers: Receiver[] = [];
afterAll(async () => {
  for (const each of started) await each.stop();
  for (const receiver of receivers) await receiver.close();
});

async function start(options: Parameters<typeof startForTests>[0] = {}): Promise<TestSandbox> {
  const sandbox = await startForTests(options);
  started.push(sandbox);
  return sandbox;
}

/** A bearer token for the key pair, from the sandbox's key exchange. */
async function tokenOf(sandbox: TestSandbox): Promise<string> {
  const answer = await fetch(`${sandbox.apiBase}/encrypt/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ key: `${sandbox.keyPair.secretKey}.${sandbox.keyPair.publicKey}` }),
  });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { data: { EncryptedSecKey: { encryptedKey: string } } }).data.EncryptedSecKey.encryptedKey;
}

/** A card payment of the sandbox's key pair, left waiting for its OTP; its paymentReference. */
async function pendingCard(sandbox: TestSandbox): Promise<string> {
  const paymentReference = freshReference();
  const answer = await fetch(`${sandbox.apiBase}/payments/initiates`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${await tokenOf(sandbox)}` },
    body: JSON.stringify(cardPayment({ publicKey: sandbox.keyPair.publicKey, paymentReference })),
  });
  expect(((await answer.json()) as { data: { code: string } }).data.code).toBe('S20');
  return paymentReference;
}

/** The paymentReferences the sandbox holds for the merchant, with their status. */
async function paymentsOf(sandbox: TestSandbox, publicKey = sandbox.keyPair.publicKey): Promise<string[]> {
  const answer = await fetch(`${sandbox.url}/__sandbox/payments?publicKey=${publicKey}`);
  const { payments } = (await answer.json()) as { payments: Array<{ paymentReference: string; status: string }> };
  return payments.map((payment) => `${payment.paymentReference} ${payment.status}`);
}

/** What a promise rejects with; fails the test when it resolves. */
async function refusal(promise: Promise<unknown>): Promise<ControlApiError> {
  const error = await promise.then(
    (value) => expect.fail(`resolved with ${JSON.stringify(value)}`),
    (error: unknown) => error,
  );
  expect(error).toBeInstanceOf(ControlApiError);
  return error as ControlApiError;
}

describe('startForTests', () => {
  it('starts on a free loopback port, in memory, with the fixtures loaded and their merchant as its key pair', async () => {
    const sandbox = await start({ fixtures: [PAID_CARD] });
    expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sandbox.url).not.toBe('http://127.0.0.1:4010');
    expect(sandbox.apiBase).toBe(`${sandbox.url}/api/v2`);
    expect(sandbox.sandbox.store.inMemory).toBe(true);
    expect(sandbox.keyPair).toEqual({ publicKey: 'SBTESTPUBK_testingEntry0001', secretKey: 'SBTESTSECK_testingEntry0001' });
    expect(await paymentsOf(sandbox)).toEqual(['TESTING-CARD-1 SUCCESSFUL']);
  });

  it('without fixtures, hands out a new test key pair the sandbox accepts, and knows from the start', async () => {
    const sandbox = await start();
    expect(sandbox.keyPair.publicKey).toMatch(/^SBTESTPUBK_/);
    // Known before any request of the tests: a first setWebhook or advanceClock finds the merchant.
    expect(sandbox.sandbox.store.merchant(sandbox.keyPair.publicKey)).toMatchObject({ secretKey: sandbox.keyPair.secretKey });
    expect(await tokenOf(sandbox)).toMatch(/^SBTOKEN_/);
  });

  it('stops starting, naming the step, when a fixtures file does not load', async () => {
    await expect(startForTests({ fixtures: [DECLINED_OTP] })).rejects.toThrow(/declined-otp\.yaml[\s\S]*(step 1|otp)/);
  });
});

describe('the control client', () => {
  it('takes a snapshot, resets to the fixtures, resets to empty, and loads the snapshot back', async () => {
    const sandbox = await start({ fixtures: [PAID_CARD] });
    const later = await pendingCard(sandbox);
    const snapshot = await sandbox.control.snapshot();
    expect(snapshot.version).toEqual(expect.any(Number));

    expect(await sandbox.control.reset()).toMatchObject({ reset: 'all' });
    expect(await paymentsOf(sandbox)).toEqual(['TESTING-CARD-1 SUCCESSFUL']);
    expect(await sandbox.control.reset({ publicKey: sandbox.keyPair.publicKey, toEmpty: true })).toMatchObject({ reset: sandbox.keyPair.publicKey, to: 'empty' });
    expect(await paymentsOf(sandbox)).toEqual([]);

    await sandbox.control.loadSnapshot(snapshot);
    expect(await paymentsOf(sandbox)).toEqual(['TESTING-CARD-1 SUCCESSFUL', `${later} PENDING`]);
    // One merchant's part of it, for that merchant.
    const own = await sandbox.control.snapshot(sandbox.keyPair.publicKey);
    await sandbox.control.reset({ toEmpty: true });
    await sandbox.control.loadSnapshot(own, sandbox.keyPair.publicKey);
    expect(await paymentsOf(sandbox)).toHaveLength(2);
  });

  it('refuses a snapshot of another version, naming the field, and changes nothing', async () => {
    const sandbox = await start({ fixtures: [PAID_CARD] });
    const error = await refusal(sandbox.control.loadSnapshot({ version: 99 } as unknown as SnapshotDocument));
    expect(error.status).toBe(400);
    expect(error.error).toBe('INPUT');
    expect(error.body.message).toMatch(/version/);
    expect(error.message).toMatch(/^PUT \/__sandbox\/snapshot answered 400 INPUT: /);
    expect(await paymentsOf(sandbox)).toEqual(['TESTING-CARD-1 SUCCESSFUL']);
  });

  it('loads a fixtures file once; the same file again is found loaded already', async () => {
    const sandbox = await start();
    const first = await sandbox.control.loadFixtures(PAID_CARD);
    expect(first).toMatchObject({ loaded: true, steps: [{ index: 0, id: 'card', status: 200, code: 'S20' }, { index: 1, status: 200, code: '00' }] });
    expect(await paymentsOf(sandbox, 'SBTESTPUBK_testingEntry0001')).toEqual(['TESTING-CARD-1 SUCCESSFUL']);
    expect(await sandbox.control.loadFixtures(PAID_CARD)).toMatchObject({ loaded: false, alreadyLoaded: true });
  });

  it('refuses a fixtures document whose step fails, naming the step, and keeps nothing of it', async () => {
    const sandbox = await start();
    const error = await refusal(sandbox.control.loadFixtures(DECLINED_OTP));
    expect(error.status).toBe(400);
    expect(error.body).toMatchObject({ error: 'INPUT', step: { index: 1, id: 'otp' } });
    expect(await paymentsOf(sandbox, 'SBTESTPUBK_testingEntry0002')).toEqual([]);
    // A document, as well as a file.
    const inline = await refusal(sandbox.control.loadFixtures({ version: 1, steps: [{ api: { method: 'GET', path: '/payments/NO-SUCH-REF' } }] }));
    expect(inline.body.step).toMatchObject({ index: 0 });
  });

  it('moves a merchant\'s clock, and waits for the notification it brings to the merchant\'s receiver', async () => {
    const sandbox = await start();
    const receiver = await Receiver.start();
    receivers.push(receiver);
    await sandbox.control.setWebhook(sandbox.keyPair.publicKey, receiver.url);
    const paymentReference = await pendingCard(sandbox);

    const advanced = await sandbox.control.advanceClock(sandbox.keyPair.publicKey, 'PT31M');
    expect(advanced.offsetMs).toBe(31 * 60_000);
    expect(advanced.fired).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'expiry', paymentReference })]));

    const delivery = await sandbox.control.waitForNotification(sandbox.keyPair.publicKey, { paymentReference, eventType: 'transaction' }, 5000);
    expect(delivery).toMatchObject({ paymentReference, state: 'delivered', event: { eventType: 'transaction', data: { code: 'S12' } } });
    expect(receiver.of(paymentReference)).toHaveLength(1);
    // A function decides on each delivery, whatever its state.
    const same = await sandbox.control.waitForNotification(sandbox.keyPair.publicKey, (each) => each.paymentReference === paymentReference, 1000);
    expect(same.id).toBe(delivery.id);
    // Milliseconds are a duration too.
    expect((await sandbox.control.advanceClock(sandbox.keyPair.publicKey, 90_000)).offsetMs).toBe(31 * 60_000 + 90_000);
  });

  it('gives up waiting after its time-out, naming the merchant\'s deliveries', async () => {
    const sandbox = await start();
    const began = Date.now();
    await expect(sandbox.control.waitForNotification(sandbox.keyPair.publicKey, { paymentReference: 'NEVER-MADE' }, 300)).rejects.toThrow(
      new RegExp(`^no delivery to ${sandbox.keyPair.publicKey} matching \\{"paymentReference":"NEVER-MADE","state":"delivered"\\} within 300 ms; its deliveries: none$`),
    );
    expect(Date.now() - began).toBeGreaterThanOrEqual(290);
  });

  it('throws the sandbox\'s refusal as a ControlApiError with its body', async () => {
    const sandbox = await start();
    const error = await refusal(sandbox.control.advanceClock(sandbox.keyPair.publicKey, 'P1Y'));
    expect(error.status).toBe(400);
    expect(error.body).toEqual({ message: expect.stringMatching(/years or months/), error: 'INPUT' });
    expect(error.request).toBe(`POST /__sandbox/clock/${sandbox.keyPair.publicKey}/advance`);
    expect(() => sandbox.control.advanceClock(sandbox.keyPair.publicKey, -1)).toThrow(RangeError);
  });

  it('sends the control token the sandbox was started with; a client without it is refused', async () => {
    const sandbox = await start({ controlToken: 'testing-token-1' });
    await expect(sandbox.control.reset()).resolves.toMatchObject({ reset: 'all' });
    const stranger = new SandboxControl({ url: sandbox.url });
    const error = await refusal(stranger.reset());
    expect([error.status, error.error]).toEqual([401, 'UNAUTHORIZED']);
  });
});

describe('connectToSandbox', () => {
  it('reads the sandbox, its key pair and its control token from the environment', async () => {
    const sandbox = await start({ controlToken: 'testing-token-2' });
    const connected = connectToSandbox({
      SANDBOX_URL: `${sandbox.url}/`,
      SANDBOX_PUBLIC_KEY: sandbox.keyPair.publicKey,
      SANDBOX_SECRET_KEY: sandbox.keyPair.secretKey,
      SANDBOX_CONTROL_TOKEN: 'testing-token-2',
    });
    expect(connected).toMatchObject({ url: sandbox.url, apiBase: sandbox.apiBase, keyPair: sandbox.keyPair });
    await expect(connected.control.reset()).resolves.toMatchObject({ reset: 'all' });
    expect(connectToSandbox({ SANDBOX_URL: 'http://127.0.0.1:4010' }).keyPair).toBeUndefined();
  });
});
