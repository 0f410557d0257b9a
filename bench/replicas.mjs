// Benchmark: account initiates per second (POST /payments/initiates, a
// unique paymentReference per request, as bench/compare.mjs sends them) and
// their p99 latency for three contenders side by side:
//   file      the sandbox with its JSON store file (--data in a temporary folder, --sync normal, the default)
//   pg-1      one sandbox on PostgreSQL (--store postgres://...)
//   pg-2      two sandboxes on the same PostgreSQL database behind HAProxy
//             (/usr/sbin/haproxy, http mode, round robin, health check on /__sandbox/health)
//   pg-1-baseline  one sandbox of another checkout (--baseline DIR, built) on PostgreSQL, as pg-1:
//             the before of a change, measured in the same run (only when asked)
//   file-2    two sandboxes behind the same HAProxy, each with a JSON file of its own: they share
//             nothing, so they are not one sandbox (a reference is taken once per replica), but they
//             are the most any two replicas can do on this machine, whatever their store costs
// PostgreSQL is a fresh cluster in a temporary folder, started as
// test/support/postgres.ts starts one (initdb and pg_ctl, as the `postgres`
// user when root) but as a real server would run: fsync on, synchronous_commit
// and full_page_writes at their defaults; the settings it ran with are printed.
// The sandboxes run at --sync normal (the default), as the JSON file's does.
// Each round starts every contender afresh (a new store file; a new database,
// dropped after its round; new sandbox and HAProxy processes), warms it up,
// loads it and stops it; the order rotates from round to round.
// Where everything runs (--layout):
//   split   the load generator on core 1; every server process of the
//           contender (sandboxes, PostgreSQL, HAProxy) on core 0: each
//           contender gets the same one core, as in bench:compare (the default)
//   spread  the load generator on core 1; the first sandbox on core 0, the
//           second on core 1, PostgreSQL and HAProxy on either core: the
//           replicas use both cores, shared with the database and the load generator
// During the measured seconds the CPU each process used is sampled from
// /proc/PID/task/*/schedstat (time on a core, and time runnable but waiting
// for one), with each core's busy time,
// and PostgreSQL's own counters (transactions, reads of the log included; WAL
// syncs, one per durable commit or fewer): what limits a contender. A round
// whose sandboxes, HAProxy or PostgreSQL logged a failure (warm-up included)
// prints those lines: a 503 is a figure to explain, not to average away.
// --kinds a,b,... runs only those contenders (file, pg-1, pg-2, file-2, pg-1-baseline; the last two only when asked).
// Needs PostgreSQL (Debian's postgresql: /usr/lib/postgresql/<version>/bin), haproxy and taskset; as root, the `postgres` user.
// Usage: npm run bench:replicas -- [--rounds 3] [--seconds 8] [--warmup 2] [--connections 10] [--layout split|spread] [--kinds file,pg-1,pg-2,file-2,pg-1-baseline] [--baseline DIR] [--dir TMPDIR]
// Prints figures and whether the issue's targets were met; it asserts nothing.
import { execFileSync } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { freePort, waitForUrl } from './support/http.mjs';
import { exchangeKey, initiateOnce } from './support/initiate.mjs';
import { killChildrenOnExit, killTree, pinSelf, spawnPinned } from './support/processes.mjs';
import { filesystemOf, fixed, loadCells, median, printMachine, printTable } from './support/report.mjs';
import { runLoad } from './support/run-load.mjs';
import { SANDBOX_BIN, startServer } from './support/servers.mjs';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '10' },
    layout: { type: 'string', default: 'split' },
    kinds: { type: 'string' },
    dir: { type: 'string', default: tmpdir() },
    baseline: { type: 'string' },
  },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const warmupSeconds = Number(values.warmup);
const connections = Number(values.connections);
const layout = values.layout;
if (!['split', 'spread'].includes(layout)) throw new Error(`--layout is split or spread, not ${layout}`);

const HAPROXY = '/usr/sbin/haproxy';
const POSTGRES_USER = 'postgres';
/** Where each process runs, as taskset's core lists (file-2's sandboxes run where the replicas do). The load generator is always on core 1. */
const CORES = layout === 'split'
  ? { load: '1', file: '0', replica: ['0', '0'], postgres: '0', haproxy: '0' }
  : { load: '1', file: '0', replica: ['0', '1'], postgres: '0,1', haproxy: '0,1' };
