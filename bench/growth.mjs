// Benchmark: does the sandbox slow down as its store grows? For each size N,
// writes a store file holding N payments of the benchmark merchant (through
// the Store API, records shaped as the sandbox makes them), starts the
// sandbox on it (core 0) and times spawn to the first 200 on
// /__sandbox/health, then sends account initiates for --seconds at 10
// connections (autocannon, core 1). Prints req/s, p99, the longest stall seen
// two ways -- the slowest initiate (autocannon's max latency) and the slowest
// answer of a probe sending GET /__sandbox/health every 10 ms during the run
// (blocking that hits every request) -- and the server's RSS after the run.
// The run adds its own payments: the store ends at N + the 2xx count.
// Usage: npm run bench:growth -- [--sizes 1000,10000,100000] [--seconds 10] [--connections 10] [--warmup 0] [--dir TMPDIR]
// Prints figures; it asserts nothing.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort } from './support/http.mjs';
import { sampleRecords, writeStore } from './support/preload.mjs';
import { startProbe } from './support/probe.mjs';
import { killChildrenOnExit, killTree, pinSelf } from './support/processes.mjs';
import { filesystemOf, fixed, printMachine, printTable } from './support/report.mjs';
import { runLoad } from './support/run-load.mjs';
import { startServer } from './support/servers.mjs';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,10000,100000' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '0' },
    dir: { type: 'string', default: tmpdir() },
  },
});
const sizes = values.sizes.split(',').map(Number);
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const warmupSeconds = Number(values.warmup);

killChildrenOnExit();
pinSelf(1);
const folder = mkdtempSync(join(values.dir, 'sandbox-growth-'));
process.on('exit', () => rmSync(folder, { recursive: true, force: true }));

printMachine('Store growth: POST /payments/initiates (account) against a sandbox whose store on disk holds N payments');
console.log(`  load:     autocannon on core 1, ${connections} connections, ${warmupSeconds ? `${warmupSeconds} s warm-up + ` : ''}${seconds} s per size; sandbox on core 0`);
console.log('  probe:    GET /__sandbox/health every 10 ms during the load, one at a time (from core 1, beside the load generator)');
console.log(`  store:    ${folder} (${filesystemOf(folder)})`);
console.log('');

const MB = 2 ** 20;
const kB = (status, field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) * 1024;
const sample = await sampleRecords();
const rows = [];
for (const size of sizes) {
  const file = join(folder, `store-${size}.json`);
  const preloadStart = performance.now();
  await writeStore(file, size, sample);
  const preloadMs = performance.now() - preloadStart;
  const fileMB = statSync(file).size / MB;
  globalThis.gc?.();

  const server = await startServer('disk', { port: await freePort(), dataFile: file });
  try {
    const token = await server.token();
    const stopProbe = startProbe(`${server.base}/__sandbox/health`, 10);
    const load = await runLoad({ url: `${server.apiBase}/payments/initiates`, token, connections, seconds, warmupSeconds });
    const probe = await stopProbe();
    const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
    const stopStart = performance.now();
    const exit = await killTree(server.child, { graceMs: 60_000 });
    const stopMs = performance.now() - stopStart;
    const row = {
      size, fileMB, preloadMs, openMs: server.readyMs, load, probe,
      rss: kB(status, 'VmRSS') / MB, peak: kB(status, 'VmHWM') / MB, stopMs, exit,
    };
    rows.push(row);
    const nonOk = Object.keys(load.nonOk).length ? ` ${JSON.stringify(load.nonOk)}` : '';
    console.log(`  N=${size}: preload ${fixed(preloadMs)} ms (${fixed(row.fileMB, 1)} MB), open ${fixed(server.readyMs)} ms, ${fixed(load.requestsPerSecond)} req/s, 2xx ${load.ok}, non-2xx ${load.non2xx}${nonOk}, errors ${load.errors}, timeouts ${load.timeouts}; probe ${probe.count} answers, ${probe.failures} not 200; stop ${fixed(stopMs)} ms (exit ${exit.code ?? exit.signal})`);
  } finally {
    await server.stop();
  }
}

console.log('');
printTable(
  ['payments N', 'file MB before', 'open ms', 'req/s', 'p99 ms', 'slowest initiate ms', 'slowest probe ms', 'RSS MB', 'peak RSS MB', 'payments after'],
  rows.map((r) => [
    r.size, fixed(r.fileMB, 1), fixed(r.openMs), fixed(r.load.requestsPerSecond), fixed(r.load.latency.p99, 2),
    fixed(r.load.latency.max, 1), fixed(r.probe.longestMs, 1), fixed(r.rss, 1), fixed(r.peak, 1), r.size + r.load.ok,
  ]),
);
console.log('  open: spawn to the first 200 on /__sandbox/health. RSS: VmRSS (and VmHWM) of the sandbox after the run.');
