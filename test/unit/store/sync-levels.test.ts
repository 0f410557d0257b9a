import { afterEach, describe, expect, it, vi } from 'vitest';
import { SYNC_WITHIN_MS } from '../../../src/store/disk.js';
import { WriteAheadLog } from '../../../src/store/write-ahead-log.js';
import { logLines, paymentRecord, PUBLIC_A, storeFiles } from '../../store/fixtures.js';

/**
 * The durability levels (README, "Durability levels"): at `full` a commit
 * resolves once its change is fdatasync'd; at `normal` (the default) once it
 * is written to the log, which is fdatasync'd within SYNC_WITHIN_MS, at a
 * fold and at close.
 */

const files = storeFiles('payments-sandbox-sync-');
afterEach(() => {
  vi.restoreAllMocks();
});

/** Counts the log's fdatasyncs and the appends that asked for one. */
function watchLog() {
  const appends: boolean[] = [];
  const append = WriteAheadLog.prototype.append;
  vi.spyOn(WriteAheadLog.prototype, 'append').mockImplementation(function (this: WriteAheadLog, lines, sync) {
    appends.push(sync);
    return append.call(this, lines, sync);
  });
  // Only a sync with something to sync counts: the others return at once.
  let syncs = 0;
  const sync = WriteAheadLog.prototype.sync;
  vi.spyOn(WriteAheadLog.prototype, 'sync').mockImplementation(function (this: WriteAheadLog) {
    if (this.dirty) syncs += 1;
    return sync.call(this);
  });
  return { appends, syncs: () => syncs };
}

describe('--sync full', () => {
  it('fdatasyncs every batch before its commit resolves', async () => {
    const watched = watchLog();
    const store = await files.open({ sync: 'full' });
    for (let n = 1; n <= 3; n += 1) {
      store.putPayment(paymentRecord(PUBLIC_A, n));
      await store.commit();
      expect(watched.syncs()).toBe(n);
    }
    expect(watched.appends).toEqual([true, true, true]);
    expect(await logLines(files.file)).toHaveLength(3);
  });
});

describe('--sync normal', () => {
  it('is the default: a commit resolves once its change is written, before any fdatasync', async () => {
    const watched = watchLog();
    const store = await files.open();
    store.putPayment(paymentRecord(PUBLIC_A, 1));
    await store.commit();
    expect(watched.appends).toEqual([false]);
    expect(watched.syncs()).toBe(0);
    // Written: a process killed now leaves the change in the file for the next start.
    expect(await logLines(files.file)).toHaveLength(1);
  });

  it('fdatasyncs what was written when the SYNC_WITHIN_MS timer fires, not before, once for the changes of that second', async () => {
    const watched = watchLog();
    const store = await files.open({ sync: 'normal' });
    const since = Date.now();
    for (let n = 1; n <= 5; n += 1) {
      store.putPayment(paymentRecord(PUBLIC_A, n));
      await store.commit();
    }
    await vi.waitFor(() => expect(watched.syncs()).toBe(1), { timeout: SYNC_WITHIN_MS * 3, interval: 20 });
    expect(Date.now() - since).toBeGreaterThanOrEqual(SYNC_WITHIN_MS - 50);
    expect(watched.appends.every((sync) => !sync)).toBe(true);
    // Nothing new written: no further fdatasync.
    await new Promise((resolve) => setTimeout(resolve, SYNC_WITHIN_MS + 200));
    expect(watched.syncs()).toBe(1);
  });

  it('fdatasyncs at close, before the last snapshot', async () => {
    const watched = watchLog();
    const store = await files.open({ sync: 'normal' });
    store.putPayment(paymentRecord(PUBLIC_A, 1));
    await store.commit();
    expect(watched.syncs()).toBe(0);
    await store.close();
    expect(watched.syncs()).toBe(1);
  });

  it('fdatasyncs the log it sets aside for a fold', async () => {
    const watched = watchLog();
    const store = await files.open({ sync: 'normal', snapshotEvery: 2 });
    // The merchant-less snapshot holds no records: the fold is due at snapshotEvery changes.
    for (let n = 1; n <= 3; n += 1) {
      store.putPayment(paymentRecord(PUBLIC_A, n));
      await store.commit();
    }
    await vi.waitFor(() => expect(watched.syncs()).toBeGreaterThanOrEqual(1), { timeout: SYNC_WITHIN_MS / 2, interval: 5 });
  });
});