const CONTENDERS = {
  file: { name: 'JSON file (--data, sync normal)' },
  'pg-1': { name: 'PostgreSQL, 1 replica' },
  'pg-2': { name: 'PostgreSQL, 2 replicas + HAProxy' },
  'file-2': { name: '2 JSON files (no sharing) + HAProxy' },
  'pg-1-baseline': { name: 'PostgreSQL, 1 replica, baseline' },
};
const KINDS = values.kinds?.split(',') ?? ['file', 'pg-1', 'pg-2'];
for (const kind of KINDS) if (!CONTENDERS[kind]) throw new Error(`--kinds takes ${Object.keys(CONTENDERS).join(', ')}, not ${kind}`);
if (KINDS.includes('pg-1-baseline') && !values.baseline) throw new Error('pg-1-baseline needs --baseline DIR: a built checkout of the sandbox to compare with');
const BASELINE_BIN = values.baseline && join(values.baseline, 'bin/payments-sandbox.js');

killChildrenOnExit();
pinSelf(1);
const folder = mkdtempSync(join(values.dir, 'sandbox-replicas-'));
const asRoot = process.getuid?.() === 0;
// PostgreSQL refuses to run as root: as root its folder belongs to the `postgres` user and its programs run as that user.
if (asRoot) chownSync(folder, Number(execFileSync('id', ['-u', POSTGRES_USER], { encoding: 'utf8' })), Number(execFileSync('id', ['-g', POSTGRES_USER], { encoding: 'utf8' })));

const postgres = startPostgres(join(folder, 'pg'));
process.on('exit', () => {
  postgres.stop();
  rmSync(folder, { recursive: true, force: true });
});
const admin = new pg.Client({ connectionString: postgres.url('postgres') });
await admin.connect();
const settings = Object.fromEntries((await admin.query(
  "SELECT name, setting, unit FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes', 'wal_sync_method', 'shared_buffers', 'max_connections', 'wal_level', 'commit_delay')",
)).rows.map((row) => [row.name, row.unit === '8kB' ? `${(Number(row.setting) * 8) / 1024} MB` : row.setting]));
const version = (await admin.query('SHOW server_version')).rows[0].server_version;

printMachine('POST /payments/initiates (account): the JSON file vs one and two replicas on PostgreSQL');
console.log(`  load:     autocannon, ${connections} connections, ${warmupSeconds} s warm-up + ${seconds} s per contender per round, ${rounds} round(s), the order rotating`);
if (layout === 'split') {
  console.log('  pinning:  --layout split: the load generator (and this script) on core 1; every server process on core 0 (the sandbox; or PostgreSQL and its');
  console.log('            sandbox; or PostgreSQL, both sandboxes and HAProxy): each contender has the same one core, so two replicas share core 0 with the');
  console.log('            database and HAProxy, and the load generator has core 1 to itself');
} else {
  console.log('  pinning:  --layout spread: the load generator (and this script) on core 1; the JSON file\'s sandbox and the first replica on core 0, the');
  console.log('            second replica on core 1, PostgreSQL and HAProxy on either core: two replicas share the 2 cores with the database and the');
  console.log('            load generator, while the JSON file\'s sandbox has core 0 to itself');
}
console.log(`  note:     two replicas share the machine's ${cpus().length} cores with the database, HAProxy and the load generator: the figures say what`);
console.log('            the shared store costs here, not how far replicas on machines of their own would scale');
console.log(`  file:     the JSON store file in ${folder} (${filesystemOf(folder)})`);
console.log(`  postgres: PostgreSQL ${version}, a fresh cluster in ${join(folder, 'pg')} on 127.0.0.1; fsync=${settings.fsync}, synchronous_commit=${settings.synchronous_commit},`);
console.log(`            full_page_writes=${settings.full_page_writes}, wal_sync_method=${settings.wal_sync_method}, commit_delay=${settings.commit_delay}, shared_buffers=${settings.shared_buffers}, max_connections=${settings.max_connections} (defaults but the port and sockets); a new database per round`);
console.log('            the sandboxes run at --sync normal, the default: their batches commit without waiting for the server\'s flush (README, "Durability levels")');
console.log(`  proxy:    ${haproxyVersion()}, mode http, balance roundrobin, option httpchk GET /__sandbox/health every 1 s, keep-alive to both sides`);
console.log('  latency:  autocannon\'s time per 2xx response, at full resolution');
console.log('');

