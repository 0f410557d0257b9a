import { describe, expect, it } from 'vitest';
import { runPayments, runReferences, stepEventId } from '../../../src/go-live/run-steps.js';
import { runView, type RunSources } from '../../../src/go-live/run-view.js';
import type { GoLiveRunStepName } from '../../../src/model/go-live.js';
import type { Delivery, DeliveryAttempt } from '../../../src/model/notifications.js';
import { MERCHANT } from '../domain/fixtures.js';

/**
 * The view of a go-live run (GET /__sandbox/go-live/{publicKey}/runs/{id};
 * docs/decisions.md#d87-go-live-report), computed from the run's payments
 * and deliveries as the store keeps them and the merchant's clock: each
 * step's result and why, the run's status and end.
 */

const ID = 'run_6757c1a03f2e';
const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();
const { paid } = runPayments(MERCHANT, ID, at(0));
const { publicKey } = MERCHANT;

const acknowledged = (seconds: number): Partial<DeliveryAttempt> => ({ at: at(seconds), status: 200, latencyMs: 12, acknowledged: true });
const odoo = (seconds: number): Partial<DeliveryAttempt> => ({
  at: at(seconds), status: 200, latencyMs: 8, acknowledged: false,
  reason: 'HTTP 200 without an ackReference: the acknowledgement {"ackReference": "ack_1", "status": "received"} is missing; the receiver answered "{\\"status\\":\\"success\\",\\"message\\":\\"Processed\\"}"',
});
const refused500 = (seconds: number): Partial<DeliveryAttempt> => ({ at: at(seconds), status: 500, latencyMs: 5, acknowledged: false, reason: 'HTTP 500: only a 200 counts' });

/** A delivery of one step, with its one attempt when given, and the status query recorded on it when given. */
function delivery(step: GoLiveRunStepName, attempt?: Partial<DeliveryAttempt>, verifiedAt?: string): Delivery {
  const reference = runReferences(ID)[step === 'false-success' ? 'failed' : 'paid'];
  const made = attempt?.at ?? at(1);
  return {
    id: `dlv_${step}`, publicKey, paymentReference: reference,
    event: { eventType: step === 'dispute' ? 'dispute' : 'transaction', eventDate: made, eventId: stepEventId(publicKey, ID, step), data: {} },
    state: attempt === undefined ? 'scheduled' : attempt.acknowledged ? 'delivered' : 'undelivered', schedule: 'current', ackReference: `ack_${step}`,
    attempts: attempt === undefined ? [] : [{ url: 'http://127.0.0.1:9/hook', ackReference: `ack_${step}`, at: made, latencyMs: 1, acknowledged: false, ...attempt }],
    run: { id: ID, step }, ...(verifiedAt ? { verifiedAt } : {}),
    sequence: 1, createdAt: made, updatedAt: attempt?.at ?? made,
  };
}

const sources = (deliveries: Delivery[], nowSeconds: number, sending = true): RunSources => ({ id: ID, publicKey, paid, deliveries, nowMs: T0 + nowSeconds * 1000, sending });
const results = (view: ReturnType<typeof runView>) => view.steps.map((step) => `${step.step} ${step.result}`);

