// Benchmark: what do snapshots of a large state cost? Writes a store file of
// --payments payments of the benchmark merchant (bench/support/preload.mjs),
// starts the sandbox on it as a process (core 0) and, from this process
// (core 1), in each of --rounds rounds:
// - save: GET /__sandbox/snapshot, streamed to a file, timed from the request
//   to the last byte written; the file's size;
// - load: PUT /__sandbox/snapshot with that file as the body, timed from the
//   request to the 200, into a fresh sandbox started in memory (--in-memory)
//   and into a fresh one on an empty store file (--data);
// and, during each, the server's peak RSS (VmHWM of /proc/<pid>/status, reset
// to the RSS of the moment through /proc/<pid>/clear_refs before it starts;
// VmRSS sampled every 10 ms beside it) and the longest answer of a probe
// sending GET /__sandbox/health every 10 ms, one at a time, with the count of
// answers over 100 ms (the bound a save must keep: the event loop is never
// held for longer while a snapshot is taken). Each answer over 100 ms is
// printed with how long the server's main thread ran and waited for a CPU
// meanwhile (/proc/<pid>/task/<pid>/schedstat, sampled every 5 ms): on a
// shared machine a late answer may be another process's doing. A load parses
// one large JSON body and puts it in one change, so its stall is printed, not bounded.
// Then, inside this process, what the server does in one piece: the check of
// the PUT body against openapi/control-api.yaml (Snapshot), JSON.parse of it,
// Store.replace and the log line of the change; and, for a save, listing the
// records and the slowest 64 KiB piece of snapshotChunks.
// Usage: npm run bench:snapshot -- [--payments 100000] [--rounds 3] [--dir TMPDIR]
// Prints figures; it asserts nothing.
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { controlOperations } from '../dist/index.js';
import { recordsAsLoaded } from '../dist/known-states/loaded-records.js';
import { Store } from '../dist/store/store.js';
import { snapshotChunks } from '../dist/store/snapshot.js';
import { checkRequest, requestToCheck } from '../dist/validation/check-request.js';
import { operationId } from '../dist/validation/operations.js';
import { freePort } from './support/http.mjs';
import { sampleRecords, writeStore } from './support/preload.mjs';
import { startProbe } from './support/probe.mjs';
import { killChildrenOnExit, pinSelf } from './support/processes.mjs';
import { filesystemOf, fixed, max, median, min, printMachine, printTable } from './support/report.mjs';
import { startServer } from './support/servers.mjs';

const { values } = parseArgs({
  options: {
    payments: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '3' },
    dir: { type: 'string', default: tmpdir() },
  },
});
const payments = Number(values.payments);
const rounds = Number(values.rounds);
const PROBE_EVERY_MS = 10;
const BOUND_MS = 100;
const MB = 2 ** 20;

killChildrenOnExit();
pinSelf(1);
const folder = mkdtempSync(join(values.dir, 'sandbox-snapshot-'));
process.on('exit', () => rmSync(folder, { recursive: true, force: true }));

printMachine(`Snapshots of a store of ${payments} payments: save (GET /__sandbox/snapshot) and load (PUT), ${rounds} rounds`);
console.log('  servers:  the sandbox as a process on core 0; this client (download, upload, probe) on core 1');
console.log(`  probe:    GET /__sandbox/health every ${PROBE_EVERY_MS} ms, one at a time, during each save and load; "over" counts answers over ${BOUND_MS} ms`);
console.log('  peak RSS: VmHWM of /proc/<pid>/status, reset through /proc/<pid>/clear_refs (5) when the step starts; VmRSS sampled every 10 ms beside it');
console.log('  late answers: each one over the bound with the CPU time and the run-queue wait of the server\'s main thread meanwhile (/proc/<pid>/task/<pid>/schedstat every 5 ms; a few ms of resolution here)');
console.log(`  files:    ${folder} (${filesystemOf(folder)})`);
console.log('');

// ---------------------------------------------------------------- the server's memory
const statusOf = (pid) => readFileSync(`/proc/${pid}/status`, 'utf8');
const kB = (status, field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) * 1024;

