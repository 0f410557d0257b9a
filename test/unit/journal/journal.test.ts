import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Journal, maskResponse, type JournalEntry } from '../../../src/journal/journal.js';
import type { Sandbox } from '../../../src/index.js';
import { ControlClient } from '../../support/control.js';
import { accountPayment, ApiClient, sandboxForTest, type TestMerchant } from '../../support/sandbox.js';

/**
 * The request journal is a fixed ring: however many requests a sandbox
 * answers, it holds at most `journalSize` of them, the newest.
 */

describe('a sandbox with journalSize 50', () => {
  const SIZE = 50;
  const SENT = SIZE * 10;
  let sandbox: Sandbox;
  let api: ApiClient;
  let control: ControlClient;
  let merchant: TestMerchant;

  beforeAll(async () => {
    sandbox = await sandboxForTest({ journalSize: SIZE });
    api = await ApiClient.for(sandbox);
    control = await ControlClient.for(sandbox);
    merchant = await api.merchant();
  });
  afterAll(() => sandbox.close());

  const reference = (n: number) => `SBREF-RING-${String(n).padStart(4, '0')}`;

  it(`holds at most ${SIZE} entries over ${SENT} requests, and keeps the newest`, { timeout: 60_000 }, async () => {
    for (let n = 0; n < SENT; n += 1) {
      const answered = await api.as(merchant, 'POST', '/payments/initiates', accountPayment({ paymentReference: reference(n) }));
      expect(answered.body.data.code).toBe('20');
      if ((n + 1) % SIZE === 0) {
        const journal = (await control.requests()).body;
        expect(journal.capacity).toBe(SIZE);
        expect(journal.count).toBeLessThanOrEqual(SIZE);
        expect(journal.requests.length).toBeLessThanOrEqual(SIZE);
        expect(journal.count).toBe(journal.requests.length);
      }
    }

    const journal = (await control.requests()).body;
    expect(journal.capacity).toBe(SIZE);
    expect(journal.count).toBe(SIZE);
    expect(journal.requests).toHaveLength(SIZE);
    // Newest first: the last 50 references sent, in reverse order.
    const expected = Array.from({ length: SIZE }, (_, index) => reference(SENT - 1 - index));
    expect(journal.requests.map((entry: JournalEntry) => entry.paymentReference)).toEqual(expected);
    // The key exchange was request 1 and the initiates 2..501: ids 452..501 are kept.
    expect(journal.requests.map((entry: JournalEntry) => entry.id)).toEqual(Array.from({ length: SIZE }, (_, index) => SENT + 1 - index));

    const limited = (await control.requests({ limit: 5 })).body;
    expect(limited.requests.map((entry: JournalEntry) => entry.paymentReference)).toEqual(expected.slice(0, 5));
    // An early reference is gone from the journal, though its payment is still stored.
    expect((await control.requests({ paymentReference: reference(0) })).body.requests).toEqual([]);
    expect((await control.payment(reference(0), merchant.publicKey)).body.status).toBe('PENDING');
  });
});

