import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Agenda } from '../../../src/agenda/agenda.js';
import { MerchantClocks } from '../../../src/clock/clocks.js';
import { GoLiveRunConflict, GoLiveRuns, runId, SENDING_BOUND_MS, startedMs } from '../../../src/go-live/run.js';
import { stepEventId } from '../../../src/go-live/run-steps.js';
import { Dispatcher } from '../../../src/notifications/dispatcher.js';
import { NotificationFaults } from '../../../src/notifications/faults.js';
import { NotificationOutbox } from '../../../src/notifications/outbox.js';
import { judge, type SendOptions, type SendResult } from '../../../src/notifications/send.js';
import type { Store } from '../../../src/store/store.js';
import { ENGINE, MERCHANT, newStore } from '../domain/fixtures.js';

/**
 * A go-live run without sockets (docs/decisions.md#d87-go-live-report): its
 * payments, its four deliveries sent one after the other through a
 * receiver played by a function, what the store keeps of them, the
 * dispatcher and the agenda leaving them alone, and the refusals to start.
 * Nothing listens at the URL: an attempt the dispatcher made would open a
 * socket, which fails the test (test/support/no-sockets.ts).
 */

const { publicKey } = MERCHANT;
const URL = 'http://127.0.0.1:9/hook';
const T0 = Date.parse('2026-03-01T10:00:00.000Z');

/** One POST the played receiver got. */
interface Sent {
  body: any;
  options: SendOptions;
}

let store: Store;
let clocks: MerchantClocks;
let outbox: NotificationOutbox;
let real: number;
let sent: Sent[];
/** How the played receiver answers a POST: the body it answers with (status 200), or a promise of the result. */
let answer: (request: Sent) => string | Promise<SendResult>;

const played = async (_url: string, body: string, options: SendOptions): Promise<SendResult> => {
  const request = { body: JSON.parse(body), options };
  sent.push(request);
  const text = await answer(request);
  if (typeof text !== 'string') return text;
  const reason = judge(200, text, options);
  return reason === undefined ? { status: 200, latencyMs: 3, acknowledged: true } : { status: 200, latencyMs: 3, acknowledged: false, reason };
};
const echo = ({ options }: Sent) => JSON.stringify({ ackReference: options.ackReference, status: 'received' });
const runs = (more: { realNow?: () => number } = {}) => new GoLiveRuns({ store, clocks, outbox, send: played, realNow: () => real, ...more });

beforeEach(async () => {
  store = await newStore();
  real = T0;
  clocks = new MerchantClocks(store, () => real);
  outbox = new NotificationOutbox({ store, clocks, faults: new NotificationFaults(), engine: ENGINE });
  // The older schedule: a run judges by the current page's rule all the same.
  await store.transaction(() => store.putWebhook(publicKey, { publicKey, url: URL, schedule: 'legacy', updatedAt: new Date(T0).toISOString() }));
  sent = [];
  answer = echo;
});
afterEach(() => store.close());

const sentSteps = (goLive: GoLiveRuns, id: string) => vi.waitFor(() => expect(goLive.view(publicKey, id)!.steps.every((step) => step.answer !== undefined)).toBe(true));
const runDeliveries = (id: string) => store.deliveries(publicKey).filter((delivery) => delivery.run?.id === id);

