import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SnapshotFile } from '../../../src/store/snapshot.js';
import { StoreUnavailableError } from '../../../src/store/store.js';
import { WriteAheadLog } from '../../../src/store/write-ahead-log.js';
import { asideOf, hold, logLines, type Hold, merchantRecord, paymentRecord, PUBLIC_A, stateOf, storeFiles, writeSnapshot } from '../../store/fixtures.js';

/**
 * Folds of the log into the snapshot, beside the commits: a commit waits for
 * its own append only; a fold begins once the log holds as many changes as
 * the snapshot holds records; close() waits for a fold under way; a new log
 * the disk refuses makes the store unavailable until it can be made.
 */

const files = storeFiles('payments-sandbox-fold-');
const originalWrite = SnapshotFile.prototype.write;
let holds: Hold[] = [];
// Before the stores are closed: a store held in a fold would never close.
afterEach(() => {
  for (const held of holds) held.release();
  holds = [];
  vi.restoreAllMocks();
});

/** Holds every snapshot write before it begins, until the test releases it. */
function holdSnapshots() {
  const held = hold();
  holds.push(held);
  vi.spyOn(SnapshotFile.prototype, 'write').mockImplementation(async function (this: SnapshotFile, ...args) {
    held.arrive();
    await held.wait;
    return originalWrite.apply(this, args);
  });
  return held;
}

const references = (payments: ReadonlyArray<{ paymentReference: string }>) => payments.map((payment) => payment.paymentReference);

describe('a fold under way', () => {
  it('holds back no commit: they resolve while the snapshot is still being written, and all of them survive', async () => {
    const store = await files.open({ snapshotEvery: 2 });
    const held = holdSnapshots();
    store.putPayment(paymentRecord(PUBLIC_A, 1));
    store.putPayment(paymentRecord(PUBLIC_A, 2));
    await store.commit();
    await held.reached;
    expect(existsSync(asideOf(files.file))).toBe(true);

    for (let n = 3; n <= 22; n += 1) {
      store.putPayment(paymentRecord(PUBLIC_A, n));
      await store.commit();
    }
    // Still held: every commit above resolved beside the fold, none behind it.
    expect(existsSync(files.file)).toBe(false);
    expect(existsSync(asideOf(files.file))).toBe(true);
    expect(await logLines(files.file)).toHaveLength(20);

    held.release();
    // The fold held took what the log set aside held; the next one, due at once, takes the rest.
    expect(references(vi.mocked(SnapshotFile.prototype.write).mock.calls[0]![0].payments)).toEqual(['SBREF-STORE-0001', 'SBREF-STORE-0002']);
    await vi.waitFor(async () => {
      expect(existsSync(asideOf(files.file))).toBe(false);
      expect(JSON.parse(await readFile(files.file, 'utf8')).payments).toHaveLength(22);
    });
    const reopened = await files.open({ file: await files.crashCopy() });
    expect(references(reopened.payments(PUBLIC_A))).toEqual(Array.from({ length: 22 }, (_, index) => paymentRecord(PUBLIC_A, index + 1).paymentReference));
  });

  it('is folded at 100 000 payments with the event loop free (it turns between chunks, never held 50 ms) and commits going on', { timeout: 60_000 }, async ({ annotate }) => {
    const payments = Array.from({ length: 100_000 }, (_, index) => paymentRecord(PUBLIC_A, index + 1));
    await writeSnapshot(files.file, payments);
    // A set-aside log found at start-up: its fold begins as the store opens, and is held until the loop is watched.
    await writeFile(asideOf(files.file), '');
    const held = holdSnapshots();
    const store = await files.open();
    await held.reached;
    const loop = watchEventLoop();
    held.release();
    let commits = 0;
    while (existsSync(asideOf(files.file))) {
      commits += 1;
      store.putPayment(paymentRecord(PUBLIC_A, `SBREF-DURING-${commits}`));
      await store.commit();
    }
    const { turns, longest, longestWait, elapsed } = await loop.stop();
    const chunks = Math.ceil((await stat(files.file)).size / (64 * 1024));
    await annotate(
      `fold of 100 000 payments (${chunks} chunks of 64 KiB) in ${elapsed.toFixed(0)} ms: ${turns} event-loop turns, longest hold ${longest.toFixed(1)} ms ` +
        `(longest wait between turns ${longestWait.toFixed(1)} ms, with garbage collection and waits for a core), ${commits} commits meanwhile`,
    );

    // The loop turns at least once between two chunks (each waits for its write)...
    expect(turns).toBeGreaterThan(chunks / 2);
    // ...and is never held for long: a stretch is a fraction of the fold, and under 50 ms. Stringifying these
    // 100 000 payments in one go holds it 150 to 500 ms on a 2-core machine, a 64 KiB chunk well under 1 ms:
    // 50 ms is room for a loaded machine, whose garbage collection and waits for a core are left out (watchEventLoop).
    expect(longest).toBeLessThan(elapsed / 10);
    expect(longest).toBeLessThan(50);
    expect(commits).toBeGreaterThan(0);
    expect(JSON.parse(await readFile(files.file, 'utf8')).payments).toHaveLength(100_000);
    const reopened = await files.open({ file: await files.crashCopy() });
    expect(reopened.payments(PUBLIC_A)).toHaveLength(100_000 + commits);
    expect(reopened.payment(PUBLIC_A, `SBREF-DURING-${commits}`)).toBeDefined();
  });
});

