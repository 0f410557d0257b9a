import { describe, expect, it } from 'vitest';
import { acknowledgedCheck, duplicateCheck, unknownTypeCheck, verifiedCheck } from '../../../src/go-live/notification-checks.js';
import { verdictOf } from '../../../src/go-live/report.js';
import { shownCheck } from '../../../src/go-live/check.js';
import { testValues } from '../../../src/go-live/test-values.js';
import { outcomesCheck, tokenCheck } from '../../../src/go-live/traffic-checks.js';
import { emptyFacts, withExchange, type GoLiveCheck } from '../../../src/model/go-live.js';
import type { Delivery, DeliveryAttempt, NotificationEventType } from '../../../src/model/notifications.js';
import type { Payment, PaymentStatus } from '../../../src/model/records.js';
import { loadCatalogue } from '../../../src/scenarios/catalogue.js';

/**
 * The go-live report's checks as pure functions of the records
 * (docs/decisions.md#d87-go-live-report): each judged from hand-made
 * deliveries and payments, so every rule's edge is named here.
 */

const T0 = Date.parse('2026-12-08T10:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

let sequence = 0;
function delivery(fields: { eventType?: NotificationEventType; code?: string; eventId?: string; attempts?: Array<Partial<DeliveryAttempt>>; verifiedAt?: string; ref?: string } = {}): Delivery {
  sequence += 1;
  return {
    id: `dlv_${String(sequence).padStart(20, '0')}`,
    publicKey: 'SBTESTPUBK_checks0001',
    paymentReference: fields.ref ?? `REF-${sequence}`,
    event: { eventType: fields.eventType ?? 'transaction', eventDate: '2026-12-08 10:00:00', eventId: fields.eventId ?? `evt${sequence}`, data: { code: fields.code ?? '00' } },
    state: 'delivered',
    schedule: 'current',
    ackReference: 'ack_1',
    attempts: (fields.attempts ?? [{}]).map((attempt) => ({ at: at(0), url: 'http://127.0.0.1:9/hook', ackReference: 'ack_1', status: 200, latencyMs: 3, acknowledged: true, ...attempt })),
    sequence,
    createdAt: at(0),
    updatedAt: at(0),
    ...(fields.verifiedAt ? { verifiedAt: fields.verifiedAt } : {}),
  };
}

function payment(method: Payment['method'], statuses: PaymentStatus[]): Payment {
  return {
    publicKey: 'SBTESTPUBK_checks0001', paymentReference: `P-${(sequence += 1)}`, linkingReference: `L-${sequence}`, method,
    status: statuses.at(-1)!, code: '00', message: '', amount: '10.00', refundedAmount: '0.00', currency: 'NGN', country: 'NG', scenario: 'x',
    history: statuses.map((status) => ({ at: at(0), status, code: '00', scenario: 'x', event: 'create' as const })), createdAt: at(0), updatedAt: at(0),
  };
}

describe('notification-acknowledged', () => {
  it('is not exercised without an attempt, passes when every attempt was acknowledged, and names each that was not, with why', () => {
    expect(acknowledgedCheck([]).status).toBe('not-exercised');
    expect(acknowledgedCheck([delivery(), delivery()]).status).toBe('pass');
    const bad = delivery({ attempts: [{ acknowledged: false, reason: 'HTTP 200 without the ackReference' }, {}] });
    const result = acknowledgedCheck([delivery(), bad]);
    expect(result.status).toBe('fail');
    expect(result.summary).toBe('1 of 3 attempts were not acknowledged');
    expect(result.found).toEqual([expect.objectContaining({ deliveryId: bad.id, eventId: bad.event.eventId, paymentReference: bad.paymentReference, detail: expect.stringContaining('attempt 1: HTTP 200 without the ackReference') })]);
  });

  it('never holds against the receiver an attempt the sandbox answered in its place', () => {
    const faulted = delivery({ attempts: [{ acknowledged: false, status: 500, notSent: true, reason: 'answered by the sandbox' }, {}] });
    expect(acknowledgedCheck([faulted])).toMatchObject({ status: 'pass', summary: 'All 1 attempts were acknowledged' });
    expect(acknowledgedCheck([delivery({ attempts: [{ notSent: true, acknowledged: false }] })]).status).toBe('not-exercised');
  });
});

describe('notification-duplicate-acknowledged', () => {
  it('judges every sending of an eventId after its first: a retry, a redeliver', () => {
    expect(duplicateCheck([delivery()]).status).toBe('not-exercised');
    const first = delivery({ eventId: 'evt-a' });
    expect(duplicateCheck([first, delivery({ eventId: 'evt-a' })]).status).toBe('pass');
    // A retry after a failed first attempt is the same event sent again.
    const retried = delivery({ eventId: 'evt-b', attempts: [{ acknowledged: false }, { acknowledged: false, reason: 'HTTP 409' }] });
    const result = duplicateCheck([retried]);
    expect(result).toMatchObject({ status: 'fail', summary: '1 of 1 sendings of an event already sent were not acknowledged' });
    expect(result.found[0]).toMatchObject({ deliveryId: retried.id, eventId: 'evt-b', detail: expect.stringContaining('HTTP 409') });
  });
});

describe('notification-unknown-type-acknowledged', () => {
  it('judges dispute events only', () => {
    expect(unknownTypeCheck([delivery(), delivery({ eventType: 'refund', attempts: [{ acknowledged: false }] })]).status).toBe('not-exercised');
    expect(unknownTypeCheck([delivery({ eventType: 'dispute' })]).status).toBe('pass');
    expect(unknownTypeCheck([delivery({ eventType: 'dispute', attempts: [{ acknowledged: false, status: 500 }] })]).status).toBe('fail');
  });
});

describe('notification-verified', () => {
  it('passes a notification of success queried within 30 s, fails one never queried or queried late, and waits on one still in its window', () => {
    const now = T0 + 60_000;
    expect(verifiedCheck([delivery({ verifiedAt: at(2) })], now).status).toBe('pass');
    expect(verifiedCheck([delivery({ verifiedAt: at(30) })], now).status).toBe('pass');
    const late = delivery({ verifiedAt: at(31) });
    const never = delivery();
    const result = verifiedCheck([late, never], now);
    expect(result.status).toBe('fail');
    expect(result.found.map((found) => found.deliveryId)).toEqual([late.id, never.id]);
    expect(result.found[1]!.detail).toContain('never queried');
    expect(verifiedCheck([delivery()], T0 + 10_000)).toMatchObject({ status: 'not-exercised', summary: expect.stringContaining('1 still within their 30 s') });
  });

  it('judges only transaction events of code 00', () => {
    expect(verifiedCheck([delivery({ code: 'S12' }), delivery({ eventType: 'refund' })], T0 + 60_000).status).toBe('not-exercised');
  });
});

describe('outcomes-covered', async () => {
  const values = testValues(await loadCatalogue());

  it('passes a type that met a success, a failure and a pending outcome anywhere in its payments\' histories', () => {
    const result = outcomesCheck([payment('CARD', ['PENDING', 'SUCCESSFUL']), payment('CARD', ['FAILED'])], values);
    expect(result).toMatchObject({ status: 'pass', summary: 'CARD: each met a success, a failure and a pending outcome' });
  });

  it('names each outcome never met, with the catalogue\'s test value that produces it', () => {
    const result = outcomesCheck([payment('CARD', ['SUCCESSFUL']), payment('MOMO', ['PENDING'])], values);
    expect(result.status).toBe('fail');
    const details = result.found.map((found) => found.detail);
    expect(details).toContain('CARD: no failure met; send cardNumber 4000000000000002 (scenario card-declined)');
    expect(details).toContain('CARD: no pending met; send cardNumber 4000000000000119 (scenario card-stays-pending)');
    expect(details.filter((detail) => detail.startsWith('MOMO'))).toHaveLength(2);
    expect(outcomesCheck([], values).status).toBe('not-exercised');
  });
});

describe('token-reused', () => {
  it('warns past three exchanges for each hour begun since the report began', () => {
    let facts = emptyFacts(at(0));
    expect(tokenCheck(facts, T0).status).toBe('not-exercised');
    for (let n = 0; n < 3; n += 1) facts = withExchange(facts, at(0), at(n));
    expect(tokenCheck(facts, T0 + 60_000).status).toBe('pass');
    facts = withExchange(facts, at(0), at(4));
    expect(tokenCheck(facts, T0 + 60_000)).toMatchObject({ status: 'warn', summary: '4 key exchanges in 1 h, more than 3: the token is not reused' });
    // Two hours begun allow six.
    expect(tokenCheck(facts, T0 + 3_700_000).status).toBe('pass');
  });
});

describe('the verdict', () => {
  const check = (status: GoLiveCheck['status'], required = true): GoLiveCheck => ({ ...shownCheck({ id: 'unique-references', status, summary: '', found: [] }), required });
  it('is not-ready when a required check fails, incomplete when one was not exercised, ready otherwise; advisory checks never decide it', () => {
    expect(verdictOf([check('pass'), check('fail')])).toBe('not-ready');
    expect(verdictOf([check('pass'), check('not-exercised')])).toBe('incomplete');
    expect(verdictOf([check('pass'), check('warn', false), check('not-exercised', false)])).toBe('ready');
  });

  it('lists at most 50 items of evidence, with the total beside them', () => {
    const found = Array.from({ length: 70 }, (_, n) => ({ detail: `item ${n}` }));
    const shown = shownCheck({ id: 'notification-acknowledged', status: 'fail', summary: '', found });
    expect(shown.evidence).toHaveLength(50);
    expect(shown.evidenceTotal).toBe(70);
  });
});
