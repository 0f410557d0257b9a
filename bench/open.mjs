// Benchmark: how long does Store.open take on a large store? For --size
// payments of the benchmark merchant (records shaped as the sandbox makes
// them), times Store.open in two cases, in interleaved rounds:
// - the snapshot alone, as a clean stop leaves it;
// - the snapshot and a log holding one change per payment (each payment
//   settled), the longest a log gets: a fold starts once the log holds as
//   many changes as the snapshot holds records. A crash just before that fold
//   leaves this to replay.
// Each open works on fresh copies of the files, so the log is replayed every
// round. Prints the median, fastest and slowest, and the files' sizes.
// Usage: npm run bench:open -- [--size 100000] [--rounds 5] [--dir TMPDIR]
// Prints figures; it asserts nothing.
import { copyFile, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Store } from '../dist/store/store.js';
import { sampleRecords, writeStore } from './support/preload.mjs';
import { filesystemOf, fixed, max, median, min, printMachine, printTable } from './support/report.mjs';

const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '5' },
    dir: { type: 'string', default: tmpdir() },
  },
});
const size = Number(values.size);
const rounds = Number(values.rounds);

printMachine(`Store.open of a store of ${size} payments, ${rounds} interleaved rounds`);
const folder = await mkdtemp(join(values.dir, 'payments-sandbox-open-'));
console.log(`  files:    ${folder} (${filesystemOf(folder)})`);
try {
  const sample = await sampleRecords();
  const clean = join(folder, 'clean.json');
  await writeStore(clean, size, sample);

  // The same snapshot, then every payment settled once, logged and synced, and the files copied before a close would fold them.
  const crashed = join(folder, 'crashed.json');
  await copyFile(clean, crashed);
  const store = await Store.open({ file: crashed, snapshotEvery: Number.MAX_SAFE_INTEGER });
  const kept = join(folder, 'kept.json');
  try {
    let changed = 0;
    for (const payment of store.payments(sample.merchant.publicKey)) {
      store.putPayment({ ...payment, status: 'SUCCESSFUL' });
      if (++changed % 5000 === 0) await store.commit();
    }
    await store.commit();
    await copyFile(crashed, kept);
    await copyFile(`${crashed}.wal`, `${kept}.wal`);
  } finally {
    await store.close();
  }

  const cases = [
    { name: 'snapshot alone', files: [clean], times: [] },
    { name: 'snapshot + log of one change per payment', files: [kept, `${kept}.wal`], times: [] },
  ];
  for (let round = 0; round < rounds; round += 1) {
    for (const contender of cases) {
      const file = join(folder, 'open.json');
      await copyFile(contender.files[0], file);
      if (contender.files[1]) await copyFile(contender.files[1], `${file}.wal`);
      const started = performance.now();
      const opened = await Store.open({ file });
      contender.times.push(performance.now() - started);
      const payments = opened.payments(sample.merchant.publicKey);
      const settled = payments.filter((payment) => payment.status === 'SUCCESSFUL').length;
      if (payments.length !== size) throw new Error(`${contender.name}: opened ${payments.length} payments, not ${size}`);
      if (contender.files[1] && settled !== size) throw new Error(`${contender.name}: ${settled} payments settled after the replay, not ${size}`);
      await opened.close();
      await rm(file, { force: true });
      await rm(`${file}.wal`, { force: true });
    }
  }
  const megabytes = async (files) => fixed((await Promise.all(files.map((file) => stat(file)))).reduce((sum, { size: bytes }) => sum + bytes, 0) / 2 ** 20, 1);
  const rows = [];
  for (const contender of cases) {
    rows.push([contender.name, await megabytes(contender.files), fixed(median(contender.times)), fixed(min(contender.times)), fixed(max(contender.times))]);
  }
  console.log();
  printTable(['case', 'files MB', 'open ms (median)', 'fastest', 'slowest'], rows);
} finally {
  await rm(folder, { recursive: true, force: true });
}
