import { existsSync, readdirSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { StoreUnavailableError } from '../../src/store/store.js';
import { liftFileSizeLimit, limitFileSize, prlimitAvailable } from '../support/file-size-limit.js';
import { merchantRecord, orderRecord, paymentRecord, PUBLIC_A, PUBLIC_B, storeFiles } from './fixtures.js';

/** A disk that refuses writes (test/support/file-size-limit.ts), and the store's answer to it. */

const files = storeFiles('payments-sandbox-disk-');
const RETRY_MS = 50;
afterEach(liftFileSizeLimit);

const sizeOf = async (path: string) => (await stat(path)).size;
/** The log set aside while a fold writes the snapshot. */
const aside = () => `${files.file}.wal.folding`;
const PAID = { status: 'SUCCESSFUL', code: '00', message: 'Successful' } as const;

describe.skipIf(!prlimitAvailable)('a disk that refuses a write', () => {
  it('takes the refused batch back, rejects its commits, keeps reads, refuses writes, and writes again once the disk has room', { timeout: 20_000 }, async () => {
    const store = await files.open({ retryEvery: RETRY_MS });
    store.putMerchant(merchantRecord(PUBLIC_A));
    store.putPayment(paymentRecord(PUBLIC_A, 1));
    store.putOrder(orderRecord(PUBLIC_A, 'SBREF-ORDER-1'));
    store.putPayment(paymentRecord(PUBLIC_B, 1));
    await store.commit();
    const log = await readFile(`${files.file}.wal`);

    limitFileSize(log.length + 100);
    // One batch in the log's write, another queued behind it: both refused, both taken back.
    store.putPayment(paymentRecord(PUBLIC_A, 1, PAID));
    store.putPayment(paymentRecord(PUBLIC_A, 2));
    const first = store.commit();
    store.reset(PUBLIC_A);
    store.putPayment(paymentRecord(PUBLIC_A, 3));
    const second = store.commit();
    await expect(first).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(second).rejects.toThrow(new StoreUnavailableError());
    expect(((await second.catch((error: Error) => error)) as Error).message).toBe('Store unavailable');

    // Nothing refused is shown as stored; what was stored before is, as it was.
    expect(store.payments(PUBLIC_A).map((payment) => [payment.paymentReference, payment.status])).toEqual([['SBREF-STORE-0001', 'PENDING']]);
    expect(store.payment(PUBLIC_A, 'SBREF-STORE-0002')).toBeUndefined();
    expect(store.order(PUBLIC_A, 'SBREF-ORDER-1')).toBeDefined();
    expect(store.payments(PUBLIC_B)).toHaveLength(1);
    expect(store.paymentWithLinkingReference(paymentRecord(PUBLIC_A, 2).linkingReference)).toBeUndefined();
    expect(store.paymentWithLinkingReference(paymentRecord(PUBLIC_A, 1).linkingReference)?.status).toBe('PENDING');
    // ...and the log holds none of it, part of it written or not.
    expect((await readFile(`${files.file}.wal`)).equals(log)).toBe(true);

    expect(store.health()).toEqual({ writable: false, error: `cannot write ${files.file}.wal: EFBIG: file too large, write` });
    expect(store.failed?.message).toContain('EFBIG');
    expect(() => store.putPayment(paymentRecord(PUBLIC_A, 4))).toThrow(StoreUnavailableError);
    expect(() => store.putMerchant(merchantRecord(PUBLIC_B))).toThrow('Store unavailable');
    expect(() => store.reset()).toThrow(StoreUnavailableError);
    // A request that only read commits nothing: it is answered.
    await expect(store.commit()).resolves.toBeUndefined();

    // Still full after several tries: still unavailable.
    await sleep(RETRY_MS * 5);
    expect(store.health().writable).toBe(false);

    liftFileSizeLimit();
    await vi.waitFor(() => expect(store.health()).toEqual({ writable: true }), { timeout: 5_000, interval: 10 });
    expect((await readFile(`${files.file}.wal`)).equals(log)).toBe(true);
    store.putPayment(paymentRecord(PUBLIC_A, 5));
    await store.commit();

    const reopened = await files.open({ file: await files.crashCopy() });
    expect(reopened.payments(PUBLIC_A).map((payment) => [payment.paymentReference, payment.status])).toEqual([
      ['SBREF-STORE-0001', 'PENDING'],
      ['SBREF-STORE-0005', 'PENDING'],
    ]);
  });

  it('keeps taking writes when a fold is refused, leaves the snapshot and both logs as they were, says so once it keeps failing, and folds once the disk has room', { timeout: 20_000 }, async () => {
    const store = await files.open({ snapshotEvery: 3, retryEvery: RETRY_MS });
    for (let n = 1; n <= 3; n += 1) {
      store.putPayment(paymentRecord(PUBLIC_A, n));
      await store.commit();
    }
    await vi.waitFor(() => expect(existsSync(files.file) && !existsSync(aside())).toBe(true), { timeout: 5_000, interval: 10 });
    const snapshot = await readFile(files.file);
    expect(JSON.parse(snapshot.toString()).payments).toHaveLength(3);

    // Room for short lines in a new log, none for a snapshot of the three payments.
    limitFileSize(snapshot.length - 1);
    for (let n = 1; n <= 3; n += 1) {
      store.reset(PUBLIC_B);
      await store.commit();
    }
    // The fold of those three changes fails, and fails again: only then is it reported, and writes are taken all along.
    await vi.waitFor(() => expect(store.health().snapshotError).toBeDefined(), { timeout: 5_000, interval: 10 });
    expect(store.health()).toEqual({ writable: true, snapshotError: `cannot write ${files.file}: EFBIG: file too large, write` });
    store.putMerchant(merchantRecord(PUBLIC_B));
    await store.commit();
    expect((await readFile(files.file)).equals(snapshot)).toBe(true);
    expect((await readFile(aside(), 'utf8')).trim().split('\n').map((line) => JSON.parse(line).kind)).toEqual(['reset', 'reset', 'reset']);
    expect((await readFile(`${files.file}.wal`, 'utf8')).trim().split('\n').map((line) => JSON.parse(line).kind)).toEqual(['merchant']);
    // The refused snapshot's temporary file (a random name) is not left behind.
    expect(readdirSync(files.dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    // The files as a crash would leave them now, copied once the disk has room again.
    const suffixes = ['', '.wal', '.wal.folding'];
    const now = await Promise.all(suffixes.map((suffix) => readFile(`${files.file}${suffix}`)));

    liftFileSizeLimit();
    const copy = `${files.dir}/crashed.json`;
    await Promise.all(suffixes.map((suffix, index) => writeFile(`${copy}${suffix}`, now[index]!)));
    const crashed = await files.open({ file: copy });
    expect(crashed.payments(PUBLIC_A)).toHaveLength(3);
    expect(crashed.merchant(PUBLIC_B)).toEqual(merchantRecord(PUBLIC_B));

    await vi.waitFor(() => expect(store.health()).toEqual({ writable: true }), { timeout: 10_000, interval: 10 });
    expect(existsSync(aside())).toBe(false);
    const folded = JSON.parse(await readFile(files.file, 'utf8'));
    expect(folded.payments).toHaveLength(3);
    expect(folded.merchants).toEqual([merchantRecord(PUBLIC_B)]);
  });

  it('keeps a change queued behind a fold out of the snapshot, so a refused one never reaches the file', { timeout: 20_000 }, async () => {
    const store = await files.open({ snapshotEvery: 2, retryEvery: RETRY_MS });
    store.putPayment(paymentRecord(PUBLIC_A, 1));
    await store.commit();
    // A large third payment: room for the small snapshot, not for its own line in the log.
    const large = paymentRecord(PUBLIC_A, 3, { productDescription: 'x'.repeat(20_000) });
    limitFileSize(10_000);

    store.putPayment(paymentRecord(PUBLIC_A, 2));
    const second = store.commit();
    store.putPayment(large);
    const third = store.commit();
    await second;
    await expect(third).rejects.toBeInstanceOf(StoreUnavailableError);

    expect(store.payment(PUBLIC_A, 'SBREF-STORE-0003')).toBeUndefined();
    await vi.waitFor(() => expect(existsSync(aside())).toBe(false), { timeout: 5_000, interval: 10 });
    const snapshot = JSON.parse(await readFile(files.file, 'utf8'));
    expect(snapshot.payments.map((payment: { paymentReference: string }) => payment.paymentReference)).toEqual(['SBREF-STORE-0001', 'SBREF-STORE-0002']);
    // Nothing but the empty lines the store's tries of the disk may leave until the next try cuts them off.
    expect((await readFile(`${files.file}.wal`, 'utf8')).trim()).toBe('');
  });

  it('closes a store that cannot write, rejecting, giving up the lock, and losing nothing acknowledged', { timeout: 20_000 }, async () => {
    const store = await files.open({ retryEvery: RETRY_MS });
    store.putPayment(paymentRecord(PUBLIC_A, 1));
    await store.commit();
    limitFileSize(await sizeOf(`${files.file}.wal`));
    store.putPayment(paymentRecord(PUBLIC_A, 2));
    await expect(store.commit()).rejects.toBeInstanceOf(StoreUnavailableError);

    await expect(store.close()).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(store.health()).toEqual({ writable: false, error: 'the store is closed' });
    expect(existsSync(`${files.file}.lock`)).toBe(false);
    liftFileSizeLimit();

    const reopened = await files.open();
    expect(reopened.payments(PUBLIC_A).map((payment) => payment.paymentReference)).toEqual(['SBREF-STORE-0001']);
  });
});