/** Resets the process's VmHWM to its RSS now; false where the kernel does not let us. */
function resetPeak(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** The CPU time and the run-queue wait of the process's main thread so far, in ms (/proc/<pid>/task/<pid>/schedstat). */
function schedOf(pid) {
  const [ranNs, waitedNs] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ').map(Number);
  return { at: performance.now(), ranMs: ranNs / 1e6, waitedMs: waitedNs / 1e6 };
}

/**
 * Watches the server until stopped: VmRSS every 10 ms, and its main
 * thread's CPU time and run-queue wait every 5 ms. The stop resolves with
 * { beforeMB, sampledMB, hwmMB (VmHWM then), hwmReset, during(from, to) }:
 * `during` says how long the main thread ran and waited for a CPU between two
 * moments (performance.now()), from the samples just outside them.
 */
function watchServer(pid) {
  const hwmReset = resetPeak(pid);
  const before = kB(statusOf(pid), 'VmRSS') / MB;
  let sampled = before;
  const memoryTimer = setInterval(() => {
    try {
      sampled = Math.max(sampled, kB(statusOf(pid), 'VmRSS') / MB);
    } catch {
      // the process is gone
    }
  }, 10);
  const sched = [schedOf(pid)];
  const schedTimer = setInterval(() => {
    try {
      sched.push(schedOf(pid));
    } catch {
      // the process is gone
    }
  }, 5);
  return () => {
    clearInterval(memoryTimer);
    clearInterval(schedTimer);
    sched.push(schedOf(pid));
    const status = statusOf(pid);
    sampled = Math.max(sampled, kB(status, 'VmRSS') / MB);
    const during = (from, to) => {
      const first = sched.findLast((sample) => sample.at <= from) ?? sched[0];
      const last = sched.find((sample) => sample.at >= to) ?? sched.at(-1);
      return { ranMs: last.ranMs - first.ranMs, waitedMs: last.waitedMs - first.waitedMs, spanMs: last.at - first.at };
    };
    return { beforeMB: before, sampledMB: sampled, hwmMB: hwmReset ? kB(status, 'VmHWM') / MB : NaN, hwmReset, during };
  };
}

/**
 * The probe's answers over the bound, each with how long the server's main
 * thread ran and waited for a CPU meanwhile: an answer the server made late
 * because its main thread was busy (the event loop held) shows a long run; one
 * made late because the machine gave its core to another process, a long wait.
 */
function slowAnswers(probe, memory) {
  return probe.slow.map(({ sentAt, ms }) => ({ ms, ...memory.during(sentAt, sentAt + ms) }));
}
const describeSlow = (slow) => slow.map((one) => `${fixed(one.ms)} ms (server main thread ran ${fixed(one.ranMs)} ms, waited for a CPU ${fixed(one.waitedMs)} ms)`).join('; ');

// ---------------------------------------------------------------- the requests
/** GET `url` streamed to `file`; resolves with the ms from the request to the last byte written, and the status. */
function download(url, file) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const req = http.get(url, { agent: false }, (res) => {
      pipeline(res, createWriteStream(file)).then(() => resolve({ ms: performance.now() - start, status: res.statusCode }), reject);
    });
    req.once('error', reject);
  });
}

/** PUT `file` as a JSON body to `url`; resolves with the ms from the request to the end of the answer, its status and body. */
function upload(url, file) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const req = http.request(url, { method: 'PUT', agent: false, headers: { 'content-type': 'application/json', 'content-length': statSync(file).size } });
    req.once('error', reject);
    req.once('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk) => { text += chunk; });
      res.once('end', () => resolve({ ms: performance.now() - start, status: res.statusCode, text }));
      res.once('error', reject);
    });
    createReadStream(file).pipe(req);
  });
}

/** Runs `step` on `server` with the probe and the memory watch around it. */
async function measured(server, step) {
  const stopWatch = watchServer(server.child.pid);
  const stopProbe = startProbe(`${server.base}/__sandbox/health`, PROBE_EVERY_MS, { overMs: BOUND_MS });
  const outcome = await step();
  const probe = await stopProbe();
  const memory = stopWatch();
  return { ...outcome, probe, memory, slow: slowAnswers(probe, memory) };
}

// ---------------------------------------------------------------- the rounds
const sample = await sampleRecords();
const storeFile = join(folder, 'store.json');
const preloadStart = performance.now();
await writeStore(storeFile, payments, sample);
console.log(`  preload:  ${payments} payments written in ${fixed(performance.now() - preloadStart)} ms; store file ${fixed(statSync(storeFile).size / MB, 1)} MB`);