describe('a run', () => {
  it('stores its two payments, marked with the run, made through the state machine on the merchant\'s clock', async () => {
    await store.transaction(() => clocks.moveTo(publicKey, T0 + 3_600_000));
    const goLive = runs();
    const id = await goLive.start(publicKey);
    expect(id).toMatch(/^run_[0-9a-f]{12}$/);
    const paid = store.payment(publicKey, `GOLIVE-${id}-PAID`)!;
    const failed = store.payment(publicKey, `GOLIVE-${id}-FAILED`)!;
    expect(paid).toMatchObject({ goLiveRun: id, method: 'CARD', status: 'SUCCESSFUL', code: '00', card: { bin: '512345', last4: '0008' }, createdAt: '2026-03-01T11:00:00.000Z' });
    expect(failed).toMatchObject({ goLiveRun: id, status: 'FAILED', code: 'S12', message: 'Transaction Failed', card: { bin: '400000', last4: '0002' } });
    expect(paid.history).toEqual([{ at: '2026-03-01T11:00:00.000Z', status: 'SUCCESSFUL', code: '00', message: 'Successful', scenario: 'go-live-run', event: 'create' }]);
    await sentSteps(goLive, id);
    // Their only deliveries are the run's steps.
    expect(store.deliveries(publicKey).every((delivery) => delivery.run?.id === id)).toBe(true);
  });

  it('sends the four steps in order, one attempt each: the same event again as a copy, a dispute, success claimed for the failed payment', async () => {
    const goLive = runs();
    const id = await goLive.start(publicKey);
    await sentSteps(goLive, id);
    const items = sent.map(({ body }) => body.notificationItems[0].notificationRequestItem);
    expect(sent.map(({ body }) => Object.keys(body))).toEqual(Array(4).fill(['notificationItems']));
    expect(items.map((item) => `${item.eventType} ${item.data.reference} ${item.data.code ?? '-'}`)).toEqual([
      `transaction GOLIVE-${id}-PAID 00`, `transaction GOLIVE-${id}-PAID 00`, `dispute GOLIVE-${id}-PAID -`, `transaction GOLIVE-${id}-FAILED 00`,
    ]);
    expect(items[1]).toEqual(items[0]);
    expect(items[0].eventId).toBe(stepEventId(publicKey, id, 'success'));
    expect(items[3].data).toMatchObject({ gatewayCode: '00', maskedPan: '4000-00xx-xxxx-0002' });
    expect(sent.every(({ options }) => options.timeoutMs === 5000 && options.acknowledgement)).toBe(true);

    const deliveries = runDeliveries(id).sort((a, b) => a.sequence - b.sequence);
    expect(deliveries.map((delivery) => [delivery.run!.step, delivery.state, delivery.attempts.length, delivery.schedule, delivery.dueAt])).toEqual([
      ['success', 'delivered', 1, 'current', undefined], ['duplicate', 'delivered', 1, 'current', undefined],
      ['dispute', 'delivered', 1, 'current', undefined], ['false-success', 'delivered', 1, 'current', undefined],
    ]);
    expect(deliveries[1]!.copyOf).toBe(deliveries[0]!.id);
    expect(sent.map(({ options }) => options.ackReference)).toEqual(deliveries.map((delivery) => delivery.ackReference));
    expect(goLive.view(publicKey, id)!.steps.map((step) => step.deliveryId)).toEqual(deliveries.map((delivery) => delivery.id));
  });

  it('is running until the merchant\'s clock passes 30 s after the last step, and a run cannot start meanwhile', async () => {
    const goLive = runs();
    const id = await goLive.start(publicKey);
    await sentSteps(goLive, id);
    expect(goLive.view(publicKey, id)!.status).toBe('running');
    await expect(goLive.start(publicKey)).rejects.toThrow(new GoLiveRunConflict(
      `go-live run ${id} of merchant ${publicKey} is still running: follow it with GET /__sandbox/go-live/${publicKey}/runs/${id}`,
    ));
    await store.transaction(() => clocks.moveTo(publicKey, T0 + 31_000));
    expect(goLive.view(publicKey, id)).toMatchObject({ status: 'done', finishedAt: new Date(T0 + 30_000).toISOString() });
    const next = await goLive.start(publicKey);
    expect(next).not.toBe(id);
    await sentSteps(goLive, next);
  });

  it('cannot start for a merchant without a notification URL', async () => {
    await store.transaction(() => store.putWebhook(publicKey, null));
    await expect(runs().start(publicKey)).rejects.toThrow(`merchant ${publicKey} has no notification URL: set one with PUT /__sandbox/webhooks/${publicKey}`);
    expect(store.payments(publicKey)).toEqual([]);
  });

  it('answers for the receiver, marked notSent, once the notification URL is removed during the run', async () => {
    answer = (request) => {
      if (sent.length === 1) store.putWebhook(publicKey, null);
      return echo(request);
    };
    const goLive = runs();
    const id = await goLive.start(publicKey);
    await sentSteps(goLive, id);
    expect(sent).toHaveLength(1);
    const steps = goLive.view(publicKey, id)!.steps;
    expect(steps.slice(1).map((step) => step.detail)).toEqual(Array(3).fill('not sent: the merchant has no notification URL any more'));
    expect(runDeliveries(id).filter((delivery) => delivery.attempts[0]!.notSent === true)).toHaveLength(3);
  });
});

