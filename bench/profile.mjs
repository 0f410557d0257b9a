// Benchmark: where an initiate's time and memory go. Starts the sandbox
// (pinned to core 0) under node's CPU profiler and V8's GC trace, sends the
// README's account initiate for --seconds at 10 connections (autocannon, core
// 1) after a warm-up, and reports, for the loaded window only:
//   - the CPU profile's self time in buckets (node's HTTP, express, the
//     sandbox's own folders, logging, GC, idle ...), as shares of the window;
//   - GC: pause time per request and its share of the window;
//   - bytes allocated per request (the sum of V8's `allocated` between GCs)
//     and bytes promoted to the old space per request.
// With --baseline DIR (a built checkout of another commit) that checkout's
// sandbox is profiled instead: run the two in turn to set a change beside the
// code before it (the busy CPU per request is the figure to compare).
// Usage: npm run bench:profile -- [--mode memory|disk] [--sync normal|full] [--seconds 10] [--warmup 2] [--connections 10] [--keep DIR] [--baseline DIR]
// Prints figures; it asserts nothing.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, waitForUrl } from './support/http.mjs';
import { exchangeKey } from './support/initiate.mjs';
import { killChildrenOnExit, killTree, pinSelf, spawnPinned } from './support/processes.mjs';
import { fixed, printMachine, printTable } from './support/report.mjs';
import { runLoad } from './support/run-load.mjs';
import { SANDBOX_BIN } from './support/servers.mjs';

const { values } = parseArgs({
  options: {
    mode: { type: 'string', default: 'memory' },
    sync: { type: 'string' },
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '10' },
    keep: { type: 'string' },
    baseline: { type: 'string' },
  },
});
const seconds = Number(values.seconds);
const warmupSeconds = Number(values.warmup);
const connections = Number(values.connections);

killChildrenOnExit();
pinSelf(1);
const folder = values.keep ?? mkdtempSync(join(tmpdir(), 'sandbox-profile-'));
mkdirSync(folder, { recursive: true });
const bin = values.baseline ? join(values.baseline, 'bin/payments-sandbox.js') : SANDBOX_BIN;
if (!values.keep) process.on('exit', () => rmSync(folder, { recursive: true, force: true }));

const port = await freePort();
const store = values.mode === 'disk' ? ['--data', join(folder, 'store.json'), ...(values.sync ? ['--sync', values.sync] : [])] : ['--in-memory'];
printMachine(`CPU profile, GC and allocation of POST /payments/initiates (account), ${values.baseline ? `baseline sandbox (${values.baseline})` : 'sandbox'} ${values.mode === 'disk' ? `on disk${values.sync ? ` --sync ${values.sync}` : ''}` : 'in memory'}`);
console.log(`  load:     autocannon on core 1, ${connections} connections, ${warmupSeconds} s warm-up (left out) + ${seconds} s measured; sandbox on core 0`);
console.log('');

const spawnedAt = process.hrtime.bigint();
const child = spawnPinned(0, process.execPath, ['--cpu-prof', '--cpu-prof-dir', folder, '--trace-gc', '--trace-gc-nvp', bin, '--port', String(port), ...store, '--log-level', 'error']);
// Every GC line: "[pid:isolate]   <ms since the isolate started> ms: pause=... allocated=... promoted=...".
const gcs = [];
let pending = '';
child.stdout.on('data', (chunk) => {
  pending += chunk;
  const lines = pending.split('\n');
  pending = lines.pop();
  for (const line of lines) {
    const at = /^\[\d+:0x[0-9a-f]+\]\s+(\d+) ms: pause=([\d.]+)/.exec(line);
    if (!at) continue;
    const field = (name) => Number(new RegExp(` ${name}=(\\d+)`).exec(line)?.[1] ?? 0);
    gcs.push({ at: Number(at[1]), pause: Number(at[2]), allocated: field('allocated'), promoted: field('promoted'), kind: / gc=(\w+)/.exec(line)?.[1] });
  }
});
const base = `http://127.0.0.1:${port}`;
await waitForUrl(`${base}/__sandbox/health`, { since: spawnedAt, child });
const apiBase = `${base}/api/v2`;
const token = await exchangeKey(apiBase);
// The window is told in the sandbox's own clock: milliseconds since its spawn (the isolate starts a few ms later).
const sinceSpawn = () => Number(process.hrtime.bigint() - spawnedAt) / 1e6;
const load = await runLoad({ url: `${apiBase}/payments/initiates`, token, connections, seconds, warmupSeconds });
// The measured run is the load's last `duration` seconds; the load generator's own exit is a few ms past it.
const windowEnd = sinceSpawn();
const windowStart = windowEnd - load.duration * 1000;
await killTree(child, { signal: 'SIGINT' });

const profileFile = readdirSync(folder).find((name) => name.endsWith('.cpuprofile'));
if (!profileFile) throw new Error(`no CPU profile was written in ${folder}:\n${child.tail}`);
const profile = JSON.parse(readFileSync(join(folder, profileFile), 'utf8'));
const buckets = bucketize(profile, windowStart, windowEnd);

const inWindow = gcs.filter((gc) => gc.at >= windowStart && gc.at <= windowEnd);
const requests = load.total;
const sum = (list, key) => list.reduce((total, item) => total + item[key], 0);
const windowMs = windowEnd - windowStart;