const saves = [];
const loads = { memory: [], disk: [] };
const snapshotFile = join(folder, 'snapshot.json');
const source = await startServer('disk', { port: await freePort(), dataFile: storeFile });
try {
  console.log(`  source:   sandbox on the store file, ready in ${fixed(source.readyMs)} ms, RSS ${fixed(kB(statusOf(source.child.pid), 'VmRSS') / MB)} MB`);
  for (let round = 1; round <= rounds; round += 1) {
    const save = await measured(source, () => download(`${source.base}/__sandbox/snapshot`, snapshotFile));
    if (save.status !== 200) throw new Error(`GET /__sandbox/snapshot answered ${save.status}`);
    save.bytes = statSync(snapshotFile).size;
    saves.push(save);
    console.log(`  round ${round} save: ${fixed(save.ms)} ms, ${fixed(save.bytes / MB, 1)} MB; probe ${save.probe.count} answers, slowest ${fixed(save.probe.longestMs, 1)} ms, ${save.probe.over} over ${BOUND_MS} ms, ${save.probe.failures} failed; peak RSS ${fixed(save.memory.hwmMB)} MB (sampled ${fixed(save.memory.sampledMB)}, ${fixed(save.memory.beforeMB)} before)`);
    if (save.slow.length > 0) console.log(`    over ${BOUND_MS} ms: ${describeSlow(save.slow)}`);

    for (const kind of ['memory', 'disk']) {
      const dataFile = join(folder, `loaded-${round}.json`);
      const target = await startServer(kind, { port: await freePort(), dataFile });
      try {
        const load = await measured(target, () => upload(`${target.base}/__sandbox/snapshot`, snapshotFile));
        if (load.status !== 200) throw new Error(`PUT /__sandbox/snapshot (${kind}) answered ${load.status}: ${load.text.slice(0, 300)}`);
        const answer = JSON.parse(load.text);
        if (answer.payments !== payments) throw new Error(`PUT /__sandbox/snapshot (${kind}) loaded ${answer.payments} payments, not ${payments}`);
        loads[kind].push(load);
        console.log(`  round ${round} load (${kind}): ${fixed(load.ms)} ms; probe ${load.probe.count} answers, slowest ${fixed(load.probe.longestMs, 1)} ms, ${load.probe.over} over ${BOUND_MS} ms, ${load.probe.failures} failed; peak RSS ${fixed(load.memory.hwmMB)} MB (sampled ${fixed(load.memory.sampledMB)}, ${fixed(load.memory.beforeMB)} before)`);
        if (load.slow.length > 0) console.log(`    over ${BOUND_MS} ms: ${describeSlow(load.slow)}`);
      } finally {
        await target.stop();
        rmSync(dataFile, { force: true });
        rmSync(`${dataFile}.wal`, { force: true });
      }
    }
  }
} finally {
  await source.stop();
}

