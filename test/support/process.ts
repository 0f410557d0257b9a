import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The payments-sandbox executable as a child process (bin/payments-sandbox.js
 * on the built dist/): starting it, reading what it prints, waiting for its
 * banner, talking to it over HTTP, and killing whatever a test left running.
 */

/** The root of the package. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The executable a user runs. */
export const BIN = join(ROOT, 'bin/payments-sandbox.js');
/** How long one test that starts processes may take. */
export const TIMEOUT = 60_000;
/** How long a process may take to serve, or to end by itself. */
export const START_WITHIN = 20_000;
/** How long a process may take to exit when told to, and one request may take. */
export const EXIT_WITHIN = 10_000;

/** How a process ended: its exit code, or the signal that ended it. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A running (or finished) sandbox process and what it printed. */
export interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** resolves once the process has exited */
  exited: Promise<Exit>;
  /** resolves once the process has exited and both its outputs are read to the end */
  closed: Promise<Exit>;
}

/** Every run started since the last `stopAll()`. */
let runs: Run[] = [];

/** The environment of the test, without any setting the sandbox reads, plus `extra`. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (name === 'PORT' || name.startsWith('SANDBOX_')) delete env[name];
  }
  return { ...env, ...extra };
}

/** Starts payments-sandbox with `args`, in `cwd` (the package root by default) with `env` added to a clean environment. */
export function run(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Run {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: cleanEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<Exit>((done) => {
    child.once('exit', (code, signal) => done({ code, signal }));
  });
  const closed = new Promise<Exit>((done) => {
    child.once('close', (code, signal) => done({ code, signal }));
  });
  const started: Run = { child, stdout: () => stdout, stderr: () => stderr, exited, closed };
  runs.push(started);
  return started;
}

/** Kills (SIGKILL) every run still going and waits for it to exit; for `afterEach`. */
export async function stopAll(): Promise<void> {
  for (const started of runs) {
    if (started.child.exitCode === null && started.child.signalCode === null) {
      started.child.kill('SIGKILL');
      await within(started.exited, EXIT_WITHIN, 'the killed sandbox to exit').catch(() => undefined);
    }
  }
  runs = [];
}

/** `promise`, or a rejection naming what was awaited after `ms` milliseconds. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** What the start-up banner says. */
export interface Banner {
  apiBase: string;
  origin: string;
  publicKey: string;
  secretKey: string;
  /** the URL and the JSON body of the banner's curl line */
  curlUrl: string;
  curlBody: string;
  store: string;
  /** everything printed up to the end of the banner */
  text: string;
}

const CURL = /curl -s (\S+) -H 'Content-Type: application\/json' -d '([^']+)'/;

/** The JSON banner record of `--log-format json` (src/cli/banner.ts), as a line of stdout. */
const JSON_BANNER = /^\{.*"msg":"payments-sandbox is serving".*\}\n/m;

/** The facts of a JSON banner record, read as the text banner's are. */
function jsonBanner(out: string, line: RegExpExecArray): Banner {
  const record = JSON.parse(line[0].trim()) as { apiBase: string; publicKey: string; secretKey: string; store: string | null; tokenRequest: { url: string; body: unknown } };
  return {
    apiBase: record.apiBase,
    origin: new URL(record.apiBase).origin,
    publicKey: record.publicKey,
    secretKey: record.secretKey,
    curlUrl: record.tokenRequest.url,
    curlBody: JSON.stringify(record.tokenRequest.body),
    store: record.store ?? '(in memory)',
    text: out.slice(0, line.index + line[0].length),
  };
}

/** Waits for the start-up banner (its curl line is the end; with --log-format json, its record), or fails if the process dies first. */
export async function banner(started: Run): Promise<Banner> {
  const printed = new Promise<Banner>((done, fail) => {
    const check = () => {
      const out = started.stdout();
      const curl = CURL.exec(out);
      const record = curl ? null : JSON_BANNER.exec(out);
      if (!curl && !record) return;
      started.child.stdout!.off('data', check);
      started.child.off('exit', died);
      if (!curl) return done(jsonBanner(out, record!));
      const apiBase = /API base\s+(\S+)/.exec(out)?.[1] ?? '';
      done({
        apiBase,
        origin: new URL(apiBase).origin,
        publicKey: /public key\s+(\S+)/.exec(out)?.[1] ?? '',
        secretKey: /secret key\s+(\S+)/.exec(out)?.[1] ?? '',
        curlUrl: curl[1]!,
        curlBody: curl[2]!,
        store: /store\s+(.+)/.exec(out)?.[1]?.trim() ?? '',
        text: out,
      });
    };
    const died = (code: number | null) => fail(new Error(`the sandbox exited (${code}) before serving:\n${started.stderr()}`));
    started.child.stdout!.on('data', check);
    started.child.once('exit', died);
    check();
  });
  return within(printed, START_WITHIN, `the start-up banner; stdout so far:\n${started.stdout()}`);
}

/** A JSON request to the running sandbox's Payments API; `scenario` is its X-Sandbox-Scenario header. */
export async function call(
  apiBase: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  auth?: string,
): Promise<{ status: number; body: any; scenario: string | null }> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (auth) headers.Authorization = auth;
  const response = await fetch(`${apiBase}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(EXIT_WITHIN),
  });
  return { status: response.status, body: await response.json(), scenario: response.headers.get('x-sandbox-scenario') };
}

/** A TCP port free on 127.0.0.1 a moment ago (a receiver or a sandbox is then started on it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/** The resident memory of a process, in MB, from /proc/<pid>/status. */
export async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
  if (kb === undefined) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(kb) / 1024;
}