describe('Journal', () => {
  const entry = (publicKey: string, path = '/payments/initiates', paymentReference?: string): Omit<JournalEntry, 'id'> => ({
    time: '2025-03-14T09:00:00.000Z',
    method: 'POST',
    path,
    publicKey,
    paymentReference,
    status: 200,
    durationMs: 1,
    request: { headers: {} },
  });

  it('wraps around: a full ring drops its oldest entry for each new one', () => {
    const journal = new Journal(3);
    expect(journal.count).toBe(0);
    expect(journal.query()).toEqual([]);
    const ids = Array.from({ length: 7 }, (_, n) => journal.record(entry('A', '/p', `R${n}`)).id);
    expect(ids).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(journal.count).toBe(3);
    expect(journal.query().map((kept) => kept.paymentReference)).toEqual(['R6', 'R5', 'R4']);
    expect(journal.query().map((kept) => kept.id)).toEqual([7, 6, 5]);
  });

  it('clears one merchant\'s entries, keeps the others in order, and goes on recording', () => {
    const journal = new Journal(5);
    journal.record(entry('A', '/p', 'A1'));
    journal.record(entry('B', '/p', 'B1'));
    journal.record(entry('A', '/p', 'A2'));
    journal.record(entry('B', '/p', 'B2'));
    journal.clear('A');
    expect(journal.count).toBe(2);
    expect(journal.query().map((kept) => kept.paymentReference)).toEqual(['B2', 'B1']);
    expect(journal.query({ publicKey: 'A' })).toEqual([]);

    journal.record(entry('A', '/p', 'A3'));
    expect(journal.query().map((kept) => kept.paymentReference)).toEqual(['A3', 'B2', 'B1']);
    expect(journal.query()[0]!.id).toBe(5);

    journal.clear();
    expect(journal.count).toBe(0);
    expect(journal.query()).toEqual([]);
  });

  it('query: limit caps the newest entries; filters combine; limit counts matches only', () => {
    const journal = new Journal(10);
    journal.record(entry('A', '/x', 'R1'));
    journal.record(entry('B', '/x', 'R1'));
    journal.record(entry('A', '/y', 'R2'));
    journal.record(entry('A', '/x', 'R3'));
    journal.record(entry('B', '/y', 'R4'));

    expect(journal.query({ limit: 2 }).map((kept) => kept.paymentReference)).toEqual(['R4', 'R3']);
    expect(journal.query({ limit: 100 })).toHaveLength(5);
    expect(journal.query({ publicKey: 'A', limit: 2 }).map((kept) => kept.paymentReference)).toEqual(['R3', 'R2']);
    expect(journal.query({ publicKey: 'A', path: '/x' }).map((kept) => kept.paymentReference)).toEqual(['R3', 'R1']);
    expect(journal.query({ paymentReference: 'R1' }).map((kept) => kept.publicKey)).toEqual(['B', 'A']);
    expect(journal.query({ paymentReference: 'R1', publicKey: 'B', path: '/y' })).toEqual([]);
  });
});

describe('what the journal keeps of an answer', () => {
  it('redacts the bearer token of a key exchange and the card token of a refund, and nothing else', () => {
    const keys = { status: 'SUCCESS', data: { code: '00', message: 'Successful', EncrytedSecKey: { encryptedKey: 'SBTOKEN_x.y' } } };
    expect(maskResponse(keys)).toEqual({ status: 'SUCCESS', data: { code: '00', message: 'Successful', EncrytedSecKey: { encryptedKey: '[redacted]' } } });
    const refund = { status: 'SUCCESS', data: { code: '00', message: 'APPROVED', payments: { paymentReference: 'R', status: 'REFUNDED', card: { bin: '512345', last4: '0008', token: 'SBCTK_1' } } } };
    expect(maskResponse(refund)).toEqual({ ...refund, data: { ...refund.data, payments: { ...refund.data.payments, card: { bin: '512345', last4: '0008', token: '[redacted]' } } } });
    expect(refund.data.payments.card.token).toBe('SBCTK_1');
  });

  it('knows after when every request is still held: its start, then the newest entry let go of by its bounds or a clear', () => {
    const journal = new Journal(2);
    expect(journal.completeAfterMs).toBeLessThan(Date.now());
    expect(journal.completeAfterMs).toBeGreaterThan(Date.now() - 60_000);
    const at = (second: number): Omit<JournalEntry, 'id'> => ({
      time: new Date(Date.UTC(2030, 0, 1, 0, 0, second)).toISOString(), method: 'POST', path: '/p', publicKey: 'A', status: 200, durationMs: 1, request: { headers: {} },
    });
    journal.record(at(1));
    journal.record(at(2));
    // Nothing let go of yet: the start of the journal still stands.
    expect(journal.completeAfterMs).toBeLessThan(Date.UTC(2030, 0, 1));
    journal.record(at(3));
    expect(journal.completeAfterMs).toBe(Date.UTC(2030, 0, 1, 0, 0, 1));
    journal.record({ ...at(4), publicKey: 'B' });
    journal.clear('A');
    expect(journal.completeAfterMs).toBe(Date.UTC(2030, 0, 1, 0, 0, 3));
    journal.clear();
    expect(journal.completeAfterMs).toBe(Date.UTC(2030, 0, 1, 0, 0, 4));
  });

  it('refuses a journal of no entries', () => {
    expect(() => new Journal(0)).toThrow(RangeError);
  });
});