/**
 * Watches the event loop from now until `stop()`. A setImmediate callback
 * runs once per turn of the loop, so the time between two of them is how
 * long the loop was held, as a clock on the wall sees it (`longestWait`).
 * On a busy machine that time also holds what is not the code's doing: the
 * garbage collector's pauses (the `gc` performance entries), which any code
 * that allocates may meet, and the time the thread waited for a core.
 * `longest` leaves both out: each stretch counts its time less the pauses,
 * and no more than the CPU time the thread used meanwhile.
 */
function watchEventLoop() {
  const pauses: Array<readonly [number, number]> = [];
  const collections = new PerformanceObserver((entries) => {
    for (const entry of entries.getEntries()) pauses.push([entry.startTime, entry.startTime + entry.duration]);
  });
  collections.observe({ entryTypes: ['gc'] });
  const cpu = threadCpu();
  const started = performance.now();
  const stretches: Array<{ from: number; to: number; cpu: number }> = [];
  let last = started;
  let lastCpu = cpu.read();
  let watching = true;
  const turn = () => {
    if (!watching) return;
    const now = performance.now();
    const used = cpu.read();
    stretches.push({ from: last, to: now, cpu: used - lastCpu });
    last = now;
    lastCpu = used;
    setImmediate(turn);
  };
  setImmediate(turn);
  return {
    async stop() {
      watching = false;
      const elapsed = performance.now() - started;
      cpu.close();
      // The entries of the last pauses are handed over a little later.
      await sleep(20);
      collections.disconnect();
      const collecting = (from: number, to: number) =>
        pauses.reduce((total, [start, end]) => total + Math.max(0, Math.min(to, end) - Math.max(from, start)), 0);
      let longest = 0;
      let longestWait = 0;
      for (const { from, to, cpu: used } of stretches) {
        longestWait = Math.max(longestWait, to - from);
        // Most stretches are far too short to matter: only the long ones are looked at for pauses.
        if (Math.min(to - from, used) > longest) longest = Math.max(longest, Math.min(to - from - collecting(from, to), used));
      }
      return { turns: stretches.length, longest, longestWait, elapsed };
    },
  };
}

/**
 * The CPU time the calling thread has used, in ms: Linux's schedstat of the
 * thread (nanoseconds on the CPU, its first field), opened once and read
 * again at each call. Elsewhere, process.cpuUsage(), which also counts the
 * process's other threads (the garbage collector's, libuv's): a bound the
 * more generous.
 */
function threadCpu(): { read: () => number; close: () => void } {
  try {
    const fd = openSync('/proc/thread-self/schedstat', 'r');
    const buffer = Buffer.alloc(64);
    const read = () => Number(buffer.toString('latin1', 0, readSync(fd, buffer, 0, buffer.length, 0)).split(' ')[0]) / 1e6;
    if (!Number.isFinite(read())) throw new Error('no schedstat');
    return { read, close: () => closeSync(fd) };
  } catch {
    return {
      read: () => {
        const { user, system } = process.cpuUsage();
        return (user + system) / 1000;
      },
      close: () => {},
    };
  }
}

describe('a change queued as a fold takes the records', () => {
  it('reaches the snapshot only once it is logged, and never when the disk refuses it', async () => {
    const store = await files.open({ snapshotEvery: 2, retryEvery: 50 });
    store.putPayment(paymentRecord(PUBLIC_A, 1));
    await store.commit();
    const originalAppend = WriteAheadLog.prototype.append;
    vi.spyOn(WriteAheadLog.prototype, 'append')
      .mockImplementationOnce(function (this: WriteAheadLog, ...args) {
        return originalAppend.apply(this, args);
      })
      .mockRejectedValueOnce(new Error('EIO: i/o error, write'));

    store.putPayment(paymentRecord(PUBLIC_A, 2));
    const second = store.commit();
    // Queued behind the second: in memory when the fold, due after the second, takes the records.
    store.putPayment(paymentRecord(PUBLIC_A, 3));
    const third = store.commit();
    await second;
    await expect(third).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(store.payment(PUBLIC_A, 'SBREF-STORE-0003')).toBeUndefined();

    await vi.waitFor(() => expect(store.health()).toEqual({ writable: true }));
    await vi.waitFor(() => expect(existsSync(asideOf(files.file))).toBe(false));
    expect(references(JSON.parse(await readFile(files.file, 'utf8')).payments)).toEqual(['SBREF-STORE-0001', 'SBREF-STORE-0002']);
  });
});

