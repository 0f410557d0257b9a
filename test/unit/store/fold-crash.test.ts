import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SnapshotFile } from '../../../src/store/snapshot.js';
import { Store, StoreOpenError } from '../../../src/store/store.js';
import { Tables, type Change } from '../../../src/store/tables.js';
import { WriteAheadLog } from '../../../src/store/write-ahead-log.js';
import { asideOf, changeLine, hold, logLines, merchantRecord, orderRecord, paymentRecord, PUBLIC_A, PUBLIC_B, stateOf, storeFiles, writeSnapshot, type Hold } from '../../store/fixtures.js';

/**
 * A crash in every window of a fold leaves files that reopen with every
 * acknowledged change, in order: start-up replays the snapshot, the log set
 * aside, then the log, and replaying changes the snapshot already holds is
 * harmless (src/store/fold.ts).
 */

const files = storeFiles('payments-sandbox-fold-crash-');
const KEYS = [PUBLIC_A, PUBLIC_B];
const PAID = { status: 'SUCCESSFUL', code: '00', message: 'Successful' } as const;
const originalWrite = SnapshotFile.prototype.write;
const originalReopen = WriteAheadLog.prototype.reopen;
let holds: Hold[] = [];
// Before the stores are closed: a store held in a fold would never close.
afterEach(() => {
  for (const held of holds) held.release();
  holds = [];
  vi.restoreAllMocks();
});

/** Changes that put, replace and reset records of two merchants: what replaying twice could get wrong. */
const STEPS: Array<(store: Store) => void> = [
  (store) => store.putMerchant(merchantRecord(PUBLIC_A)),
  (store) => store.putMerchant(merchantRecord(PUBLIC_B)),
  (store) => store.putPayment(paymentRecord(PUBLIC_A, 1)),
  (store) => store.putPayment(paymentRecord(PUBLIC_B, 1)),
  // The first fold is due here (four changes); the second after four more (the snapshot then holds four records).
  (store) => store.putPayment(paymentRecord(PUBLIC_A, 2)),
  (store) => store.putOrder(orderRecord(PUBLIC_A, 'SBREF-ORDER-1')),
  (store) => store.putPayment(paymentRecord(PUBLIC_A, 1, PAID)),
  (store) => store.reset(PUBLIC_B),
  // Made while the second fold is held.
  (store) => store.putPayment(paymentRecord(PUBLIC_B, 2)),
  (store) => store.putPayment(paymentRecord(PUBLIC_A, 3)),
  (store) => store.putPayment(paymentRecord(PUBLIC_A, 2, PAID)),
  (store) => store.reset(PUBLIC_A),
  (store) => store.putPayment(paymentRecord(PUBLIC_A, 4)),
  (store) => store.putPayment(paymentRecord(PUBLIC_B, 1)),
];

async function play(store: Store, from: number, to: number): Promise<void> {
  for (const step of STEPS.slice(from, to)) {
    step(store);
    await store.commit();
  }
}

/** Holds the store where a crash is to happen: `spy` installs the hold on the method that reaches that point. */
const WINDOWS: Array<[string, (held: Hold) => void, boolean]> = [
  [
    'after the log is renamed aside, before the new log is made',
    (held) =>
      vi.spyOn(WriteAheadLog.prototype, 'reopen').mockImplementation(async function (this: WriteAheadLog) {
        held.arrive();
        await held.wait;
        return originalReopen.call(this);
      }),
    // No commit can resolve here: the log is between two files.
    false,
  ],
  [
    'after the log is set aside, before the new snapshot is renamed into place',
    (held) =>
      vi.spyOn(SnapshotFile.prototype, 'write').mockImplementation(async function (this: SnapshotFile, ...args) {
        held.arrive();
        await held.wait;
        return originalWrite.apply(this, args);
      }),
    true,
  ],
  [
    'after the new snapshot is renamed into place, before the set-aside log is removed',
    (held) =>
      vi.spyOn(SnapshotFile.prototype, 'write').mockImplementation(async function (this: SnapshotFile, ...args) {
        await originalWrite.apply(this, args);
        held.arrive();
        await held.wait;
      }),
    true,
  ],
];

describe('a crash during a fold', () => {
  it('before the log is set aside: the snapshot and the log as they are', async () => {
    const store = await files.open({ snapshotEvery: 4 });
    await play(store, 0, 3);
    expect(existsSync(asideOf(files.file))).toBe(false);
    const reopened = await files.open({ file: await files.crashCopy() });
    expect(stateOf(reopened, KEYS)).toEqual(stateOf(store, KEYS));
  });

  it.each(WINDOWS)('%s loses nothing acknowledged, and keeps the order', async (_window, install, commitsGoOn) => {
    const store = await files.open({ snapshotEvery: 4 });
    await play(store, 0, 4);
    await vi.waitFor(() => expect(existsSync(files.file) && !existsSync(asideOf(files.file))).toBe(true));

    const held = hold();
    holds.push(held);
    install(held);
    await play(store, 4, 8);
    await held.reached;
    expect(existsSync(asideOf(files.file))).toBe(true);
    if (commitsGoOn) await play(store, 8, STEPS.length);

    const copy = await files.crashCopy();
    expect(existsSync(asideOf(copy))).toBe(true);
    const reopened = await files.open({ file: copy });
    expect(stateOf(reopened, KEYS)).toEqual(stateOf(store, KEYS));

    held.release();
    await vi.waitFor(() => expect(existsSync(asideOf(files.file))).toBe(false));
    // The copy folds the set-aside log it found as it opened: its files then hold the same state.
    await vi.waitFor(() => expect(existsSync(asideOf(copy))).toBe(false));
    const again = await files.open({ file: await files.crashCopy() });
    expect(stateOf(again, KEYS)).toEqual(stateOf(store, KEYS));
  });
});