const results = Object.fromEntries(KINDS.map((kind) => [kind, []]));
for (let round = 1; round <= rounds; round += 1) {
  const shift = (round - 1) % KINDS.length;
  for (const kind of [...KINDS.slice(shift), ...KINDS.slice(0, shift)]) {
    const logFrom = postgres.logSize();
    // A contender that fails to start is tried once more (on a shared machine a start can time out); the reason is printed.
    const contender = await startContender(kind, round).catch((error) => {
      console.log(`  ! ${CONTENDERS[kind].name} did not start, trying once more: ${error.message.split('\n').join('\n    ')}`);
      return startContender(kind, round);
    });
    try {
      const token = await exchangeKey(contender.apiBase);
      const url = `${contender.apiBase}/payments/initiates`;
      // One check per replica behind the proxy (round robin sends them to each in turn).
      for (let i = 0; i < contender.replicas; i += 1) {
        const check = await initiateOnce(url, token, `BENCH-CHECK-${round}-${kind}-${i}`);
        if (check.status !== 200) console.log(`  ! ${CONTENDERS[kind].name} answered the initiate with ${check.status}: ${check.text.slice(0, 200)}`);
      }
      await runLoad({ core: CORES.load, url, token, connections, seconds: warmupSeconds });
      const sampler = startSampler(contender.processes, contender.database);
      const load = await runLoad({ core: CORES.load, url, token, connections, seconds, onSpawn: (pid) => sampler.add('load generator', pid) });
      const usage = await sampler.stop();
      const spreadOver = await contender.perReplica?.();
      results[kind].push({ ...load, usage, spreadOver });
      const nonOk = Object.keys(load.nonOk).length ? ` ${JSON.stringify(load.nonOk)}` : '';
      console.log(`  round ${round}  ${CONTENDERS[kind].name.padEnd(33)} ${fixed(load.requestsPerSecond).padStart(6)} req/s  p50 ${fixed(load.latency.p50, 2)} ms  p99 ${fixed(load.latency.p99, 2)} ms  slowest ${fixed(load.latency.max, 1)} ms  2xx ${load.ok}  non-2xx ${load.non2xx}${nonOk}  errors ${load.errors}  timeouts ${load.timeouts}`);
      console.log(`           CPU (% of one core; waiting for one): ${usage.line}${spreadOver ? `; requests per replica ${spreadOver}` : ''}`);
      // The sandboxes log their failed answers (--log-level error), HAProxy its own errors, PostgreSQL what it refused: the last of them say what a non-2xx was.
      // (The warm-up's too: its failures count nowhere else.)
      const refused = postgres.logSince(logFrom).split('\n').filter((line) => /ERROR|FATAL|DETAIL|STATEMENT/.test(line));
      const failed = Object.entries(contender.children).map(([name, child]) => [name, child.tail.split('\n').filter((line) => / ERROR: |\[(ALERT|WARNING)\]|<1\d\d>/.test(line))]);
      if (refused.length > 0 || failed.some(([, lines]) => lines.length > 0)) {
        if (refused.length > 0) console.log(`           PostgreSQL's log (${refused.length} lines, the last 8):\n             ${refused.slice(-8).join('\n             ')}`);
        for (const [name, lines] of failed) if (lines.length > 0) console.log(`           ${name} logged (the last 8 failures of its last 4 KB of output):\n             ${lines.slice(-8).join('\n             ')}`);
      }
    } finally {
      await contender.stop();
    }
  }
}
await admin.end();

