import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { controlOperations } from '../../../src/index.js';
import { checked } from '../../../src/known-states/files.js';
import { KnownStates, type SnapshotDocument } from '../../../src/known-states/known-states.js';
import { putState, snapshotText, takeState } from '../../../src/known-states/state.js';
import type { Payment } from '../../../src/model/records.js';
import { loadCatalogue } from '../../../src/scenarios/catalogue.js';
import { CLAIM_LEASE_MS } from '../../../src/store/lease.js';
import type { JournalEntryText } from '../../../src/store/shared-log.js';
import { OwnChanges, type Change, type SnapshotRecords, type Store } from '../../../src/store/store.js';
import { merchantRecord, orderRecord, paymentRecord, PUBLIC_A, PUBLIC_B } from '../fixtures.js';
import { fileEngine, type Engine, type EnginePlace } from './engines.js';
import { booksOf, clockRecord, deliveryRecord, webhookRecord, type Books } from './records.js';

/**
 * The contract of `Store` (src/store/store.ts), written once and run on each
 * engine: the JSON file, memory, and PostgreSQL (docs/design.md, "Two stores";
 * docs/decisions.md#d84-shared-store). Records put in units read back equal,
 * resets and replaces, what `transaction` answers, durability, watchers and
 * the overrides and faults beside the store. On PostgreSQL two stores on one
 * database are two replicas of one sandbox: what only they show (one
 * paymentReference taken once under concurrent units, delivery claims, exact
 * override counts, snapshots moved between the engines) is in the same block.
 * What only the file has (its log, folds, lock, sync levels) is tested in test/unit/store/.
 *
 * The last four PostgreSQL checks each failed once: the log read in the text
 * order of its numbers (1, 10, 11, 2, ...), and a replica opened after the
 * books were last written holding none of them.
 */

const A = PUBLIC_A;
const B = PUBLIC_B;
const C = 'SBTESTPUBK_cccccccc00000003';

/** Each test's limit: a few seconds on PostgreSQL, more on a machine busy with other tests. */
const TIMEOUT = 30_000;

/** The records `putSample` puts, in the order each list holds them (oldest first). */
function sample() {
  // References put out of their alphabetical order: a list must keep the order of the puts, not sort.
  const a3 = paymentRecord(A, 3);
  const a1 = paymentRecord(A, 1, { method: 'CARD', scenario: 'card-declined', status: 'FAILED', code: '02', message: 'Declined', productDescription: 'Café ☕ "deluxe"' });
  const b2 = paymentRecord(B, 2);
  const d1 = deliveryRecord(a3, 1);
  const d2 = deliveryRecord(b2, 2, { fault: { kind: 'late', delay: 'PT1M' } });
  const d3 = deliveryRecord(a1, 3, {
    state: 'delivered',
    attempts: [{ at: '2025-01-01T12:00:31.000Z', url: 'https://merchant.example.com/hooks/0001', ackReference: 'ack-3', status: 200, latencyMs: 12, acknowledged: true }],
  });
  delete d3.dueAt;
  return {
    merchants: [merchantRecord(A), merchantRecord(B)],
    payments: { a3, a1, b2 },
    orders: [orderRecord(A, a3.paymentReference), orderRecord(A, 'SBREF-ORDER-A0'), orderRecord(B, b2.paymentReference)],
    deliveries: { d1, d2, d3 },
    webhooks: [webhookRecord(B), webhookRecord(A, { events: ['refund', 'transaction'], schedule: 'legacy' })],
    clocks: [clockRecord(B, 5_000), clockRecord(A, 86_400_000)],
  };
}

/** Puts the sample in one unit: merchants, payments with the deliveries they cause, orders, a delivery alone, notification URLs, clocks. */
async function putSample(store: Store): Promise<ReturnType<typeof sample>> {
  const s = sample();
  await store.transaction(() => {
    for (const merchant of s.merchants) store.putMerchant(merchant);
    store.putPayment(s.payments.a3, [s.deliveries.d1]);
    store.putPayment(s.payments.a1);
    store.putPayment(s.payments.b2, [s.deliveries.d2]);
    for (const order of s.orders) store.putOrder(order);
    store.putDelivery(s.deliveries.d3);
    for (const webhook of s.webhooks) store.putWebhook(webhook.publicKey, webhook);
    for (const clock of s.clocks) store.putClock(clock);
  });
  return s;
}

/** Everything a store holds, as its reads show it, for comparing two stores. */
function everything(store: Store): SnapshotRecords {
  return store.records();
}

