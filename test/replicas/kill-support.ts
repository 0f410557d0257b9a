import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { readdir, readFile, readlink } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { banner, call, run, type Banner, type Run } from '../support/process.js';

/**
 * Helpers of test/replicas/deliveries.test.ts: replicas of the built CLI on
 * one PostgreSQL database (`--store <url>`), a receiver that logs every POST
 * with the connection it came over, the owner of each such connection (which
 * replica sent it, read from /proc), and bounded waits.
 */

/** One replica: the process and its banner. */
export interface Replica {
  name: string;
  run: Run;
  banner: Banner;
  /** the sandbox's origin, where `/__sandbox` is */
  origin: string;
  pid: number;
}

/**
 * Creates database `name` on the server at `serverUrl` and returns its URL:
 * one database per case keeps the cases independent.
 */
export async function freshDatabase(serverUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Starts `payments-sandbox --store <storeUrl> --port 0` (log level `error`:
 * one line per request would be thousands of lines here) and waits for its
 * banner. `args` are added to the command line (e.g. `--webhook-url`).
 */
export async function startReplica(name: string, storeUrl: string, args: string[] = []): Promise<Replica> {
  const started = run(['--store', storeUrl, '--port', '0', '--log-level', 'error', ...args]);
  // Said at once, so that a replica that dies when the test did not kill it is seen in the output beside the failure it causes.
  started.child.once('exit', (code, signal) => {
    const last = started.stdout().trim().split('\n').at(-1) ?? '';
    console.log(`[replica ${name}, pid ${started.child.pid}] exited at ${new Date().toISOString()}: ${signal ?? `code ${code}`}; its last line: ${last.slice(0, 300)}`);
  });
  const shown = await banner(started);
  return { name, run: started, banner: shown, origin: shown.origin, pid: started.child.pid! };
}

/** The bearer token of a key pair, exchanged on the replica at `apiBase` (`POST /encrypt/keys`). */
export async function tokenOf(apiBase: string, publicKey: string, secretKey: string): Promise<string> {
  const answer = await call(apiBase, 'POST', '/encrypt/keys', { key: `${secretKey}.${publicKey}` });
  if (answer.status !== 200) throw new Error(`POST /encrypt/keys answered ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.data.EncryptedSecKey.encryptedKey as string;
}

/** One POST the receiver got. */
export interface Post {
  eventId: string;
  /** the X-Expected-Ack-Reference header: one per delivery */
  ackReference: string;
  paymentReference: string;
  /** real time it arrived, epoch ms */
  at: number;
  /** the client's port of the connection it came over (the sending replica's socket) */
  port: number;
  /** true once the acknowledgement was written whole; false while held, or when the connection closed first */
  answered: boolean;
  /** true when the connection closed before the acknowledgement went out (its sender died) */
  aborted: boolean;
}

/**
 * A merchant's receiver on 127.0.0.1 that acknowledges as the `current`
 * schedule wants (src/notifications/send.ts: HTTP 200, `{"ackReference":
 * <the header>, "status": "received"}`), after `holdMs` (0: at once), and
 * logs every POST, answered or not.
 */
export class LoggingReceiver {
  readonly posts: Post[] = [];
  holdMs = 0;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<LoggingReceiver> {
    let receiver: LoggingReceiver | undefined;
    const server = createServer((req, res) => {
      let raw = '';
      req.setEncoding('utf8').on('data', (chunk: string) => (raw += chunk));
      req.on('end', () => {
        const ackReference = String(req.headers['x-expected-ack-reference'] ?? '');
        let item: any;
        try {
          item = JSON.parse(raw)?.notificationItems?.[0]?.notificationRequestItem;
        } catch {
          item = undefined;
        }
        const post: Post = {
          eventId: String(item?.eventId ?? ''),
          ackReference,
          paymentReference: String(item?.data?.reference ?? ''),
          at: Date.now(),
          port: req.socket.remotePort ?? 0,
          answered: false,
          aborted: false,
        };
        receiver!.posts.push(post);
        res.on('finish', () => (post.answered = true));
        res.on('close', () => {
          if (!post.answered) post.aborted = true;
        });
        const answer = () => {
          if (res.destroyed) return;
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ackReference, status: 'received' }));
        };
        if (receiver!.holdMs > 0) setTimeout(answer, receiver!.holdMs);
        else answer();
      });
    });
    server.on('connection', (socket) => {
      receiver?.sockets.add(socket);
      socket.on('close', () => receiver?.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver = new LoggingReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`);
    return receiver;
  }

  /** How many POSTs each eventId got. */
  countsByEvent(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const post of this.posts) counts.set(post.eventId, (counts.get(post.eventId) ?? 0) + 1);
    return counts;
  }

  /** The eventIds that arrived more than once. */
  duplicated(): string[] {
    return [...this.countsByEvent()].filter(([, count]) => count > 1).map(([eventId]) => eventId);
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** The local ports of the IPv4/IPv6 TCP sockets process `pid` holds now, read from /proc (Linux). */
export async function tcpPortsOf(pid: number): Promise<Set<number>> {
  const inodes = new Set<string>();
  let fds: string[];
  try {
    fds = await readdir(`/proc/${pid}/fd`);
  } catch {
    return new Set();
  }
  for (const fd of fds) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode) inodes.add(inode);
  }
  const ports = new Set<number>();
  for (const table of ['tcp', 'tcp6']) {
    const text = await readFile(`/proc/${pid}/net/${table}`, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const columns = line.trim().split(/\s+/);
      if (columns.length < 10 || !inodes.has(columns[9]!)) continue;
      ports.add(parseInt(columns[1]!.split(':')[1]!, 16));
    }
  }
  return ports;
}

/**
 * Which replica holds each client port, sampled every `everyMs` while the
 * replicas live: a POST's port then names its sender. A notification's
 * connection is kept alive for seconds (src/notifications/send.ts), far
 * longer than the period, so none goes unseen.
 */
export class PortOwners {
  readonly owners = new Map<number, string>();
  private timer: NodeJS.Timeout | undefined;
  private sampling: Promise<void> = Promise.resolve();

  constructor(private readonly replicas: Replica[], everyMs = 250) {
    this.timer = setInterval(() => {
      this.sampling = this.sampling.then(() => this.sample());
    }, everyMs);
  }

  /** Reads the replicas' sockets once more now. */
  async sample(): Promise<void> {
    for (const replica of this.replicas) {
      for (const port of await tcpPortsOf(replica.pid)) this.owners.set(port, replica.name);
    }
  }

  /** The replica that held `port`, or `unknown`. */
  of(port: number): string {
    return this.owners.get(port) ?? 'unknown';
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sampling;
  }
}

/** Runs `work` on every item, at most `concurrency` at once; resolves with the results in the items' order. */
export async function inPool<T, R>(items: T[], concurrency: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!, index);
    }
  });
  await Promise.all(lanes);
  return results;
}

/**
 * Polls `check` every `everyMs` until it returns true; resolves with the
 * milliseconds it took, or rejects after `timeoutMs` with `what` and the
 * last `describe()`.
 */
export async function waitUntil(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number, describe: () => string = () => '', everyMs = 100): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; ${describe()}`);
    await sleep(everyMs);
  }
}