const rate = (kind) => median(results[kind].map((r) => r.requestsPerSecond));
console.log('');
printTable(
  ['contender', ...results[KINDS[0]].map((_, i) => `round ${i + 1}`), 'median req/s', 'p50 ms', 'p99 ms', 'slowest ms', 'non-2xx', 'errors', 'x JSON file'],
  KINDS.map((kind) => [
    CONTENDERS[kind].name,
    ...loadCells(results[kind]),
    KINDS.includes('file') ? fixed(rate(kind) / rate('file'), 2) : '-',
  ]),
);
console.log('  p50, p99: medians over the rounds; slowest: the slowest answer of all rounds; non-2xx, errors (timeouts included): sums over the rounds');
console.log('');
console.log('  CPU during the measured seconds, % of one core (medians over the rounds; "other" is what the cores ran beside these processes;');
console.log('  server waited for a core: the time the sandboxes, HAProxy and PostgreSQL were runnable but not running, % of one core;');
console.log('  server CPU µs/initiate: the sandboxes\', HAProxy\'s and PostgreSQL\'s CPU over the initiates answered):');
const ORDER = ['sandbox', 'sandbox 1', 'sandbox 2', 'haproxy', 'postgres', 'load generator', 'other'];
const groups = ORDER.filter((group) => KINDS.some((kind) => results[kind].some((r) => group in r.usage.groups)));
// The server side's CPU per initiate: what one core could carry were it free (sandboxes, HAProxy, PostgreSQL; not the load generator, not other work).
const serverMicros = (r) => (10_000 * Object.entries(r.usage.groups).filter(([group]) => group !== 'load generator' && group !== 'other').reduce((sum, [, pct]) => sum + pct, 0)) / r.requestsPerSecond;
printTable(
  ['contender', ...groups, 'core 0 busy', 'core 1 busy', 'server waited for a core', 'server CPU µs/initiate', 'transactions/s', 'WAL syncs/s', 'initiates per WAL sync'],
  KINDS.map((kind) => {
    const of = (pick) => median(results[kind].map((r) => pick(r.usage)));
    const perSync = median(results[kind].map((r) => (r.usage.walSyncsPerSecond ? r.requestsPerSecond / r.usage.walSyncsPerSecond : NaN)));
    return [
      CONTENDERS[kind].name,
      ...groups.map((group) => fixed(of((u) => u.groups[group]))),
      fixed(of((u) => u.cores[0])),
      fixed(of((u) => u.cores[1])),
      fixed(of((u) => Object.entries(u.waited).filter(([group]) => group !== 'load generator').reduce((sum, [, pct]) => sum + pct, 0))),
      fixed(median(results[kind].map(serverMicros))),
      fixed(of((u) => u.commitsPerSecond)),
      fixed(of((u) => u.walSyncsPerSecond)),
      fixed(perSync, 2),
    ];
  }),
);
console.log('');
console.log('  targets (issue 30), this run:');
const target = (label, a, b, met) => {
  if (!KINDS.includes(a) || !KINDS.includes(b)) return;
  const ratio = rate(a) / rate(b);
  console.log(`    ${label.padEnd(50)} ${fixed(ratio, 2)}x  ${met(ratio) ? 'met' : 'MISSED'}`);
};
target('one replica on PostgreSQL >= 0.5x the JSON file', 'pg-1', 'file', (ratio) => ratio >= 0.5);
target('two replicas > one replica', 'pg-2', 'pg-1', (ratio) => ratio > 1);
if (KINDS.includes('pg-1-baseline') && KINDS.includes('pg-1')) console.log(`  one replica against the baseline (${values.baseline}): ${fixed(rate('pg-1') / rate('pg-1-baseline'), 2)}x`);
if (KINDS.includes('file-2')) {
  console.log('  the most two replicas could do here (file-2: nothing shared, so no target of its own):');
  const ceiling = (label, a, b) => KINDS.includes(a) && KINDS.includes(b) && console.log(`    ${label.padEnd(50)} ${fixed(rate(a) / rate(b), 2)}x`);
  ceiling('2 unshared sandboxes / one replica', 'file-2', 'pg-1');
  ceiling('2 unshared sandboxes / one JSON file', 'file-2', 'file');
  ceiling('two replicas / 2 unshared sandboxes', 'pg-2', 'file-2');
}
console.log(`  load average at the end: ${loadavg().map((n) => n.toFixed(2)).join(' ')} (the machine may be shared: "other" above is its share)`);