// ---------------------------------------------------------------- the figures
const row = (what, runs, extra = '') => {
  const ms = runs.map((run) => run.ms);
  const slowest = runs.map((run) => run.probe.longestMs);
  const peaks = runs.map((run) => (Number.isFinite(run.memory.hwmMB) ? run.memory.hwmMB : run.memory.sampledMB));
  return [
    what, fixed(median(ms)), fixed(max(ms)), extra, fixed(median(peaks)), fixed(max(peaks)),
    fixed(median(slowest), 1), fixed(max(slowest), 1), runs.reduce((sum, run) => sum + run.probe.over, 0), runs.reduce((sum, run) => sum + run.probe.count, 0),
  ];
};
console.log('');
printTable(
  ['step', 'ms median', 'ms worst', 'size MB', 'peak RSS MB median', 'peak RSS MB worst', 'slowest probe ms median', 'slowest probe ms worst', `probes over ${BOUND_MS} ms`, 'probes'],
  [
    row('save (GET, to a file)', saves, fixed(median(saves.map((save) => save.bytes / MB)), 1)),
    row('load, in memory (PUT, to the 200)', loads.memory, '-'),
    row('load, on a file (PUT, to the 200)', loads.disk, '-'),
  ],
);
const steps = [...saves, ...loads.memory, ...loads.disk];
const hwmEverywhere = steps.every((step) => step.memory.hwmReset);
const sampledAbove = steps.filter((step) => step.memory.sampledMB > step.memory.hwmMB + 1).length;
console.log(`  peak RSS: ${hwmEverywhere ? `VmHWM reset at each step's start; the VmRSS sampled every 10 ms was above it in ${sampledAbove} steps` : 'VmHWM could NOT be reset (clear_refs refused): the VmRSS sampled every 10 ms instead'}.`);
// A late answer: the event loop held when the main thread ran over the bound meanwhile; the machine's doing
// when, but for the time the main thread waited for a CPU, the answer would have come within the bound.
const saveSlow = saves.flatMap((save) => save.slow);
const held = saveSlow.filter((one) => one.ranMs > BOUND_MS).length;
const waited = saveSlow.filter((one) => one.ranMs <= BOUND_MS && one.ms - one.waitedMs <= BOUND_MS).length;
console.log(`  saves: slowest probe answer ${fixed(max(saves.map((save) => save.probe.longestMs)), 1)} ms; ${saveSlow.length} answers over ${BOUND_MS} ms: ${held} with the server's main thread running over ${BOUND_MS} ms meanwhile (the event loop held), ${waited} within ${BOUND_MS} ms but for the time it waited for a CPU, ${saveSlow.length - held - waited} otherwise.`);

// ---------------------------------------------------------------- inside this process: the pieces of one request
console.log('');
// Wall time: CPU time (schedstat, getrusage) moves in steps of milliseconds on this kind of virtual machine. The fastest round is the one least disturbed.
console.log('Inside this process (core 1), the synchronous pieces of each request, wall time over the rounds:');
const timed = (work) => {
  const start = performance.now();
  const result = work();
  return { ms: performance.now() - start, result };
};
const pieces = new Map();
const note = (name, { ms }) => pieces.set(name, [...(pieces.get(name) ?? []), ms]);
const operation = (await controlOperations()).find((one) => operationId(one) === 'putSnapshot');
const text = readFileSync(snapshotFile, 'utf8');
const store = await Store.open({ file: storeFile });
try {
  for (let round = 1; round <= rounds; round += 1) {
    // A save: the records listed at once (take), then each piece made when asked for.
    const listed = timed(() => store.records());
    note('save: store.records() (take the state)', listed);
    let slowest = { ms: 0 };
    let count = 0;
    const chunks = snapshotChunks(listed.result, { takenAt: new Date().toISOString(), overrides: [], faults: [] });
    for (;;) {
      const piece = timed(() => chunks.next());
      if (piece.ms > slowest.ms) slowest = piece;
      if (piece.result.done) break;
      count += 1;
    }
    note(`save: the slowest piece of snapshotChunks (of ${count})`, slowest);

    // A load: the body parsed, checked against the control API's document, then put in one change.
    const parsed = timed(() => JSON.parse(text));
    note('load: JSON.parse of the body', parsed);
    const request = requestToCheck({ method: 'PUT', path: '/snapshot', query: {}, headers: { 'content-type': 'application/json', 'content-length': String(text.length) }, body: parsed.result });
    note('load: the body checked against control-api.yaml (Snapshot)', timed(() => checkRequest(operation, request, undefined, { lenient: false })));
    const { version, takenAt, publicKey, overrides, faults, ...given } = parsed.result;
    const asLoaded = timed(() => recordsAsLoaded(given));
    note('load: the records as loaded (card numbers masked, card tokens made)', asLoaded);
    const records = asLoaded.result;
    const memoryStore = await Store.open();
    note('load: Store.replace, in memory (schema of every record, applied)', timed(() => memoryStore.replace(records)));
    await memoryStore.close();
    note('load: JSON.stringify of the change (the log line)', timed(() => JSON.stringify({ kind: 'replace', records })));
  }
} finally {
  await store.close();
}
printTable(['piece', 'ms fastest', 'ms median', 'ms worst'], [...pieces].map(([name, ms]) => [name, fixed(min(ms), 1), fixed(median(ms), 1), fixed(max(ms), 1)]));
console.log('  Store.replace on a file does the same as in memory, and queues the log line (JSON.stringify of the change) at once.');
