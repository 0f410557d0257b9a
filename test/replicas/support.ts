import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { ControlClient } from '../support/control.js';
import { banner, EXIT_WITHIN, run, within, type Banner, type Run } from '../support/process.js';

/**
 * Replicas of one sandbox for the tests of test/replicas/: the built CLI
 * started as processes with `--store <url>` on one PostgreSQL database,
 * real sockets, and the requests a merchant and a QA engineer send them
 * (README, "Every flow with curl" and "The control API").
 */

/** How long one request to a replica may take, in milliseconds: generous, the machine is shared. */
export const REQUEST_WITHIN = 20_000;

/** A replica: its process, what its banner said, and a checked control API client. */
export interface Replica {
  name: string;
  started: Run;
  banner: Banner;
  /** http://127.0.0.1:<port> */
  origin: string;
  /** <origin>/api/v2 */
  apiBase: string;
  control: ControlClient;
}

/** An answer of the Payments API: the HTTP status, the JSON body, the deciding scenario (X-Sandbox-Scenario). */
export interface Answer {
  status: number;
  body: any;
  scenario: string | null;
}

/** A test key pair of the form every sandbox accepts (README, "Every flow with curl"), new for each call. */
export interface Merchant {
  publicKey: string;
  secretKey: string;
}

/** A key pair no other case uses: `SBTESTPUBK_` / `SBTESTSECK_` and 16 random letters or digits. */
export function newMerchant(): Merchant {
  const random = () => randomBytes(12).toString('base64').replace(/[^A-Za-z0-9]/g, 'x').slice(0, 16);
  return { publicKey: `SBTESTPUBK_${random()}`, secretKey: `SBTESTSECK_${random()}` };
}

/** A paymentReference no other case uses, with a tag saying which case made it. */
export function reference(tag: string): string {
  return `REPL-${tag}-${randomBytes(4).toString('hex')}`;
}

/**
 * Creates a database on the server at `serverUrl` (a superuser's URL),
 * named `name` and owned by `owner` (the connecting user by default), and
 * answers its URL, with the same credentials as `serverUrl` unless `as`
 * gives a user and password.
 */
export async function createDatabase(serverUrl: string, name: string, options: { owner?: string; as?: { user: string; password: string } } = {}): Promise<string> {
  await sql(serverUrl, `CREATE DATABASE ${name}${options.owner ? ` OWNER ${options.owner}` : ''}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  if (options.as) {
    url.username = options.as.user;
    url.password = options.as.password;
  }
  return url.toString();
}

/** Runs one statement on a new connection to `url`, and answers its rows. */
export async function sql<T extends pg.QueryResultRow = any>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The arguments every replica is started with: the database, a free port, only failed answers logged. */
export function replicaArgs(storeUrl: string): string[] {
  return ['--store', storeUrl, '--port', '0', '--log-level', 'error'];
}

/**
 * Starts one replica on `storeUrl` and waits for its banner and its health
 * (200). Killed by stopAll (test/support/process.ts) after each case.
 * A replica ended by a signal before it serves is started once more: no
 * test sends one then, and on a machine shared with other test runs a
 * `kill <pid>` of a process that has ended can reach a new process given
 * the same pid (pids wrap at 32768 here). Any other early exit fails.
 * @throws Error naming how the replica ended when it exits before serving, or does not serve within START_WITHIN
 */
export async function startReplica(name: string, storeUrl: string): Promise<Replica> {
  for (let attempt = 1; ; attempt++) {
    const started = run(replicaArgs(storeUrl));
    let printed: Banner;
    try {
      printed = await banner(started);
    } catch (error) {
      // banner() names the exit code alone: a replica ended by a signal says which.
      const exit = await within(started.closed, EXIT_WITHIN, `replica ${name} to exit`).catch(() => undefined);
      if (exit?.signal && attempt === 1) continue;
      throw new Error(`replica ${name}: ${(error as Error).message}\nexit: ${JSON.stringify(exit)}\nstdout: ${started.stdout()}`);
    }
    const control = await ControlClient.at(printed.origin);
    const replica: Replica = { name, started, banner: printed, origin: printed.origin, apiBase: printed.apiBase, control };
    await waitFor(`replica ${name} to answer its health check`, async () => (await control.health()).status === 200, 10_000);
    return replica;
  }
}

/** Starts replicas A and B on `storeUrl` at the same moment. */
export async function twoReplicas(storeUrl: string): Promise<[Replica, Replica]> {
  const [a, b] = await Promise.all([startReplica('A', storeUrl), startReplica('B', storeUrl)]);
  return [a, b];
}

/** A Payments API request to a replica, with a bearer token or Basic credentials in `auth`. */
export async function api(replica: Replica, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown, auth?: string): Promise<Answer> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (auth) headers.Authorization = auth;
  const response = await fetch(`${replica.apiBase}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_WITHIN),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: response.status, body: parsed, scenario: response.headers.get('x-sandbox-scenario') };
}

/** The merchant's bearer token, exchanged on `replica` (POST /encrypt/keys), as `Authorization`'s value. */
export async function bearer(replica: Replica, merchant: Merchant): Promise<string> {
  const answer = await api(replica, 'POST', '/encrypt/keys', { key: `${merchant.secretKey}.${merchant.publicKey}` });
  const token = answer.body?.data?.EncryptedSecKey?.encryptedKey;
  if (answer.status !== 200 || typeof token !== 'string') throw new Error(`no token from replica ${replica.name}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return `Bearer ${token}`;
}

/** The merchant's Basic credentials (public key, colon, secret key), as `Authorization`'s value. */
export function basic(merchant: Merchant): string {
  return `Basic ${Buffer.from(`${merchant.publicKey}:${merchant.secretKey}`).toString('base64')}`;
}

/** `count` calls of `send`, all at once, the even ones to `a` and the odd ones to `b`; answers them in call order. */
export function split<T>(count: number, a: Replica, b: Replica, send: (replica: Replica, index: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: count }, (_, index) => send(index % 2 === 0 ? a : b, index)));
}

/** Polls `probe` every 100 ms until it answers true; fails naming `what` after `withinMs`. A probe that throws counts as false. */
export async function waitFor(what: string, probe: () => Promise<boolean>, withinMs: number): Promise<number> {
  const began = Date.now();
  for (;;) {
    if (await probe().catch(() => false)) return Date.now() - began;
    if (Date.now() - began > withinMs) throw new Error(`timed out after ${withinMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Kills a replica (SIGKILL) and waits for it to exit. */
export async function kill(replica: Replica): Promise<void> {
  if (replica.started.child.exitCode !== null || replica.started.child.signalCode !== null) return;
  replica.started.child.kill('SIGKILL');
  await within(replica.started.exited, EXIT_WITHIN, `replica ${replica.name} to exit`);
}