/** Registers the contract of every engine; `place` is the test's place, made afresh before each test. */
function contract(engine: Engine, place: EnginePlace): void {
  it('reads back equal the records put in a unit, each list oldest first', { timeout: TIMEOUT }, async () => {
    const store = await place.open();
    const s = await putSample(store);
    const { a3, a1, b2 } = s.payments;
    const { d1, d2, d3 } = s.deliveries;

    expect(store.merchants()).toEqual(s.merchants);
    expect(store.merchant(A)).toEqual(merchantRecord(A));
    expect(store.payments(A)).toEqual([a3, a1]);
    expect(store.payments(B)).toEqual([b2]);
    expect(store.payment(A, a1.paymentReference)).toEqual(a1);
    expect(store.payment(B, a1.paymentReference)).toBeUndefined();
    expect(store.paymentWithLinkingReference(b2.linkingReference)).toEqual(b2);
    expect(store.paymentByLinkingReference(A, b2.linkingReference)).toBeUndefined();
    expect(store.orders(A)).toEqual(s.orders.slice(0, 2));
    expect(store.order(B, b2.paymentReference)).toEqual(s.orders[2]);
    expect(store.deliveries(A)).toEqual([d1, d3]);
    expect(store.deliveries(B)).toEqual([d2]);
    expect(store.deliveries().map((delivery) => delivery.id).sort()).toEqual([d1.id, d2.id, d3.id]);
    expect(store.delivery(d2.id)).toEqual(d2);
    expect(store.webhooks()).toEqual(s.webhooks);
    expect(store.webhook(A)).toEqual(s.webhooks[1]);
    expect(store.clocks()).toEqual(s.clocks);
    expect(store.clock(A)).toEqual(clockRecord(A, 86_400_000));

    // A record put again takes the place of the old one and keeps its place in the list.
    const paid = { ...a3, status: 'SUCCESSFUL' as const, code: '00', message: 'Approved', updatedAt: '2025-01-01T12:05:00.000Z' };
    const attempted = { ...d1, state: 'delivered' as const, attempts: [{ at: '2025-01-01T12:00:30.000Z', url: 'https://merchant.example.com/h', ackReference: 'ack-1', status: 200, latencyMs: 5, acknowledged: true }] };
    await store.transaction(() => {
      store.putPayment(paid);
      store.putDelivery(attempted);
      store.putWebhook(B, null);
      store.putClock(clockRecord(B, 10_000));
    });
    expect(store.payments(A)).toEqual([paid, a1]);
    expect(store.deliveries(A)).toEqual([attempted, d3]);
    expect(store.webhooks()).toEqual([s.webhooks[1]]);
    expect(store.webhook(B)).toBeUndefined();
    expect(store.clocks()).toEqual([clockRecord(B, 10_000), clockRecord(A, 86_400_000)]);
    // records() lists what the reads show.
    expect(store.records()).toEqual({
      merchants: s.merchants, payments: [paid, a1, b2], orders: s.orders, webhooks: [s.webhooks[1]],
      clocks: [clockRecord(B, 10_000), clockRecord(A, 86_400_000)], deliveries: store.deliveries(),
    });
    expect(store.records(B)).toEqual({ merchants: [s.merchants[1]], payments: [b2], orders: [s.orders[2]], webhooks: [], clocks: [clockRecord(B, 10_000)], deliveries: [d2] });
  });

  it('resets one merchant, then every merchant: records go, merchants stay released with their notification URLs, clocks go back', { timeout: TIMEOUT }, async () => {
    const store = await place.open();
    const s = await putSample(store);
    const beforeB = store.records(B);

    await store.transaction(() => store.reset(A));
    expect(store.merchant(A)).toEqual({ ...merchantRecord(A), released: true });
    expect(store.payments(A)).toEqual([]);
    expect(store.orders(A)).toEqual([]);
    expect(store.deliveries(A)).toEqual([]);
    expect(store.delivery(s.deliveries.d1.id)).toBeUndefined();
    expect(store.paymentWithLinkingReference(s.payments.a1.linkingReference)).toBeUndefined();
    expect(store.clock(A)).toBeUndefined();
    expect(store.webhook(A)).toEqual(s.webhooks[1]);
    expect(store.records(B)).toEqual(beforeB);

    await store.transaction(() => store.reset());
    expect(store.merchants()).toEqual(s.merchants.map((merchant) => ({ ...merchant, released: true })));
    expect(store.records()).toEqual({ merchants: store.merchants(), payments: [], orders: [], webhooks: s.webhooks, clocks: [], deliveries: [] });

    // A reference reset away can be taken again, and what is durable agrees.
    await store.transaction(() => store.putPayment(s.payments.a1));
    expect(store.payments(A)).toEqual([s.payments.a1]);
    const view = await place.durableView();
    if (view) expect(everything(view)).toEqual(everything(store));
  });

  it('replaces the whole state, then one merchant\'s, and holds exactly the records given', { timeout: TIMEOUT }, async () => {
    const store = await place.open();
    const s = await putSample(store);
    const c1 = paymentRecord(C, 'SBREF-C-1');
    const whole: SnapshotRecords = {
      merchants: [merchantRecord(C), { ...merchantRecord(B), released: true }],
      payments: [c1, paymentRecord(B, 7), s.payments.b2],
      orders: [orderRecord(C, c1.paymentReference)],
      webhooks: [webhookRecord(C)],
      clocks: [clockRecord(C, 1_000)],
      deliveries: [deliveryRecord(c1, 9), s.deliveries.d2],
    };
    await store.transaction(() => store.replace(whole));
    expect(store.records()).toEqual(whole);
    expect(store.payment(A, s.payments.a1.paymentReference)).toBeUndefined();
    expect(store.delivery(s.deliveries.d1.id)).toBeUndefined();

    const mine: SnapshotRecords = {
      merchants: [merchantRecord(A)],
      payments: [s.payments.a1, s.payments.a3],
      orders: [s.orders[1]!],
      webhooks: [s.webhooks[1]!],
      clocks: [clockRecord(A, 42)],
      deliveries: [s.deliveries.d3],
    };
    const beforeOthers = { b: store.records(B), c: store.records(C) };
    await store.transaction(() => store.replace(mine, A));
    expect(store.records(A)).toEqual(mine);
    expect({ b: store.records(B), c: store.records(C) }).toEqual(beforeOthers);
    expect(store.paymentWithLinkingReference(s.payments.a3.linkingReference)).toEqual(s.payments.a3);

    // Replacing one merchant again takes its old records away.
    await store.transaction(() => store.replace({ merchants: [merchantRecord(A)], payments: [], orders: [], webhooks: [], clocks: [], deliveries: [] }, A));
    expect(store.payments(A)).toEqual([]);
    expect(store.paymentWithLinkingReference(s.payments.a1.linkingReference)).toBeUndefined();
    // ...and a reference it took away can be taken again.
    await store.transaction(() => store.putPayment(s.payments.a1));
    const view = await place.durableView();
    if (view) expect(everything(view)).toEqual(everything(store));
  });

  it('answers a unit with what its work returned, once durable; a work that throws rejects with its error and keeps what it put before', { timeout: TIMEOUT }, async () => {
    const store = await place.open();
    await expect(store.transaction(() => 42)).resolves.toBe(42);
    const a1 = paymentRecord(A, 1);
    const answered = await store.transaction(() => {
      store.putMerchant(merchantRecord(A));
      store.putPayment(a1);
      return { put: a1.paymentReference };
    });
    expect(answered).toEqual({ put: a1.paymentReference });
    // Durable by the time it answered: another process finds it without any more waiting.
    const view = await place.durableView();
    if (view) expect(view.payment(A, a1.paymentReference)).toEqual(a1);

    const boom = new Error('the work failed half way');
    const a2 = paymentRecord(A, 2);
    await expect(
      store.transaction(() => {
        store.putPayment(a2);
        throw boom;
      }),
    ).rejects.toBe(boom);
    // Kept, on every engine: a unit is not all-or-nothing (Store.transaction's doc).
    expect(store.payment(A, a2.paymentReference)).toEqual(a2);
    await store.commit();
    const after = await place.durableView();
    if (after) expect(after.payment(A, a2.paymentReference)).toEqual(a2);

    // One unit's throw is its own: units running beside it answer as ever.
    const answers = await Promise.allSettled([
      store.transaction(() => (store.putPayment(paymentRecord(A, 3)), 'three')),
      store.transaction(() => {
        throw boom;
      }),
      store.transaction(() => (store.putPayment(paymentRecord(A, 4)), 'four')),
    ]);
    expect(answers).toEqual([
      { status: 'fulfilled', value: 'three' },
      { status: 'rejected', reason: boom },
      { status: 'fulfilled', value: 'four' },
    ]);
    expect(store.payments(A).map((payment) => payment.paymentReference)).toEqual([1, 2, 3, 4].map((n) => paymentRecord(A, n).paymentReference));
  });

  it('keeps its state for a second store on the same place (the file closed first; two replicas at once on PostgreSQL)', { timeout: TIMEOUT }, async () => {
    const first = await place.open();
    await putSample(first);
    const state = everything(first);
    if (engine.kind === 'memory') {
      // Memory only: a second store starts empty.
      expect(everything(await place.open())).toEqual({ merchants: [], payments: [], orders: [], webhooks: [], clocks: [], deliveries: [] });
      return;
    }
    if (engine.kind === 'file') {
      await first.close();
      const second = await place.open();
      expect(everything(second)).toEqual(state);
      return;
    }
    const second = await place.open();
    expect(everything(second)).toEqual(state);
    // Each sees the other's change once it refreshes.
    await second.transaction(() => second.putPayment(paymentRecord(B, 8)));
    await first.refresh();
    expect(first.payment(B, paymentRecord(B, 8).paymentReference)).toEqual(paymentRecord(B, 8));
    await first.transaction(() => first.reset(A));
    await second.refresh();
    expect(everything(second)).toEqual(everything(first));
    // Both closed: a third reads the whole log.
    const final = everything(first);
    await first.close();
    await second.close();
    expect(everything(await place.open())).toEqual(final);
  });

  it("takes back one writer's own changes only, in one replace: another writer's stay, and so does a record of the writer's changed since (on PostgreSQL, by another replica)", { timeout: TIMEOUT }, async () => {
    const one = await place.open();
    const other = engine.kind === 'postgres' ? await place.open() : one;
    await one.transaction(() => {
      one.putMerchant(merchantRecord(A));
      one.putWebhook(A, webhookRecord(A));
    });
    const own = new OwnChanges();
    const [a1, a2] = [paymentRecord(A, 1), paymentRecord(A, 2)];
    await one.recordOwn(own, () => one.transaction(() => {
      one.putMerchant(merchantRecord(B));
      one.putPayment(a1, [deliveryRecord(a1, 1)]);
      one.putPayment(a2);
      one.putWebhook(A, null);
      one.putClock(clockRecord(A, 60_000));
    }));
    // Another writer, after: a payment of its own, and a change of the writer's second payment.
    await other.refresh();
    const b1 = paymentRecord(B, 1);
    const a2Changed = { ...a2, updatedAt: '2025-01-02T00:00:00.000Z' };
    await other.transaction(() => {
      other.putPayment(b1);
      other.putPayment(a2Changed);
    });
    const kept = await one.transaction(() => {
      const back = one.withoutOwn(own);
      one.replace(back.records);
      return back.kept;
    });
    expect(kept).toEqual([
      { table: 'payment', publicKey: A, paymentReference: a2.paymentReference },
      { table: 'merchant', publicKey: B },
    ]);
    expect(one.payment(A, a1.paymentReference)).toBeUndefined();
    expect(one.deliveries(A)).toEqual([]);
    expect(one.payment(A, a2.paymentReference)).toEqual(a2Changed);
    expect(one.payment(B, b1.paymentReference)).toEqual(b1);
    // B's merchant record is the writer's, but the other writer's payment of B needs it.
    expect(one.merchant(B)).toEqual(merchantRecord(B));
    expect(one.webhook(A)).toEqual(webhookRecord(A));
    expect(one.clock(A)).toBeUndefined();
    await other.refresh();
    expect(everything(other)).toEqual(everything(one));
  });

  it('calls each watcher once per change put, in order, until it stops', { timeout: TIMEOUT }, async () => {
    const store = await place.open();
    const heard: Change[] = [];
    const stop = store.watch((change) => heard.push(change));
    const a1 = paymentRecord(A, 1);
    const d1 = deliveryRecord(a1, 1);
    await store.transaction(() => {
      store.putMerchant(merchantRecord(A));
      store.putPayment(a1, [d1]);
      store.putClock(clockRecord(A, 1_000));
    });
    await store.transaction(() => store.reset(A));
    const expected: Change[] = [
      { kind: 'merchant', merchant: merchantRecord(A) },
      { kind: 'payment', payment: a1, deliveries: [d1] },
      { kind: 'clock', clock: clockRecord(A, 1_000) },
      { kind: 'reset', publicKey: A },
    ];
    expect(heard).toEqual(expected);
    // What a replica made is not heard again when it reads the log.
    await store.refresh();
    expect(heard).toEqual(expected);
    stop();
    await store.transaction(() => store.putClock(clockRecord(A, 2_000)));
    expect(heard).toHaveLength(expected.length);
  });

  it('gives out an override with times 3 three times and a fault with times 2 twice, however many units ask', { timeout: TIMEOUT }, async () => {
    const first = await place.open();
    // On PostgreSQL, units on two replicas at once; elsewhere one store holds the books.
    const stores = engine.kind === 'postgres' ? [first, await place.open()] : [first];
    const books = stores.map((store) => booksOf(store));
    await first.transaction(() => {
      books[0]!.overrides.add({ scenario: 'card-declined', publicKey: A, times: 3 }, '2025-01-01T12:00:00.000Z');
      books[0]!.faults.add(A, { kind: 'never', times: 2 });
    });
    const takes = Array.from({ length: 12 }, (_, n) => {
      const store = stores[n % stores.length]!;
      const own = books[n % stores.length]!;
      return store.transaction(() => ({ override: own.overrides.take(A, () => true)?.scenario, fault: own.faults.take(A)?.kind }));
    });
    const taken = await Promise.all(takes);
    expect(taken.filter((one) => one.override === 'card-declined')).toHaveLength(3);
    expect(taken.filter((one) => one.fault === 'never')).toHaveLength(2);
    for (const store of stores) await store.refresh();
    for (const own of books) {
      expect(own.overrides.list()).toEqual([]);
      expect(own.faults.all()).toEqual([]);
    }
  });

  if (engine.kind !== 'postgres') {
    it('grants every claim at once, for ever, and takes a put outside a unit (one process holds the store)', { timeout: TIMEOUT }, async () => {
      const store = await place.open();
      await expect(store.claim('dlv_1')).resolves.toEqual({ claimed: true, untilMs: Number.POSITIVE_INFINITY });
      await expect(store.claim('dlv_1')).resolves.toEqual({ claimed: true, untilMs: Number.POSITIVE_INFINITY });
      await store.unclaim('dlv_1');
      store.putMerchant(merchantRecord(A));
      store.booksChanged();
      await store.commit();
      expect(store.merchant(A)).toEqual(merchantRecord(A));
    });
  }
}

