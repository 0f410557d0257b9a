// Runs bench/support/load.mjs (autocannon) in its own process pinned to a core, and returns what it printed.
import { fileURLToPath } from 'node:url';
import { spawnPinned } from './processes.mjs';

const LOAD = fileURLToPath(new URL('./load.mjs', import.meta.url));

/**
 * @param options { url, token, connections, seconds, warmupSeconds, core (default 1), onSpawn (told the load generator's pid, for sampling its CPU) }
 * @returns { requestsPerSecond, total, duration, autocannonLatency, latency: {p50, p99, max}, ok, non2xx, nonOk, errors, timeouts }
 */
export async function runLoad({ core = 1, onSpawn, ...options }) {
  const child = spawnPinned(core, process.execPath, [LOAD, JSON.stringify(options)], { env: process.env });
  onSpawn?.(child.pid);
  let out = '';
  child.stdout.on('data', (chunk) => { out += chunk; });
  const { code, signal } = await child.exited;
  const line = out.trim().split('\n').at(-1);
  if (code !== 0 || !line) throw new Error(`the load generator failed (${code ?? signal}):\n${child.tail}`);
  return JSON.parse(line);
}