describe('when a fold begins', () => {
  it('waits until the log holds as many changes as the snapshot holds records, snapshotEvery being the least', async () => {
    await writeSnapshot(files.file, Array.from({ length: 9 }, (_, index) => paymentRecord(PUBLIC_A, index + 1)));
    // Nine payments and their merchant: ten records.
    const rotate = vi.spyOn(WriteAheadLog.prototype, 'rotate');
    const store = await files.open({ snapshotEvery: 3 });
    for (let n = 10; n <= 18; n += 1) {
      store.putPayment(paymentRecord(PUBLIC_A, n));
      await store.commit();
    }
    expect(rotate).not.toHaveBeenCalled();
    expect(await logLines(files.file)).toHaveLength(9);

    store.putPayment(paymentRecord(PUBLIC_A, 19));
    await store.commit();
    expect(rotate).toHaveBeenCalledTimes(1);
    // The new snapshot replaces the old by rename: read, it is the one or the other, whole.
    await vi.waitFor(async () => expect(JSON.parse(await readFile(files.file, 'utf8')).payments).toHaveLength(19));
    await vi.waitFor(() => expect(existsSync(asideOf(files.file))).toBe(false));
  });
});

describe('close()', () => {
  it('waits for a fold under way, then writes the last snapshot and removes both logs\' changes', async () => {
    const store = await files.open({ snapshotEvery: 2 });
    const held = holdSnapshots();
    for (let n = 1; n <= 3; n += 1) {
      store.putPayment(paymentRecord(PUBLIC_A, n));
      await store.commit();
    }
    await held.reached;
    let closed = false;
    const closing = store.close().then(() => (closed = true));
    await sleep(50);
    expect(closed).toBe(false);

    held.release();
    await closing;
    expect(existsSync(asideOf(files.file))).toBe(false);
    expect(await logLines(files.file)).toEqual([]);
    expect(references(JSON.parse(await readFile(files.file, 'utf8')).payments)).toEqual(['SBREF-STORE-0001', 'SBREF-STORE-0002', 'SBREF-STORE-0003']);
    expect(existsSync(`${files.file}.lock`)).toBe(false);
  });
});

describe('a new log the disk refuses', () => {
  it('makes the store unavailable, loses nothing acknowledged, and folds once the new log is made', async () => {
    const reopen = vi.spyOn(WriteAheadLog.prototype, 'reopen').mockRejectedValueOnce(new Error('EIO: i/o error, open'));
    const store = await files.open({ snapshotEvery: 2, retryEvery: 50 });
    store.putMerchant(merchantRecord(PUBLIC_A));
    store.putPayment(paymentRecord(PUBLIC_A, 1));
    await store.commit();
    // The log was set aside, no new one could be made: the changes queued meanwhile are refused and taken back.
    store.putPayment(paymentRecord(PUBLIC_A, 2));
    await expect(store.commit()).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(store.payment(PUBLIC_A, 'SBREF-STORE-0002')).toBeUndefined();
    expect(store.health()).toEqual({ writable: false, error: `cannot write ${files.file}.wal: EIO: i/o error, open` });
    const crashed = await files.open({ file: await files.crashCopy() });
    expect(references(crashed.payments(PUBLIC_A))).toEqual(['SBREF-STORE-0001']);

    await vi.waitFor(() => expect(store.health()).toEqual({ writable: true }));
    expect(reopen.mock.calls.length).toBeGreaterThanOrEqual(2);
    await vi.waitFor(() => expect(existsSync(asideOf(files.file))).toBe(false));
    store.putPayment(paymentRecord(PUBLIC_A, 3));
    await store.commit();
    const reopened = await files.open({ file: await files.crashCopy() });
    expect(stateOf(reopened, [PUBLIC_A])).toEqual(stateOf(store, [PUBLIC_A]));
    expect(references(reopened.payments(PUBLIC_A))).toEqual(['SBREF-STORE-0001', 'SBREF-STORE-0003']);
  });
});

describe('a replace', () => {
  it('weighs the records it puts: loading a state again and again folds the log, instead of growing it by the whole state each time', async () => {
    const store = await files.open({ snapshotEvery: 100 });
    for (let n = 1; n <= 60; n += 1) store.putPayment(paymentRecord(PUBLIC_A, n));
    await store.commit();
    const state = store.records();
    const oneLine = JSON.stringify({ kind: 'replace', records: state }).length;
    for (let round = 0; round < 10; round += 1) {
      store.replace(state);
      await store.commit();
    }
    // Counted as one change each, ten whole states would sit in the log (and be replayed at every start).
    for (let wait = 0; wait < 100 && (await stat(`${files.file}.wal`)).size > 3 * oneLine; wait += 1) await sleep(20);
    expect((await stat(`${files.file}.wal`)).size).toBeLessThanOrEqual(3 * oneLine);
    expect(references(store.payments(PUBLIC_A))).toHaveLength(60);
    await store.close();
    const reopened = await files.open();
    expect(references(reopened.payments(PUBLIC_A))).toEqual(references(state.payments));
    await reopened.close();
  });
});