describe('a step being sent', () => {
  it('is due, so a status query made meanwhile is recorded on it; the dispatcher and the agenda never send it', async () => {
    let release!: () => void;
    answer = (request) => (sent.length === 1 ? new Promise<SendResult>((resolve) => (release = () => resolve({ status: 200, latencyMs: 9, acknowledged: true }))) : echo(request));
    const dispatcher = new Dispatcher({ store, clocks, outbox });
    const agenda = new Agenda({ store, clocks, engine: ENGINE, outbox, dispatcher });
    agenda.start();
    try {
      const goLive = runs();
      const id = await goLive.start(publicKey);
      await vi.waitFor(() => expect(sent).toHaveLength(1));
      const [first] = runDeliveries(id);
      expect(first).toMatchObject({ state: 'scheduled', attempts: [] });
      expect(store.awaitingVerification(publicKey, `GOLIVE-${id}-PAID`).map((delivery) => delivery.id)).toEqual([first!.id]);
      expect(goLive.view(publicKey, id)!.steps[0]).toMatchObject({ result: 'waiting', detail: 'sent; waiting for the receiver\'s answer (5 s at most)' });
      // Due on the merchant's clock, and left alone: an attempt of the dispatcher's would open a socket.
      await dispatcher.attempt(first!.id);
      await agenda.advance(publicKey, T0 + 10_000);
      release();
      await sentSteps(goLive, id);
      expect(sent).toHaveLength(4);
      expect(runDeliveries(id).every((delivery) => delivery.attempts.length === 1)).toBe(true);
    } finally {
      await agenda.stop();
    }
  });
});

describe('a run cut off', () => {
  it('sends no step after a stop; the steps not sent fail once no process may be sending them', async () => {
    let release!: () => void;
    answer = (request) => (sent.length === 2 ? new Promise<SendResult>((resolve) => (release = () => resolve({ status: 200, latencyMs: 9, acknowledged: true }))) : echo(request));
    const goLive = runs();
    const id = await goLive.start(publicKey);
    await vi.waitFor(() => expect(sent).toHaveLength(2));
    const stopping = goLive.stop();
    release();
    await stopping;
    expect(sent).toHaveLength(2);
    // The attempt under way was recorded before the stop ended.
    expect(runDeliveries(id).map((delivery) => delivery.state).sort()).toEqual(['delivered', 'delivered']);

    // Another replica, or the sandbox restarted: within the bound, some process may still send them. A minute later none
    // can, and by then the success step's 30 s are over too.
    const restarted = runs();
    expect(restarted.view(publicKey, id)!.status).toBe('running');
    real = startedMs(id) + SENDING_BOUND_MS;
    const cut = restarted.view(publicKey, id)!;
    expect(cut.status).toBe('done');
    expect(cut.steps.map((step) => `${step.step} ${step.result}`)).toEqual(['success fail', 'duplicate pass', 'dispute fail', 'false-success fail']);
    expect(cut.steps[2]!.detail).toBe('the sandbox stopped before this step was sent');
  });

  it('names its start in its id, to the second', () => {
    const id = runId(T0 + 999);
    expect(id).toMatch(/^run_[0-9a-f]{12}$/);
    expect(startedMs(id)).toBe(T0);
  });
});
