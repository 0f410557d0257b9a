// Child processes of the benchmarks: spawned pinned to one core, each the
// leader of its own process group so that its whole tree can be killed, and
// all killed when the benchmark exits, is interrupted (Ctrl-C) or fails.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const TASKSET = '/usr/bin/taskset';
const running = new Set();

/** The environment for servers under test: without the variables the sandbox reads as settings (PORT, SANDBOX_*). */
export function serverEnv() {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (name === 'PORT' || name.startsWith('SANDBOX_')) delete env[name];
  return env;
}

/**
 * Spawns `command args` pinned to `core`. taskset execs the command, so
 * `child.pid` is the command's own pid. The last 4 KB of its output are kept
 * in `child.tail`, to say why it died.
 */
export function spawnPinned(core, command, args, { env = serverEnv(), stdout = 'pipe' } = {}) {
  const child = spawn(TASKSET, ['-c', String(core), command, ...args], { env, stdio: ['ignore', stdout, 'pipe'], detached: true });
  child.tail = '';
  const keep = (chunk) => { child.tail = (child.tail + chunk).slice(-4096); };
  if (stdout === 'pipe') child.stdout.setEncoding('utf8').on('data', keep);
  child.stderr.setEncoding('utf8').on('data', keep);
  child.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  running.add(child);
  child.exited.then(() => running.delete(child));
  return child;
}

/** Pins this process (every thread, and the threads it starts later) to `core`. */
export function pinSelf(core) {
  const result = spawnSync(TASKSET, ['-a', '-p', '-c', String(core), String(process.pid)], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`taskset could not pin the benchmark to core ${core}: ${result.stderr}`);
}

/** Sends `signal` to the child's process group; SIGKILL after `graceMs`. Resolves on exit. */
export async function killTree(child, { signal = 'SIGTERM', graceMs = 5000 } = {}) {
  if (child.exitCode !== null || child.signalCode !== null) return child.exited;
  signalGroup(child, signal);
  const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), graceMs);
  const outcome = await child.exited;
  clearTimeout(timer);
  return outcome;
}

function signalGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** Kills every child still running when this process exits, is interrupted or fails. */
export function killChildrenOnExit() {
  const killAll = () => { for (const child of running) signalGroup(child, 'SIGKILL'); };
  process.on('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      console.error(`\n${signal}: stopping the servers`);
      killAll();
      process.exit(130);
    });
  }
  const fail = (error) => {
    console.error(error);
    killAll();
    process.exit(1);
  };
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);
}

/**
 * CPU time a running process has used so far, in ms: the sum over its live
 * threads of /proc/PID/task/TID/schedstat's first field (ns on a CPU). A
 * steadier measure than wall time on a busy machine; threads that have
 * already exited are not counted. Undefined where /proc is not Linux's.
 */
export function cpuMsOf(pid) {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    return ns / 1e6;
  } catch {
    return undefined;
  }
}