console.log(`  requests:   ${requests} in ${fixed(windowMs / 1000, 1)} s (${fixed(load.requestsPerSecond)} req/s, 2xx ${load.ok}, non-2xx ${load.non2xx}), p99 ${fixed(load.latency.p99, 2)} ms`);
console.log(`  GC:         ${inWindow.length} collections (${inWindow.filter((gc) => gc.kind === 's').length} scavenges), pause ${fixed(sum(inWindow, 'pause'), 0)} ms = ${fixed((100 * sum(inWindow, 'pause')) / windowMs, 1)}% of the window, ${fixed((1000 * sum(inWindow, 'pause')) / requests, 1)} µs per request, longest ${fixed(Math.max(0, ...inWindow.map((gc) => gc.pause)), 1)} ms`);
console.log(`  allocated:  ${fixed(sum(inWindow, 'allocated') / requests / 1024, 1)} KB per request; promoted to the old space ${fixed(sum(inWindow, 'promoted') / requests, 0)} bytes per request`);
const busyMs = buckets.filter(({ name }) => name !== 'idle (waiting)').reduce((total, { ms }) => total + ms, 0);
console.log(`  busy CPU:   ${fixed((1000 * busyMs) / requests, 1)} µs per request (the window's samples, idle left out)`);
console.log('');
printTable(
  ['bucket', 'self ms', 'share', 'µs per request'],
  buckets.map(({ name, ms }) => [name, fixed(ms, 0), `${fixed((100 * ms) / windowMs, 1)}%`, fixed((1000 * ms) / requests, 1)]),
);
console.log(`  shares of the ${fixed(windowMs / 1000, 1)} s window; self time of the profile's samples; the CPU profile is in ${values.keep ? folder : 'a temporary folder (--keep DIR keeps it)'}`);

// The bucket of a sample's own frame: by the script it runs in.
function bucketOf(node) {
  const { functionName, url } = node.callFrame;
  if (functionName === '(garbage collector)') return 'GC';
  if (functionName === '(idle)') return 'idle (waiting)';
  if (functionName === '(program)') return 'V8 and native (program)';
  if (url === '') return 'native builtins';
  if (/^node:(_http|http|net|internal\/http|internal\/streams|stream|internal\/stream_base|_stream)/.test(url)) return 'node http and streams';
  if (/^node:(fs|internal\/fs)/.test(url)) return 'file I/O';
  if (/^node:(crypto|internal\/crypto)/.test(url)) return 'crypto';
  if (url.startsWith('node:')) return 'node other';
  const modules = url.lastIndexOf(`node_modules${sep}`);
  if (modules >= 0) {
    const name = url.slice(modules + 13).split(sep)[0];
    if (['express', 'router', 'body-parser', 'raw-body', 'iconv-lite', 'type-is', 'content-type', 'on-finished', 'finalhandler', 'send', 'qs', 'path-to-regexp', 'mime-types', 'media-typer', 'depd', 'statuses', 'http-errors', 'content-disposition', 'cookie', 'vary', 'encodeurl', 'escape-html', 'fresh', 'range-parser', 'parseurl', 'proxy-addr', 'forwarded', 'merge-descriptors', 'debug', 'ms', 'safe-buffer', 'setprototypeof', 'toidentifier', 'inherits', 'bytes', 'unpipe', 'ee-first', 'accepts', 'negotiator', 'etag', 'utils-merge', 'is-promise', 'math-intrinsics', 'call-bound', 'side-channel', 'object-inspect', 'es-errors', 'get-intrinsic', 'function-bind', 'hasown', 'gopd', 'dunder-proto', 'get-proto', 'es-define-property', 'has-symbols', 'call-bind-apply-helpers', 'side-channel-map', 'side-channel-list', 'side-channel-weakmap', 'es-object-atoms', 'mime-db', 'once', 'wrappy'].includes(name)) return 'express and its parsers';
    if (['pino', 'sonic-boom', 'thread-stream', 'pino-std-serializers', 'quick-format-unescaped', 'atomic-sleep', 'on-exit-leak-free', 'safe-stable-stringify', 'fast-redact'].includes(name)) return 'logging (pino)';
    if (name === 'lossless-json') return 'validation';
    return `library: ${name}`;
  }
  const dist = url.lastIndexOf(`${sep}dist${sep}`);
  if (dist >= 0) {
    const [first, second] = url.slice(dist + 6).split(sep);
    if (first === 'prepared') return 'validation';
    if (first === 'journal' || first === 'log' || first === 'redaction') return 'journal and redaction';
    return `sandbox: ${second === undefined ? first : first}`;
  }
  return 'other';
}

// Self time per bucket of the samples taken between `fromMs` and `toMs` (the sandbox's clock since spawn), largest first.
function bucketize(cpu, fromMs, toMs) {
  const byId = new Map(cpu.nodes.map((node) => [node.id, node]));
  const totals = new Map();
  // The profile starts with the isolate: its own clock starts a few ms after the spawn, which the window ignores.
  let at = 0;
  for (let i = 0; i < cpu.samples.length; i += 1) {
    const delta = cpu.timeDeltas[i] ?? 0;
    at += delta;
    const ms = at / 1000;
    if (ms < fromMs || ms > toMs) continue;
    const name = bucketOf(byId.get(cpu.samples[i]));
    totals.set(name, (totals.get(name) ?? 0) + delta / 1000);
  }
  return [...totals].map(([name, ms]) => ({ name, ms })).sort((a, b) => b.ms - a.ms);
}