/** What only two replicas of one database show; registered in the PostgreSQL engine's block. */
function replicas(place: EnginePlace, json: EnginePlace): void {
  it('takes a paymentReference once when 50 units on two replicas each put it only if it is not there', { timeout: TIMEOUT }, async () => {
    const [one, two] = [await place.open(), await place.open()];
    await one.transaction(() => one.putMerchant(merchantRecord(A)));
    const wanted = paymentRecord(A, 'SBREF-ONCE');
    const units = Array.from({ length: 50 }, (_, n) => {
      const store = n % 2 === 0 ? one : two;
      return store.transaction(() => {
        const found = store.payment(A, wanted.paymentReference);
        if (found) return { created: false, saw: found.scenario };
        store.putPayment({ ...wanted, scenario: `by-unit-${n}` });
        return { created: true, saw: `by-unit-${n}` };
      });
    });
    const answers = await Promise.all(units);
    const created = answers.filter((answer) => answer.created);
    expect(created).toHaveLength(1);
    // Every other unit saw the one payment made.
    expect(new Set(answers.map((answer) => answer.saw))).toEqual(new Set([created[0]!.saw]));
    await Promise.all([one.refresh(), two.refresh()]);
    expect(one.payments(A)).toEqual(two.payments(A));
    expect(one.payments(A).map((payment) => payment.scenario)).toEqual([created[0]!.saw]);
    const client = new pg.Client({ connectionString: place.where });
    await client.connect();
    try {
      const keys = await client.query('SELECT public_key, payment_reference FROM sandbox_payment_keys');
      // Key columns hold each key's JSON text (src/store/shared-log.ts, keyText).
      expect(keys.rows).toEqual([{ public_key: JSON.stringify(A), payment_reference: JSON.stringify(wanted.paymentReference) }]);
    } finally {
      await client.end();
    }
  });

  it('refuses a change put outside a unit, and a change of the books, and changes nothing', { timeout: TIMEOUT }, async () => {
    const store = await place.open();
    expect(() => store.putMerchant(merchantRecord(A))).toThrow(/outside a unit of work/);
    expect(() => store.reset()).toThrow(/outside a unit of work/);
    booksOf(store);
    expect(() => store.booksChanged()).toThrow(/outside a unit of work/);
    expect(store.merchants()).toEqual([]);
    // Nothing reached the log either.
    const other = await place.open();
    expect(other.merchants()).toEqual([]);
  });

  it('grants a delivery\'s claim to one replica for CLAIM_LEASE_MS, refuses it to the other until it is let go', { timeout: TIMEOUT }, async () => {
    const [one, two] = [await place.open(), await place.open()];
    const asked = Date.now();
    const held = await one.claim('dlv_claimed');
    expect(held.claimed).toBe(true);
    expect(held.untilMs).toBeGreaterThanOrEqual(asked + CLAIM_LEASE_MS - 2_000);
    expect(held.untilMs).toBeLessThanOrEqual(Date.now() + CLAIM_LEASE_MS + 2_000);
    const refused = await two.claim('dlv_claimed');
    expect(refused).toEqual({ claimed: false, untilMs: held.untilMs });
    // The holder may claim again (its lease renewed); another delivery is free.
    expect((await one.claim('dlv_claimed')).claimed).toBe(true);
    expect((await two.claim('dlv_other')).claimed).toBe(true);
    // Letting go of a claim one does not hold changes nothing.
    await two.unclaim('dlv_claimed');
    expect((await two.claim('dlv_claimed')).claimed).toBe(false);
    await one.unclaim('dlv_claimed');
    const taken = await two.claim('dlv_claimed');
    expect(taken.claimed).toBe(true);
    expect(taken.untilMs).toBeGreaterThan(Date.now() + CLAIM_LEASE_MS - 2_000);
    expect((await one.claim('dlv_claimed')).claimed).toBe(false);
  });

  it('tells the other replica\'s watchers each change once, after it refreshes', { timeout: TIMEOUT }, async () => {
    const [one, two] = [await place.open(), await place.open()];
    const heard: Change[] = [];
    two.watch((change) => heard.push(change));
    const a1 = paymentRecord(A, 1);
    await one.transaction(() => {
      one.putMerchant(merchantRecord(A));
      one.putPayment(a1, [deliveryRecord(a1, 1)]);
    });
    await one.transaction(() => one.reset(A));
    await two.refresh();
    await two.refresh();
    expect(heard).toEqual([
      { kind: 'merchant', merchant: merchantRecord(A) },
      { kind: 'payment', payment: a1, deliveries: [deliveryRecord(a1, 1)] },
      { kind: 'reset', publicKey: A },
    ]);
  });

  it('shares the overrides and faults: a change on one replica is the other\'s after it refreshes', { timeout: TIMEOUT }, async () => {
    const [one, two] = [await place.open(), await place.open()];
    const [books1, books2] = [booksOf(one), booksOf(two)];
    await one.transaction(() => {
      books1.overrides.add({ scenario: 'card-declined', publicKey: A, times: 2 }, '2025-01-01T12:00:00.000Z');
      books1.overrides.add({ delay: { ms: 250 } }, '2025-01-01T12:00:01.000Z');
      books1.faults.add(A, { kind: 'receiver-error', status: 503, attempts: 2 });
    });
    await two.refresh();
    expect(books2.overrides.list()).toEqual(books1.overrides.list());
    expect(books2.faults.all()).toEqual(books1.faults.all());
    await two.transaction(() => books2.overrides.clear());
    await one.refresh();
    expect(books1.overrides.list()).toEqual([]);
    expect(books1.faults.all()).toEqual(books2.faults.all());
  });

  // `ORDER BY seq` beside an output column `seq::text` sorts the text: entries 1, 10, 11, 2, ... applied out of order.
  it('a replica reads more than 9 log entries in their order, each once', { timeout: TIMEOUT }, async () => {
    const [one, two] = [await place.open(), await place.open()];
    const heard: number[] = [];
    two.watch((change) => change.kind === 'clock' && heard.push(change.clock.offsetMs));
    // One batch: the other replica reads its 12 entries in one catch-up.
    await one.transaction(() => {
      for (let offset = 1; offset <= 12; offset += 1) one.putClock(clockRecord(A, offset));
    });
    await two.refresh();
    await two.refresh();
    expect(heard).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(two.clock(A)).toEqual(clockRecord(A, 12));
    expect((await place.open()).clock(A)).toEqual(clockRecord(A, 12));
  });

  // A batch whose own catch-up reads past the 9th entry must number its entries after the greatest it read, not onto one that exists.
  it('takes a unit on a replica that has more than 9 entries to read first', { timeout: TIMEOUT }, async () => {
    const [one, two] = [await place.open(), await place.open()];
    await one.transaction(() => {
      for (let offset = 1; offset <= 12; offset += 1) one.putClock(clockRecord(A, offset));
    });
    await expect(two.transaction(() => two.putClock(clockRecord(A, 13)))).resolves.toBeUndefined();
    expect(two.health()).toEqual({ writable: true });
    await one.refresh();
    expect(one.clock(A)).toEqual(clockRecord(A, 13));
  });

  // The journal's texts travel as one text split on line feeds: a value's line feed, NUL or lone surrogate is an escape in its JSON.
  it('shares the journal: the other replica receives the newest entries whole and in order, and the unlogged table keeps the journal\'s capacity', { timeout: TIMEOUT }, async () => {
    const [one, two] = [await place.open(), await place.open()];
    const received: JournalEntryText[] = [];
    await one.shareJournal({ capacity: 3, receive: () => undefined, clear: () => undefined });
    await two.shareJournal({ capacity: 3, receive: (entry) => received.push(entry), clear: () => undefined });
    const sent: JournalEntryText[] = [
      { id: 1, publicKey: A, path: '/api/v2/payments/initiates' },
      { id: 2, path: '/api/v2/token', body: { note: 'one\ntwo\r\n' } },
      { id: 3, publicKey: B, body: { note: 'nul \u0000, lone \ud800, a line separator \u2028 and 🍕' } },
      { id: 4, path: '/api/v2/payments/\n' },
      { id: 5, publicKey: 'SBTESTPUBK_\n', body: '' },
    ];
    for (const entry of sent) one.sendJournal(entry.publicKey, JSON.stringify(entry));
    // Closing writes what waits for its batch.
    await one.close();
    await two.refresh();
    expect(received).toEqual(sent.slice(-3));
    const client = new pg.Client({ connectionString: place.where });
    await client.connect();
    try {
      const { rows } = await client.query<{ persistence: string; kept: number; keys: Array<string | null> }>(
        "SELECT (SELECT relpersistence FROM pg_class WHERE relname = 'sandbox_journal') AS persistence, count(*)::int AS kept, array_agg(public_key ORDER BY id) AS keys FROM sandbox_journal",
      );
      expect(rows[0]).toEqual({ persistence: 'u', kept: 3, keys: [JSON.stringify(B), null, JSON.stringify('SBTESTPUBK_\n')] });
    } finally {
      await client.end();
    }
  });

  // A replica with an override and a fault in its books, and a second one opened after they were written, its books wired after the open as startSandbox wires them.
  const lateReplica = async () => {
    const one = await place.open();
    const books1 = booksOf(one);
    await one.transaction(() => {
      books1.overrides.add({ scenario: 'card-declined', publicKey: A }, '2025-01-01T12:00:00.000Z');
      books1.faults.add(A, { kind: 'never' });
    });
    const two = await place.open();
    return { one, books1, two, books2: booksOf(two) };
  };

  // open() reads the log before the owner calls shareBooks: the books read then are handed over by shareBooks.
  it('gives a replica opened later the overrides and faults committed before it opened', { timeout: TIMEOUT }, async () => {
    const { books1, two, books2 } = await lateReplica();
    await two.refresh();
    expect(books2.overrides.list()).toEqual(books1.overrides.list());
    expect(books2.faults.all()).toEqual(books1.faults.all());
  });

  // The books go into the log whole: a late replica's first change of them must start from the books it read.
  it('keeps the overrides and faults a replica opened later did not know when it changes the books', { timeout: TIMEOUT }, async () => {
    const { one, books1, two, books2 } = await lateReplica();
    await two.transaction(() => books2.faults.add(B, { kind: 'duplicate' }));
    await one.refresh();
    expect(books1.overrides.list().map((override) => override.scenario)).toEqual(['card-declined']);
    expect(books1.faults.all().map((fault) => fault.publicKey)).toEqual([A, B]);
  });

  it('moves a state JSON -> PostgreSQL -> JSON unchanged: records, overrides and faults', { timeout: TIMEOUT }, async () => {
    const source = await json.open('source.json');
    const sourceBooks = booksOf(source);
    await richState(source, sourceBooks);
    const taken = takeState({ store: source, ...sourceBooks });

    const shared = await place.open();
    const sharedBooks = booksOf(shared);
    // A second replica, open before the load.
    const other = await place.open();
    const otherBooks = booksOf(other);
    await putState({ store: shared, ...sharedBooks }, taken);
    const fromShared = takeState({ store: shared, ...sharedBooks });
    expect(fromShared).toEqual(taken);
    // The other replica holds it too, books included.
    await other.refresh();
    expect(takeState({ store: other, ...otherBooks })).toEqual(taken);

    const target = await json.open('target.json');
    const targetBooks = booksOf(target);
    await putState({ store: target, ...targetBooks }, fromShared);
    expect(takeState({ store: target, ...targetBooks })).toEqual(taken);
  });

  it('moves a snapshot\'s text JSON -> PostgreSQL -> JSON byte for byte, apart from takenAt', { timeout: TIMEOUT }, async () => {
    const operations = await controlOperations();
    const scenarios = new Set((await loadCatalogue()).map((scenario) => scenario.name));
    /** KnownStates over a store and its books, as startSandbox makes it for the control API. */
    const knownStatesOf = (store: Store, books: Books) =>
      new KnownStates({ store, ...books, clearJournal: () => undefined, isScenario: (name) => scenarios.has(name), send: () => Promise.reject(new Error('no steps here')), wholeState: () => false });
    /** GET /__sandbox/snapshot's text. */
    const textOf = (states: KnownStates, takenAt: string) => [...snapshotText(states.take(), takenAt)].join('');
    /** POST /__sandbox/snapshot's reading: the body parsed, checked against the control API's document, loaded. */
    const load = async (states: KnownStates, text: string) => {
      const document = checked(operations, 'putSnapshot', JSON.parse(text), 'the snapshot', 'POST /__sandbox/snapshot') as SnapshotDocument;
      return states.loadSnapshot(document);
    };
    const withoutTakenAt = (text: string) => text.replace(/\n"takenAt": "[^"]*",/, '');

    const source = await json.open('source.json');
    const sourceBooks = booksOf(source);
    await richState(source, sourceBooks);
    const first = textOf(knownStatesOf(source, sourceBooks), '2025-02-01T00:00:00.000Z');

    const shared = await place.open();
    const sharedStates = knownStatesOf(shared, booksOf(shared));
    const other = await place.open();
    const otherStates = knownStatesOf(other, booksOf(other));
    expect(await load(sharedStates, first)).toBe(source.records().payments.length);
    const second = textOf(sharedStates, '2025-02-01T00:00:01.000Z');
    expect(withoutTakenAt(second)).toBe(withoutTakenAt(first));
    // A replica that reads it from the log writes the same text.
    await other.refresh();
    expect(withoutTakenAt(textOf(otherStates, '2025-02-01T00:00:02.000Z'))).toBe(withoutTakenAt(first));

    const target = await json.open('target.json');
    const targetStates = knownStatesOf(target, booksOf(target));
    await load(targetStates, second);
    const third = textOf(targetStates, '2025-02-01T00:00:03.000Z');
    expect(withoutTakenAt(third)).toBe(withoutTakenAt(first));
    expect(third).not.toBe(first);
  });
}