describe('start-up', () => {
  it('replays the snapshot, then the set-aside log, then the log, and folds the set-aside log', async () => {
    await writeSnapshot(files.file, [paymentRecord(PUBLIC_A, 1), paymentRecord(PUBLIC_A, 2)]);
    await writeFile(asideOf(files.file), [paymentRecord(PUBLIC_A, 3), paymentRecord(PUBLIC_A, 1, PAID)].map(changeLine).join('\n') + '\n');
    await writeFile(`${files.file}.wal`, changeLine(paymentRecord(PUBLIC_A, 4)) + '\n');

    const store = await files.open();
    expect(store.payments(PUBLIC_A).map((payment) => [payment.paymentReference, payment.status])).toEqual([
      ['SBREF-STORE-0001', 'SUCCESSFUL'],
      ['SBREF-STORE-0002', 'PENDING'],
      ['SBREF-STORE-0003', 'PENDING'],
      ['SBREF-STORE-0004', 'PENDING'],
    ]);
    await vi.waitFor(() => expect(existsSync(asideOf(files.file))).toBe(false));
    expect(JSON.parse(await readFile(files.file, 'utf8')).payments).toHaveLength(4);
    const reopened = await files.open({ file: await files.crashCopy() });
    expect(stateOf(reopened, KEYS)).toEqual(stateOf(store, KEYS));
  });

  it('refuses a set-aside log it cannot trust, naming it and the line, and leaves every file as it was', async () => {
    await writeSnapshot(files.file, [paymentRecord(PUBLIC_A, 1)]);
    await writeFile(asideOf(files.file), changeLine(paymentRecord(PUBLIC_A, 2)) + '\n{"kind":"payment","payment":{}}\n');
    await writeFile(`${files.file}.wal`, changeLine(paymentRecord(PUBLIC_A, 3)) + '\n');
    const paths = [files.file, asideOf(files.file), `${files.file}.wal`];
    const before = await Promise.all(paths.map((path) => readFile(path)));

    const opening = Store.open({ file: files.file });
    await expect(opening).rejects.toThrow(StoreOpenError);
    await expect(opening).rejects.toThrow(`cannot read the store log ${asideOf(files.file)}: line 2 is not a change: /payment must have required property 'publicKey'`);
    const after = await Promise.all(paths.map((path) => readFile(path)));
    for (const [index, content] of before.entries()) expect(content.equals(after[index]!), paths[index]).toBe(true);
    expect(existsSync(`${files.file}.lock`)).toBe(false);
  });

  it('reads the log it appends to as it did, after a fold and a close', async () => {
    const store = await files.open({ snapshotEvery: 2 });
    await play(store, 0, STEPS.length);
    await store.close();
    expect(await logLines(files.file)).toEqual([]);
    expect(existsSync(asideOf(files.file))).toBe(false);
    const reopened = await files.open();
    expect(stateOf(reopened, KEYS)).toEqual(stateOf(store, KEYS));
  });
});

describe('replaying changes twice', () => {
  const publicKey = fc.constantFrom(PUBLIC_A, PUBLIC_B);
  const change: fc.Arbitrary<Change> = fc.oneof(
    publicKey.map((key) => ({ kind: 'merchant' as const, merchant: merchantRecord(key) })),
    fc.tuple(publicKey, fc.integer({ min: 1, max: 4 }), fc.boolean()).map(([key, n, paid]) => ({ kind: 'payment' as const, payment: paymentRecord(key, n, paid ? PAID : {}) })),
    fc.tuple(publicKey, fc.constantFrom('SBREF-ORDER-1', 'SBREF-ORDER-2')).map(([key, reference]) => ({ kind: 'order' as const, order: orderRecord(key, reference) })),
    publicKey.map((key) => ({ kind: 'reset' as const, publicKey: key })),
    fc.constant({ kind: 'reset' as const }),
  );

  /** What a store shows of tables: merchants, and each merchant's rows in order. */
  const view = (tables: Tables) => ({
    merchants: tables.merchantList(),
    rows: KEYS.map((key) => [tables.paymentList(key), tables.orderList(key)]),
    links: KEYS.flatMap((key) => tables.paymentList(key).map((payment) => tables.paymentWithLinkingReference(payment.linkingReference))),
  });

  it('leaves what replaying them once does, order included, whatever came before and after', () => {
    fc.assert(
      fc.property(fc.array(change, { maxLength: 12 }), fc.array(change, { maxLength: 12 }), fc.array(change, { maxLength: 12 }), (before, twice, after) => {
        const once = new Tables();
        const replayed = new Tables();
        for (const step of [...before, ...twice, ...after]) once.replay(step);
        for (const step of [...before, ...twice, ...twice, ...after]) replayed.replay(step);
        expect(view(replayed)).toEqual(view(once));
      }),
      { numRuns: 500 },
    );
  });
});
