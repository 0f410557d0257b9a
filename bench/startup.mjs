// Benchmark: start-up time. Over --runs interleaved runs (the order rotating),
// spawns each server pinned to core 0 and polls it from core 1 every
// --interval ms, timing spawn to its first ready answer:
//   sandbox  node bin/payments-sandbox.js --in-memory --port P: first 200 on GET /__sandbox/health
//   Prism    prism mock openapi/payments-api.yaml: first answer (any status) on GET /payments/query/STARTUP-PROBE
//   express  bench/peers/express-echo.mjs: first 200 on GET /health
//   sandbox --webhook-url  the same with notifications on (a URL nobody listens at: start-up sends nothing)
//   baseline               with --baseline DIR, a built checkout of another commit, started as the sandbox is
// and times `node bin/payments-sandbox.js --help` and `... scenarios list`
// from spawn to exit. Prints median, min and max of each, and the ratios
// sandbox/express and sandbox/Prism of the medians (and sandbox/baseline).
// For the servers it also prints the CPU time the process had used when it
// was ready (all its threads), which moves less than wall time on a busy machine.
// Usage: npm run bench:startup -- [--runs 10] [--interval 3] [--baseline DIR] [--only sandbox,baseline]
// Prints figures; it asserts nothing.
import { parseArgs } from 'node:util';
import { freePort } from './support/http.mjs';
import { killChildrenOnExit, pinSelf, spawnPinned } from './support/processes.mjs';
import { fixed, max, median, medianInterval, min, printMachine, printTable } from './support/report.mjs';
import { SANDBOX_BIN, SERVERS, startServer } from './support/servers.mjs';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '10' },
    interval: { type: 'string', default: '3' },
    baseline: { type: 'string' },
    only: { type: 'string' },
  },
});
const runs = Number(values.runs);
const intervalMs = Number(values.interval);

killChildrenOnExit();
pinSelf(1);
printMachine('Start-up: spawn to the first ready answer, and CLI commands from spawn to exit');
console.log(`  runs:     ${runs}, interleaved; process on core 0, poller on core 1 every ${intervalMs} ms; times include node's own start and taskset's exec`);
console.log('');

async function serverStart(kind) {
  const server = await startServer(kind, { port: await freePort(), intervalMs, webhookUrl: 'http://127.0.0.1:9/webhook', baseline: values.baseline });
  await server.stop();
  return { ms: server.readyMs, cpuMs: server.readyCpuMs, status: server.readyStatus };
}

async function commandRun(args) {
  const since = process.hrtime.bigint();
  const child = spawnPinned(0, process.execPath, [SANDBOX_BIN, ...args]);
  const { code, signal } = await child.exited;
  const ms = Number(process.hrtime.bigint() - since) / 1e6;
  if (code !== 0) console.log(`  ! payments-sandbox ${args.join(' ')} exited with ${code ?? signal}: ${child.tail.slice(-300)}`);
  return { ms, status: `exit ${code ?? signal}` };
}

const MEASURES = [
  { key: 'sandbox', label: 'sandbox --in-memory', until: SERVERS.memory.ready.what, run: () => serverStart('memory') },
  { key: 'notify', label: 'sandbox --in-memory --webhook-url', until: SERVERS.memory.ready.what, run: () => serverStart('notify-memory') },
  ...(values.baseline ? [{ key: 'baseline', label: 'baseline --in-memory', until: SERVERS.memory.ready.what, run: () => serverStart('baseline-memory') }] : []),
  { key: 'prism', label: 'Prism mock', until: SERVERS.prism.ready.what, run: () => serverStart('prism') },
  { key: 'express', label: 'express echo', until: SERVERS.express.ready.what, run: () => serverStart('express') },
  { key: 'help', label: 'sandbox --help', until: 'exit', run: () => commandRun(['--help']) },
  { key: 'list', label: 'sandbox scenarios list', until: 'exit', run: () => commandRun(['scenarios', 'list']) },
];
const chosen = values.only ? MEASURES.filter(({ key }) => values.only.split(',').includes(key)) : MEASURES;
const times = Object.fromEntries(MEASURES.map(({ key }) => [key, []]));
const cpu = Object.fromEntries(MEASURES.map(({ key }) => [key, []]));
const answers = Object.fromEntries(MEASURES.map(({ key }) => [key, new Set()]));
for (let run = 1; run <= runs; run += 1) {
  const shift = (run - 1) % chosen.length;
  const line = [];
  for (const measure of [...chosen.slice(shift), ...chosen.slice(0, shift)]) {
    const { ms, cpuMs, status } = await measure.run();
    times[measure.key].push(ms);
    if (cpuMs !== undefined) cpu[measure.key].push(cpuMs);
    answers[measure.key].add(status);
    line.push(`${measure.key} ${fixed(ms)} ms`);
  }
  console.log(`  run ${run}: ${line.join(', ')}`);
}

console.log('');
const cpuCell = (key, of) => (cpu[key].length ? fixed(of(cpu[key])) : '-');
printTable(
  ['what', 'median ms', 'min ms', 'max ms', 'CPU ms median', 'CPU ms min', 'measured until', 'answers seen'],
  chosen.map(({ key, label, until }) => [label, fixed(median(times[key])), fixed(min(times[key])), fixed(max(times[key])), cpuCell(key, median), cpuCell(key, min), until, [...answers[key]].join(', ')]),
);
console.log('');
// A ratio of medians, and the median of the runs' own ratios: each run measures
// the two within a second of each other, so drift of the machine cancels out.
const has = (key) => chosen.some((measure) => measure.key === key);
const pairs = [['sandbox', 'express', 'sandbox / express echo'], ['sandbox', 'prism', 'sandbox / Prism mock'], ['notify', 'sandbox', 'with --webhook-url / without'], ['sandbox', 'baseline', 'sandbox / baseline']]
  .filter(([a, b]) => has(a) && has(b));
const paired = (series, a, b) => {
  const ratios = series[a].map((value, run) => value / series[b][run]);
  const [low, high] = medianInterval(ratios);
  return `${fixed(median(ratios), 3)} (95% interval ${fixed(low, 3)} to ${fixed(high, 3)})`;
};
console.log(`  ratios of medians: ${pairs.map(([a, b, label]) => `${label} ${fixed(median(times[a]) / median(times[b]), 2)}`).join(', ')}`);
console.log(`  medians of each run's ratio: ${pairs.map(([a, b, label]) => `${label} ${paired(times, a, b)}`).join(', ')}`);
const cpuPairs = pairs.filter(([a, b]) => cpu[a].length && cpu[b].length);
if (cpuPairs.length) console.log(`  CPU to ready, medians of each run's ratio: ${cpuPairs.map(([a, b, label]) => `${label} ${paired(cpu, a, b)}`).join(', ')}`);