/** Starts one contender for one round: its processes (name -> pid) for sampling, its database (pg-*), and how to stop it all. */
async function startContender(kind, round) {
  if (kind === 'file') {
    const dir = join(folder, `round-${round}-file`);
    mkdirSync(dir, { recursive: true });
    const server = await startServer('disk', { port: await freePort(), dataFile: join(dir, 'store.json'), core: CORES.file });
    return { apiBase: server.apiBase, replicas: 1, processes: { sandbox: server.child.pid }, children: { sandbox: server.child }, stop: () => server.stop() };
  }
  if (kind === 'file-2') {
    const servers = [];
    const stop = () => Promise.all(servers.map((server) => server.stop()));
    try {
      for (let i = 0; i < 2; i += 1) {
        const dir = join(folder, `round-${round}-file-2-${i + 1}`);
        mkdirSync(dir, { recursive: true });
        servers.push(await startServer('disk', { port: await freePort(), dataFile: join(dir, 'store.json'), core: CORES.replica[i] }));
      }
      // The token is the key pair's HMAC, the same on both, once each knows the merchant: the key exchange on each tells it.
      for (const server of servers) await exchangeKey(server.apiBase);
      const children = Object.fromEntries(servers.map((server, i) => [`sandbox ${i + 1}`, server.child]));
      return await behindProxy(round, servers.map((server) => Number(new URL(server.base).port)), children, undefined, stop);
    } catch (error) {
      await stop();
      throw error;
    }
  }
  const database = `bench_r${round}_${kind.replaceAll('-', '_')}`;
  await admin.query(`CREATE DATABASE ${database}`);
  const storeUrl = postgres.url(database);
  const count = kind === 'pg-2' ? 2 : 1;
  const bin = kind === 'pg-1-baseline' ? BASELINE_BIN : SANDBOX_BIN;
  const sandboxes = [];
  const stop = async () => {
    await Promise.all(sandboxes.map((child) => killTree(child)));
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  };
  try {
    const ports = [];
    // One after the other: the first migrates the new database, the second finds it migrated.
    for (let i = 0; i < count; i += 1) {
      const port = await freePort();
      const child = spawnPinned(CORES.replica[i], process.execPath, [bin, '--port', String(port), '--store', storeUrl, '--log-level', 'error']);
      sandboxes.push(child);
      ports.push(port);
      await waitForUrl(`http://127.0.0.1:${port}/__sandbox/health`, { child, intervalMs: 10 });
    }
    const children = Object.fromEntries(sandboxes.map((child, i) => [count === 1 ? 'sandbox' : `sandbox ${i + 1}`, child]));
    if (count === 1) return { apiBase: `http://127.0.0.1:${ports[0]}/api/v2`, replicas: 1, processes: { sandbox: sandboxes[0].pid }, children, database, stop };
    return await behindProxy(round, ports, children, database, stop);
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Puts HAProxy before the sandboxes on `ports` (`children`: name -> child) and waits until it sees both up.
 * `stop` stops the sandboxes (and drops the database); HAProxy is stopped with them.
 */
async function behindProxy(round, ports, children, database, stop) {
  const processes = Object.fromEntries(Object.entries(children).map(([name, child]) => [name, child.pid]));
  const sandboxes = Object.values(children);
  let proxy;
  const stopAll = async () => {
    if (proxy) await killTree(proxy);
    await stop();
  };
  try {
    const front = await freePort();
    const stats = await freePort();
    const cfg = join(folder, `haproxy-${round}.cfg`);
    writeFileSync(cfg, haproxyConfig(front, stats, ports));
    proxy = spawnPinned(CORES.haproxy, HAPROXY, ['-db', '-f', cfg]);
    const base = `http://127.0.0.1:${front}`;
    // Ready once HAProxy answers through a replica it has checked: both replicas are healthy by then (checked in turn below).
    await waitForUrl(`${base}/__sandbox/health`, { child: proxy, intervalMs: 10 });
    await waitForBothUp(stats, proxy).catch((error) => {
      const states = sandboxes.map((child, i) => `sandbox ${i + 1}: ${child.exitCode === null && child.signalCode === null ? 'running' : `exited (${child.exitCode ?? child.signalCode})`}\n${child.tail.trim().split('\n').slice(-12).join('\n')}`);
      throw new Error(`${error.message}\n${states.join('\n')}`);
    });
    processes.haproxy = proxy.pid;
    children.haproxy = proxy;
    return {
      apiBase: `${base}/api/v2`,
      replicas: 2,
      processes,
      children,
      database,
      perReplica: async () => {
        const counts = await serverRequests(stats);
        return counts.map((n) => n.toLocaleString('en')).join(' / ');
      },
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** HAProxy's configuration: the front on `front`, round robin over the replicas' ports, health checks, and a CSV stats page on `stats`. */
function haproxyConfig(front, stats, ports) {
  return `global
  maxconn 2000
  log stderr format short local0 warning
defaults
  mode http
  log global
  option httplog
  option dontlog-normal
  option log-separate-errors
  timeout connect 5s
  timeout client 30s
  timeout server 30s
frontend api
  bind 127.0.0.1:${front}
  default_backend replicas
frontend stats
  bind 127.0.0.1:${stats}
  stats enable
  stats uri /stats
backend replicas
  balance roundrobin
  option httpchk
  # HTTP/1.1 with a Host the sandbox answers to (it refuses names it does not know).
  http-check send meth GET uri /__sandbox/health ver HTTP/1.1 hdr Host 127.0.0.1
  http-check expect status 200
${ports.map((port, i) => `  server replica${i + 1} 127.0.0.1:${port} check inter 1s`).join('\n')}
`;
}

/** Requests each replica has answered, from HAProxy's stats page (its CSV; column `req_tot` of each server row). */
async function serverRequests(stats) {
  const text = await (await fetch(`http://127.0.0.1:${stats}/stats;csv`)).text();
  const [header, ...rows] = text.replace(/^# /, '').trim().split('\n').map((line) => line.split(','));
  const column = (name) => header.indexOf(name);
  return rows.filter((row) => row[column('pxname')] === 'replicas' && row[column('svname')].startsWith('replica')).map((row) => Number(row[column('req_tot')]) || Number(row[column('stot')]));
}

/** Waits until HAProxy reports both replicas UP (its first checks passed). */
async function waitForBothUp(stats, proxy) {
  for (let i = 0; i < 200; i += 1) {
    if (proxy.exitCode !== null) throw new Error(`HAProxy exited:\n${proxy.tail}`);
    try {
      const text = await (await fetch(`http://127.0.0.1:${stats}/stats;csv`)).text();
      const up = text.split('\n').filter((line) => line.startsWith('replicas,replica') && line.includes(',UP,')).length;
      if (up === 2) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`HAProxy did not see both replicas up within 10 s:\n${proxy.tail}`);
}

function haproxyVersion() {
  try {
    return execFileSync(HAPROXY, ['-v'], { encoding: 'utf8' }).split('\n')[0].replace(/ - https.*$/, '');
  } catch (error) {
    throw new Error(`${HAPROXY} is needed (Debian: apt-get install haproxy): ${error.message}`);
  }
}

/**
 * Starts a PostgreSQL cluster in `data` (initdb, then pg_ctl start pinned to
 * CORES.postgres) with its defaults but the address, port and socket folder,
 * and returns url(database) and a synchronous stop().
 */
function startPostgres(data) {
  const bin = newestPostgresBin();
  const as = (program, args) => (asRoot ? ['runuser', ['-u', POSTGRES_USER, '--', program, ...args]] : [program, args]);
  const runAs = (program, args) => {
    const [file, argv] = as(program, args);
    execFileSync(file, argv, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
  };
  runAs(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--encoding=UTF8', '--locale=C', '--auth=trust']);
  writeFileSync(join(data, 'pg_hba.conf'), 'local all all trust\nhost all all 127.0.0.1/32 trust\n');
  let port;
  const log = join(folder, 'pg.log');
  for (let attempt = 1; ; attempt += 1) {
    port = Number(execFileSync(process.execPath, ['-e', 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'], { encoding: 'utf8' }));
    const options = `-c listen_addresses=127.0.0.1 -p ${port} -c unix_socket_directories='${folder}'`;
    try {
      // taskset execs pg_ctl, whose server inherits the cores.
      runAs('/usr/bin/taskset', ['-c', CORES.postgres, join(bin, 'pg_ctl'), 'start', '-D', data, '-l', log, '-w', '-t', '60', '-o', options]);
      break;
    } catch (error) {
      if (attempt >= 3) throw new Error(`pg_ctl start failed: ${error.message}\n${readFileSync(log, 'utf8').slice(-2000)}`);
    }
  }
  let stopped = false;
  return {
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    logSize: () => statSync(log).size,
    logSince: (offset) => readFileSync(log).subarray(offset).toString('utf8'),
    postmaster: () => Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]),
    stop: () => {
      if (stopped) return;
      stopped = true;
      try {
        runAs(join(bin, 'pg_ctl'), ['stop', '-D', data, '-m', 'immediate', '-w']);
      } catch {
        // exiting anyway
      }
    },
  };
}

function newestPostgresBin() {
  const root = '/usr/lib/postgresql';
  const versions = readdirSync(root).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) throw new Error(`no PostgreSQL under ${root} (Debian: apt-get install --no-install-recommends postgresql)`);
  return join(root, versions[0], 'bin');
}

/**
 * [ms on a core, ms runnable but waiting for a core] of a running process so
 * far: the sums over its live threads of /proc/PID/task/TID/schedstat's first
 * two fields (ns). Undefined once it is gone.
 */
function schedTimes(pid) {
  try {
    let run = 0;
    let wait = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const [onCore, waiting] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
      run += onCore;
      wait += waiting;
    }
    return [run / 1e6, wait / 1e6];
  } catch {
    return undefined;
  }
}

/** Busy and total jiffies of each core, from /proc/stat. */
function coreTimes() {
  return readFileSync('/proc/stat', 'utf8').split('\n').filter((line) => /^cpu\d/.test(line)).map((line) => {
    const fields = line.split(/\s+/).slice(1).map(Number);
    const idle = fields[3] + fields[4];
    const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  });
}

/** The PIDs of PostgreSQL's processes: the postmaster and its children (backends, WAL writer, checkpointer...). */
function postgresPids() {
  const postmaster = postgres.postmaster();
  const pids = [postmaster];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster) pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/**
 * Samples, every 250 ms until stop(), the CPU time of each named process,
 * of every PostgreSQL process, and of each core, and the database's commits
 * and WAL syncs (pg_stat_database, pg_stat_wal). stop() resolves with the
 * CPU of each group as % of one core over the time it was seen, each core's
 * busy %, transactions/s and WAL syncs/s, and a line to print.
 */
function startSampler(named, database) {
  const seen = new Map(); // pid -> { group, first: [ms, cpu], last: [ms, cpu] }
  const watch = (group, pid) => {
    const times = schedTimes(pid);
    if (times === undefined) return;
    const now = performance.now();
    const entry = seen.get(pid);
    if (entry) entry.last = [now, ...times];
    else seen.set(pid, { group, first: [now, ...times], last: [now, ...times] });
  };
  const extra = new Map();
  const sample = () => {
    for (const [group, pid] of Object.entries(named)) watch(group, pid);
    for (const [pid, group] of extra) watch(group, pid);
    for (const pid of postgresPids()) watch('postgres', pid);
  };
  const counters = async () => {
    if (!database) return undefined;
    const commits = (await admin.query('SELECT xact_commit::text FROM pg_stat_database WHERE datname = $1', [database])).rows[0].xact_commit;
    const syncs = (await admin.query('SELECT wal_sync::text FROM pg_stat_wal')).rows[0].wal_sync;
    return { commits: Number(commits), syncs: Number(syncs), at: performance.now() };
  };
  const startCores = coreTimes();
  const startCounters = counters();
  sample();
  const timer = setInterval(sample, 250);
  return {
    add: (group, pid) => { extra.set(pid, group); watch(group, pid); },
    stop: async () => {
      clearInterval(timer);
      sample();
      const endCores = coreTimes();
      const [before, after] = [await startCounters, await counters()];
      const groups = {};
      const waited = {};
      for (const { group, first, last } of seen.values()) {
        if (last[0] === first[0]) continue;
        groups[group] = (groups[group] ?? 0) + (100 * (last[1] - first[1])) / (last[0] - first[0]);
        waited[group] = (waited[group] ?? 0) + (100 * (last[2] - first[2])) / (last[0] - first[0]);
      }
      const cores = endCores.map((end, i) => (100 * (end.busy - startCores[i].busy)) / (end.total - startCores[i].total));
      const known = Object.values(groups).reduce((a, b) => a + b, 0);
      groups.other = Math.max(0, cores.reduce((a, b) => a + b, 0) - known);
      // Backends publish their counters up to a second late: these rates are indicative.
      const elapsed = after && (after.at - before.at) / 1000;
      const commitsPerSecond = after ? (after.commits - before.commits) / elapsed : undefined;
      const walSyncsPerSecond = after ? (after.syncs - before.syncs) / elapsed : undefined;
      const line = [
        ...Object.entries(groups).map(([group, pct]) => `${group} ${fixed(pct)}${group in waited ? ` (waited ${fixed(waited[group])})` : ''}`),
        `cores ${cores.map((pct) => fixed(pct)).join('/')}`,
        ...(after ? [`transactions/s ${fixed(commitsPerSecond)}`, `WAL syncs/s ${fixed(walSyncsPerSecond)}`] : []),
      ].join(', ');
      return { groups, waited, cores, commitsPerSecond, walSyncsPerSecond, line };
    },
  };
}