describe('runView: a careful receiver and the provider\'s Odoo plugin', () => {
  it('passes every step of a receiver that acknowledges each and queries both payments within 30 s; done at the last query', () => {
    const view = runView(sources([
      delivery('success', acknowledged(1), at(2.5)),
      delivery('duplicate', acknowledged(2)),
      delivery('dispute', acknowledged(3)),
      delivery('false-success', acknowledged(4), at(5)),
    ], 6));
    expect(results(view)).toEqual(['success pass', 'duplicate pass', 'dispute pass', 'false-success pass']);
    expect(view).toMatchObject({ id: ID, status: 'done', startedAt: at(0), finishedAt: at(5) });
    expect(view.steps[0]).toEqual({
      step: 'success', eventType: 'transaction', eventId: stepEventId(publicKey, ID, 'success'), paymentReference: `GOLIVE-${ID}-PAID`,
      deliveryId: 'dlv_success', answer: { status: 200, ackReference: 'ack_success', ms: 12 }, result: 'pass',
      detail: 'acknowledged; the payment\'s status was queried 1.5 s later',
    });
    expect(view.steps[3]!.paymentReference).toBe(`GOLIVE-${ID}-FAILED`);
    expect(view.steps[3]!.detail).toContain('it answers S12');
  });

  it('fails every step of a receiver that answers 200 without an ackReference, 500 to a dispute and never queries; running until the clock passes 30 s after the last step', () => {
    const deliveries = [delivery('success', odoo(1)), delivery('duplicate', odoo(2)), delivery('dispute', refused500(3)), delivery('false-success', odoo(4))];
    const early = runView(sources(deliveries, 10));
    expect(results(early)).toEqual(['success fail', 'duplicate fail', 'dispute fail', 'false-success fail']);
    expect(early.status).toBe('running');
    expect(early.steps[0]!.answer).toEqual({ status: 200, ms: 8 });
    expect(early.steps[0]!.detail).toMatch(/^not acknowledged: HTTP 200 without an ackReference/);
    expect(early.steps[2]!.detail).toBe('not acknowledged: HTTP 500: only a 200 counts');

    const atEnd = runView(sources(deliveries, 34));
    expect(atEnd.status).toBe('running');
    const late = runView(sources(deliveries, 34.001));
    expect(late).toMatchObject({ status: 'done', finishedAt: at(34) });
    expect(late.steps[3]!.detail).toMatch(/; the payment's status was not queried within 30 s$/);
  });
});

describe('runView: the status query of a notification of success', () => {
  it('waits for it within 30 s of the attempt, then fails the step, naming the risk', () => {
    const deliveries = [delivery('success', acknowledged(1)), delivery('duplicate', acknowledged(2)), delivery('dispute', acknowledged(3)), delivery('false-success', acknowledged(4))];
    const waiting = runView(sources(deliveries, 20));
    expect(results(waiting)).toEqual(['success waiting', 'duplicate pass', 'dispute pass', 'false-success waiting']);
    expect(waiting.steps[0]!.detail).toContain(`for the status query of GOLIVE-${ID}-PAID`);
    const over = runView(sources(deliveries, 40));
    expect(results(over)).toEqual(['success fail', 'duplicate pass', 'dispute pass', 'false-success fail']);
    expect(over.steps[0]!.detail).toContain('notifications are not signed');
    expect(over.steps[3]!.detail).toContain('a forged notification claiming success for a failed payment would have been believed');
  });

  it('fails a query made after the 30 s, and the run ends when the clock passed them, not at the late query', () => {
    const view = runView(sources([
      delivery('success', acknowledged(1), at(2)),
      delivery('duplicate', acknowledged(2)),
      delivery('dispute', acknowledged(3)),
      delivery('false-success', acknowledged(4), at(49)),
    ], 50));
    expect(view.steps[3]).toMatchObject({ result: 'fail', detail: 'acknowledged, but the payment\'s status was queried only 45 s later, after the 30 s allowed' });
    expect(view).toMatchObject({ status: 'done', finishedAt: at(34) });
  });
});

describe('runView: steps not sent', () => {
  it('names every eventId before it is sent, the duplicate\'s that of the success step', () => {
    const view = runView(sources([], 0));
    expect(view.status).toBe('running');
    expect(view.steps.map((step) => [step.result, step.detail])).toEqual(Array(4).fill(['waiting', 'not sent yet']));
    expect(view.steps[1]!.eventId).toBe(view.steps[0]!.eventId);
    expect(new Set(view.steps.map((step) => step.eventId)).size).toBe(3);
    expect(view.steps.every((step) => step.deliveryId === undefined && step.answer === undefined)).toBe(true);
  });

  it('waits for an answer being sent; once no process can send them, the run is done and the steps left fail', () => {
    const deliveries = [delivery('success', acknowledged(1), at(2)), delivery('duplicate')];
    expect(results(runView(sources(deliveries, 3)))).toEqual(['success pass', 'duplicate waiting', 'dispute waiting', 'false-success waiting']);
    const cut = runView(sources(deliveries, 3, false));
    expect(results(cut)).toEqual(['success pass', 'duplicate fail', 'dispute fail', 'false-success fail']);
    expect(cut.steps.slice(1).map((step) => step.detail)).toEqual([
      'the sandbox stopped before the receiver\'s answer to this step was recorded',
      'the sandbox stopped before this step was sent',
      'the sandbox stopped before this step was sent',
    ]);
    expect(cut).toMatchObject({ status: 'done', finishedAt: at(1) });
  });

  it('fails a step the sandbox answered for the receiver, the notification URL gone, with no status of the receiver\'s', () => {
    const gone: Partial<DeliveryAttempt> = { at: at(2), url: '', latencyMs: 0, acknowledged: false, reason: 'the merchant has no notification URL any more', notSent: true };
    const view = runView(sources([delivery('success', acknowledged(1), at(1.5)), delivery('duplicate', gone)], 3));
    expect(view.steps[1]).toMatchObject({ result: 'fail', detail: 'not sent: the merchant has no notification URL any more', answer: { ms: 0 } });
    expect(view.steps[1]!.answer!.status).toBeUndefined();
  });
});
