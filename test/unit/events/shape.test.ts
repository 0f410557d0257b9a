import { describe, expect, it } from 'vitest';
import { eventsOfChange, eventText, type SandboxEvent } from '../../../src/events/shape.js';
import type { Delivery } from '../../../src/model/notifications.js';
import type { Payment } from '../../../src/model/records.js';

/** How a change of the store becomes live events (docs/decisions.md#d80-server-sent-events). */

const payment = (fields: Partial<Payment>) => ({ publicKey: 'PK', paymentReference: 'REF-1', status: 'PENDING', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z', ...fields }) as Payment;
const delivery = (fields: Partial<Delivery>) => ({ id: 'dlv_1', publicKey: 'PK', paymentReference: 'REF-1', state: 'scheduled', attempts: [], ...fields }) as unknown as Delivery;

describe('eventsOfChange', () => {
  it('a new payment is created, one stored again is updated; its deliveries follow it', () => {
    expect(eventsOfChange({ kind: 'payment', payment: payment({}), deliveries: [delivery({})] })).toEqual([
      { kind: 'payment', publicKey: 'PK', paymentReference: 'REF-1', action: 'created', status: 'PENDING' },
      { kind: 'delivery', publicKey: 'PK', paymentReference: 'REF-1', action: 'created', state: 'scheduled', ref: 'dlv_1' },
    ]);
    expect(eventsOfChange({ kind: 'payment', payment: payment({ status: 'SUCCESSFUL', updatedAt: '2026-01-01T00:00:01.000Z' }) })).toEqual([
      { kind: 'payment', publicKey: 'PK', paymentReference: 'REF-1', action: 'updated', status: 'SUCCESSFUL' },
    ]);
  });

  it('a delivery stored with attempts is an attempt, numbered', () => {
    const attempted = delivery({ state: 'delivered', attempts: [{}, {}] as Delivery['attempts'] });
    expect(eventsOfChange({ kind: 'delivery', delivery: attempted })).toEqual([{ kind: 'attempt', publicKey: 'PK', paymentReference: 'REF-1', state: 'delivered', ref: 'dlv_1', attempt: 2 }]);
    expect(eventsOfChange({ kind: 'delivery', delivery: delivery({ state: 'held' }) })[0]).toMatchObject({ kind: 'delivery', action: 'updated', state: 'held' });
  });

  it('clocks, webhooks, resets and replaces name their merchant, or none when they concern all', () => {
    expect(eventsOfChange({ kind: 'clock', clock: { publicKey: 'PK', offsetMs: 7200_000 } })).toEqual([{ kind: 'clock', publicKey: 'PK', action: 'advanced', offsetMs: 7200_000 }]);
    expect(eventsOfChange({ kind: 'webhook', publicKey: 'PK', webhook: null })).toEqual([{ kind: 'webhook', publicKey: 'PK', action: 'removed' }]);
    expect(eventsOfChange({ kind: 'reset' })).toEqual([{ kind: 'reset' }]);
    expect(eventsOfChange({ kind: 'reset', publicKey: 'PK' })).toEqual([{ kind: 'reset', publicKey: 'PK' }]);
    expect(eventsOfChange({ kind: 'replace', records: { merchants: [], payments: [], orders: [], webhooks: [], clocks: [], deliveries: [] } })).toEqual([{ kind: 'replace' }]);
    expect(eventsOfChange({ kind: 'merchant', merchant: { publicKey: 'PK' } as never })).toEqual([]);
  });
});

describe('eventText', () => {
  it('is an id line, one data line of JSON, and a blank line, whatever the values hold', () => {
    const event: SandboxEvent = { id: 3, at: '2026-01-01T00:00:00.000Z', kind: 'payment', paymentReference: 'a\nb\r\nid: 9' };
    const text = eventText(event);
    expect(text.split('\n')).toEqual(['id: 3', `data: ${JSON.stringify(event)}`, '', '']);
    expect(JSON.parse(text.split('\n')[1]!.slice('data: '.length))).toEqual(event);
  });
});