/** A state with something of every kind: merchants (one released), payments, orders, deliveries with attempts and faults, URLs, clocks, overrides and faults. */
async function richState(store: Store, books: Books): Promise<void> {
  const s = await putSample(store);
  const c1: Payment = paymentRecord(C, 'SBREF-C-1', { method: 'CARD', card: { bin: '539983', last4: '8381', token: 'SBTOK_c1' } });
  await store.transaction(() => {
    store.reset(B);
    store.putMerchant(merchantRecord(C));
    store.putPayment(c1, [deliveryRecord(c1, 4, { state: 'withheld', fault: { kind: 'never' } })]);
    store.putPayment({ ...s.payments.a1, refundedAmount: '10.00', updatedAt: '2025-01-01T13:00:00.000Z' });
    books.overrides.add({ scenario: 'card-declined', publicKey: A, times: 2 }, '2025-01-01T12:00:00.000Z');
    books.overrides.add({ delay: { minMs: 10, maxMs: 20 }, fault: 'hang', times: 1 }, '2025-01-01T12:00:01.000Z');
    books.overrides.add({ scenario: 'card-stays-pending', publicKey: C }, '2025-01-01T12:00:02.000Z');
    books.faults.add(A, { kind: 'late', delay: 'PT5M', times: 3 });
    books.faults.add(C, { kind: 'receiver-error', status: 500, attempts: 1 });
  });
}

/**
 * Registers the contract's tests on each of `engines` (engines.ts): the file
 * and memory in the unit project (test/unit/store/contract.test.ts), which
 * open no socket, PostgreSQL end to end (store-contract.test.ts beside this file).
 */
export function storeContract(engines: readonly Engine[]): void {
  describe.each(engines)('the store on $name', (engine) => {
    engine.block(`Store's contract on ${engine.name}`, () => {
      const place = engine.prepare();
      contract(engine, place);
      // The JSON store's places for the snapshots moved between the engines: within the PostgreSQL block, skipped with it.
      if (engine.kind === 'postgres') replicas(place, fileEngine.prepare());
    });
  });
}
