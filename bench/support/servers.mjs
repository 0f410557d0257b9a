// The servers the benchmarks start, each spawned pinned to a core and timed
// from spawn to its first ready answer:
//   express  bench/peers/express-echo.mjs, ready at the first 200 on GET /health
//   prism    Prism's mock of openapi/payments-api.yaml (logs at error level only),
//            ready at its first answer of any status on the documented
//            GET /payments/query/{paymentReference}; it serves the paths without /api/v2
//   disk     the sandbox with its store on disk (--data FILE) at the default durability (--sync normal),
//            ready at the first 200 on /__sandbox/health
//   full     the same at --sync full (every change fdatasync'd before its answer)
//            (both sandboxes log failed answers only, as Prism is run with -v error)
//   memory   the sandbox in memory (--in-memory), ready likewise
//   notify   the disk sandbox with notifications on (--webhook-url, the `webhookUrl` given)
//   baseline the disk sandbox of another checkout (its bin/, the `baseline` folder given, built):
//            the peer a change is measured against
//   baseline-memory, notify-memory  the same in memory, for start-up
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitForUrl } from './http.mjs';
import { exchangeKey } from './initiate.mjs';
import { cpuMsOf, killTree, spawnPinned } from './processes.mjs';

const path = (relative) => fileURLToPath(new URL(`../../${relative}`, import.meta.url));
export const SANDBOX_BIN = path('bin/payments-sandbox.js');
const PRISM_CLI = path('node_modules/@stoplight/prism-cli/dist/index.js');
const ECHO = path('bench/peers/express-echo.mjs');
const DOCUMENT = path('openapi/payments-api.yaml');

const SANDBOX_READY = { path: '/__sandbox/health', what: 'first 200 on GET /__sandbox/health' };

export const SERVERS = {
  express: {
    name: 'express echo',
    args: (port) => [ECHO, '--port', port],
    ready: { path: '/health', what: 'first 200 on GET /health' },
    apiPrefix: '/api/v2',
    // The echo checks no token.
    token: async () => 'echo',
  },
  prism: {
    name: 'Prism mock',
    args: (port) => [PRISM_CLI, 'mock', DOCUMENT, '-p', port, '-h', '127.0.0.1', '-v', 'error'],
    ready: {
      path: '/payments/query/STARTUP-PROBE',
      headers: { authorization: 'Bearer probe' },
      accept: () => true,
      what: 'first answer (any status) on GET /payments/query/STARTUP-PROBE',
    },
    apiPrefix: '',
    token: exchangeKey,
  },
  disk: {
    name: 'sandbox (disk)',
    args: (port, { dataFile }) => [SANDBOX_BIN, '--port', port, '--data', dataFile, '--log-level', 'error'],
    ready: SANDBOX_READY,
    apiPrefix: '/api/v2',
    token: exchangeKey,
  },
  full: {
    name: 'sandbox (disk, full)',
    args: (port, { dataFile }) => [SANDBOX_BIN, '--port', port, '--data', dataFile, '--sync', 'full', '--log-level', 'error'],
    ready: SANDBOX_READY,
    apiPrefix: '/api/v2',
    token: exchangeKey,
  },
  memory: {
    name: 'sandbox (memory)',
    args: (port) => [SANDBOX_BIN, '--port', port, '--in-memory', '--log-level', 'error'],
    ready: SANDBOX_READY,
    apiPrefix: '/api/v2',
    token: exchangeKey,
  },
  notify: {
    name: 'sandbox (disk, notifications on)',
    args: (port, { dataFile, webhookUrl }) => [SANDBOX_BIN, '--port', port, '--data', dataFile, '--webhook-url', webhookUrl, '--log-level', 'error'],
    ready: SANDBOX_READY,
    apiPrefix: '/api/v2',
    token: exchangeKey,
  },
  'notify-memory': {
    name: 'sandbox (memory, notifications on)',
    args: (port, { webhookUrl }) => [SANDBOX_BIN, '--port', port, '--in-memory', '--webhook-url', webhookUrl, '--log-level', 'error'],
    ready: SANDBOX_READY,
    apiPrefix: '/api/v2',
    token: exchangeKey,
  },
  baseline: {
    name: 'baseline sandbox (disk)',
    args: (port, { dataFile, baseline }) => [join(baseline, 'bin/payments-sandbox.js'), '--port', port, '--data', dataFile, '--log-level', 'error'],
    ready: SANDBOX_READY,
    apiPrefix: '/api/v2',
    token: exchangeKey,
  },
  'baseline-memory': {
    name: 'baseline sandbox (memory)',
    args: (port, { baseline }) => [join(baseline, 'bin/payments-sandbox.js'), '--port', port, '--in-memory', '--log-level', 'error'],
    ready: SANDBOX_READY,
    apiPrefix: '/api/v2',
    token: exchangeKey,
  },
};

/**
 * Spawns bench/peers/ack-receiver.mjs pinned to `core` (the load generator's:
 * the server's core is left to the server) and waits until it answers.
 * @returns { url (the notification URL), received() (POSTs it answered), stop() }
 */
export async function startReceiver(port, core = 1) {
  const child = spawnPinned(core, process.execPath, [path('bench/peers/ack-receiver.mjs'), '--port', String(port)]);
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitForUrl(`${base}/count`, { since: process.hrtime.bigint(), child, intervalMs: 3 });
  } catch (error) {
    await killTree(child, { signal: 'SIGKILL' });
    throw error;
  }
  return {
    url: `${base}/webhook`,
    received: async () => (await (await fetch(`${base}/count`)).json()).received,
    stop: () => killTree(child),
  };
}

/**
 * Spawns one of SERVERS pinned to `core` and waits until it is ready.
 * @returns { name, child, base, apiBase, readyMs (spawn to ready answer), readyCpuMs (CPU the process had used by then), readyStatus, token(), stop() }
 */
export async function startServer(kind, { port, dataFile, webhookUrl, baseline, core = 0, intervalMs = 3 }) {
  const server = SERVERS[kind];
  const base = `http://127.0.0.1:${port}`;
  const since = process.hrtime.bigint();
  const child = spawnPinned(core, process.execPath, server.args(String(port), { dataFile, webhookUrl, baseline }));
  try {
    const { ms, status } = await waitForUrl(`${base}${server.ready.path}`, { since, child, intervalMs, accept: server.ready.accept, headers: server.ready.headers });
    const readyCpuMs = cpuMsOf(child.pid);
    const apiBase = `${base}${server.apiPrefix}`;
    return { name: server.name, child, base, apiBase, readyMs: ms, readyCpuMs, readyStatus: status, token: () => server.token(apiBase), stop: () => killTree(child) };
  } catch (error) {
    await killTree(child, { signal: 'SIGKILL' });
    throw error;
  }
}
