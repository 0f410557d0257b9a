// Benchmark: requests per second and latency of the account initiate
// (POST /payments/initiates, 10 connections) against five servers, each
// pinned to core 0 with the load generator (autocannon, its own process) on
// core 1: a bare express echo (the ceiling), Prism's mock of the same
// OpenAPI document, the sandbox with its store on disk (at --sync normal, the
// default, and at --sync full), the sandbox in memory.
// Each round starts every server afresh (a new store file for the disk one),
// warms it up, loads it, and stops it; the order rotates from round to round.
// Prints req/s per round and the median, p50 and p99 (medians over rounds),
// the non-2xx answers, and the sandbox/Prism and sandbox/express ratios.
// Also the disk sandbox with notifications on (--webhook-url at an
// acknowledging receiver on core 1; an account initiate leaves its payment
// pending, which notifies nobody, so this is what a URL set costs a request),
// and, with --baseline DIR (a built checkout of another commit), that
// checkout's disk sandbox: the peer a change is measured against.
// --kinds a,b,... runs only those servers (express, prism, disk, full, memory, notify, baseline).
// Usage: npm run bench:compare -- [--seconds 10] [--rounds 3] [--warmup 2] [--connections 10] [--dir TMPDIR] [--baseline DIR] [--kinds disk,baseline]
// Prints figures; it asserts nothing.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort } from './support/http.mjs';
import { initiateOnce } from './support/initiate.mjs';
import { killChildrenOnExit, pinSelf } from './support/processes.mjs';
import { filesystemOf, fixed, loadCells, median, printMachine, printTable } from './support/report.mjs';
import { runLoad } from './support/run-load.mjs';
import { SERVERS, startReceiver, startServer } from './support/servers.mjs';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '10' },
    dir: { type: 'string', default: tmpdir() },
    baseline: { type: 'string' },
    kinds: { type: 'string' },
  },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const warmupSeconds = Number(values.warmup);
const connections = Number(values.connections);

killChildrenOnExit();
pinSelf(1);
const folder = mkdtempSync(join(values.dir, 'sandbox-compare-'));
process.on('exit', () => rmSync(folder, { recursive: true, force: true }));

printMachine('POST /payments/initiates (account), sandbox vs Prism vs bare express');
console.log(`  load:     autocannon on core 1, ${connections} connections, ${warmupSeconds} s warm-up + ${seconds} s per server per round, ${rounds} round(s), servers on core 0`);
console.log(`  store:    sandbox (disk) writes to ${folder} (${filesystemOf(folder)})`);
console.log('  latency:  autocannon\'s time per 2xx response, at full resolution (its own histogram rounds to whole ms)');
console.log('');

const KINDS = values.kinds?.split(',') ?? ['express', 'prism', 'disk', 'full', 'memory', 'notify', ...(values.baseline ? ['baseline'] : [])];
const receiver = await startReceiver(await freePort());
process.on('exit', () => void receiver.stop());
const results = Object.fromEntries(KINDS.map((kind) => [kind, []]));
for (let round = 1; round <= rounds; round += 1) {
  const shift = (round - 1) % KINDS.length;
  for (const kind of [...KINDS.slice(shift), ...KINDS.slice(0, shift)]) {
    // A store file of its own: each server starts on an empty store.
    const dataFile = join(folder, `round-${round}-${kind}`, 'store.json');
    mkdirSync(join(folder, `round-${round}-${kind}`), { recursive: true });
    const server = await startServer(kind, { port: await freePort(), dataFile, webhookUrl: receiver.url, baseline: values.baseline });
    try {
      const token = await server.token();
      const url = `${server.apiBase}/payments/initiates`;
      const check = await initiateOnce(url, token, `BENCH-CHECK-${round}-${kind}`);
      if (check.status < 200 || check.status > 299) console.log(`  ! ${server.name} answered the initiate with ${check.status}: ${check.text.slice(0, 200)}`);
      const load = await runLoad({ url, token, connections, seconds, warmupSeconds });
      results[kind].push(load);
      const nonOk = Object.keys(load.nonOk).length ? ` ${JSON.stringify(load.nonOk)}` : '';
      console.log(`  round ${round}  ${server.name.padEnd(20)}  ${fixed(load.requestsPerSecond).padStart(6)} req/s  p50 ${fixed(load.latency.p50, 2)} ms  p99 ${fixed(load.latency.p99, 2)} ms  slowest ${fixed(load.latency.max, 1)} ms  2xx ${load.ok}  non-2xx ${load.non2xx}${nonOk}  errors ${load.errors}  timeouts ${load.timeouts}`);
    } finally {
      await server.stop();
    }
  }
}

const rate = (kind) => median(results[kind].map((r) => r.requestsPerSecond));
console.log('');
printTable(
  ['server', ...results[KINDS[0]].map((_, i) => `round ${i + 1}`), 'median req/s', 'p50 ms', 'p99 ms', 'slowest ms', 'non-2xx', 'errors'],
  KINDS.map((kind) => [
    SERVERS[kind].name,
    ...loadCells(results[kind]),
  ]),
);
console.log('  p50, p99: medians over the rounds; slowest: the slowest answer of all rounds; non-2xx, errors (timeouts included): sums over the rounds');
console.log('');
console.log('  ratios of median req/s, this run:');
const pairs = [['disk', 'prism'], ['full', 'prism'], ['memory', 'prism'], ['disk', 'express'], ['memory', 'express'], ['notify', 'disk'], ['disk', 'baseline']].filter(([a, b]) => KINDS.includes(a) && KINDS.includes(b));
for (const [a, b] of pairs) {
  console.log(`    ${`${SERVERS[a].name} / ${SERVERS[b].name}`.padEnd(54)} ${fixed(rate(a) / rate(b), 2)}`);
}

// The receiver is a child process: stopped here, or it would keep this benchmark from ending.
await receiver.stop();
