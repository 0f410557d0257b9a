import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { HANG_LIMIT_MS } from '../../src/http/faults.js';
import { HAPROXY, HAPROXY_TAG, haproxyFound, INSTALL_HAPROXY } from '../support/haproxy-binary.js';
import { freePort, ROOT, within } from '../support/process.js';

/**
 * examples/deploy/: two replicas of the sandbox on one PostgreSQL behind
 * HAProxy (docs/deploy.md), checked without a Docker engine. The compose file
 * passes dclint (zavoloklom/docker-compose-linter, pinned in package.json,
 * which carries the Compose schema and needs no network) with no warning,
 * and has the shape the deployment relies on. haproxy.cfg passes
 * `haproxy -c`, and runs for real, its ports moved to free loopback ports and
 * its replicas' addresses to two small HTTP servers that answer as replicas
 * do: requests alternate, a replica whose health answers 503 is left out
 * within seconds, and server-sent events stream through. Those need HAProxy
 * (Debian's `haproxy`, or HAPROXY_PATH): without it they are skipped with one
 * line at the end of the run, except in CI, where they fail.
 */

const run = promisify(execFile);
const FOLDER = join(ROOT, 'examples/deploy');
const COMPOSE_FILE = join(FOLDER, 'compose.yaml');
const CFG_FILE = join(FOLDER, 'haproxy.cfg');

/** A compose service, as far as these tests read it. */
interface Service {
  image?: string;
  build?: string;
  depends_on?: Record<string, { condition?: string }>;
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  healthcheck?: { test?: string[] };
}
const compose = parseYaml(await readFile(COMPOSE_FILE, 'utf8')) as { services: Record<string, Service>; volumes?: Record<string, unknown> };
const services = compose.services;
/** The replicas: the services built from this repository's Dockerfile. */
const replicas = Object.keys(services).filter((name) => services[name]!.build === '../..');
const cfg = await readFile(CFG_FILE, 'utf8');

/** haproxy.cfg's sections (`defaults`, `frontend sandbox`, …), each a list of its directives, comments and blank lines left out. */
function sectionsOf(text: string): Map<string, string[]> {
  const sections = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*$/, '').trimEnd();
    if (line.trim() === '') continue;
    if (/^\S/.test(line)) sections.set(line.trim(), (current = []));
    else current?.push(line.trim().replace(/\s+/g, ' '));
  }
  return sections;
}
const sections = sectionsOf(cfg);
const backend = sections.get('backend replicas') ?? [];
const defaults = sections.get('defaults') ?? [];

/** An HAProxy time (`11m`, `5s`, `500ms`, a bare number of milliseconds), in milliseconds. */
function millisecondsOf(time: string): number {
  const [, amount, unit] = /^(\d+)(us|ms|s|m|h|d)?$/.exec(time) ?? [];
  if (amount === undefined) throw new Error(`"${time}" is no HAProxy time`);
  const factor = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[unit ?? 'ms']!;
  return Number(amount) * factor;
}

/** The longest a replica may keep a request waiting: a `hang`, or the longest delay the catalogue's schema allows. */
async function longestWaitMs(): Promise<number> {
  const schema = JSON.parse(await readFile(join(ROOT, 'scenarios/catalogue.schema.json'), 'utf8')) as {
    definitions: { delay: { oneOf: { properties: Record<string, { maximum: number }> }[] } };
  };
  const delays = schema.definitions.delay.oneOf.flatMap((shape) => Object.values(shape.properties).map((property) => property.maximum));
  return Math.max(HANG_LIMIT_MS, ...delays);
}

describe('examples/deploy/compose.yaml', () => {
  const folders: string[] = [];
  afterAll(async () => {
    for (const folder of folders) await rm(folder, { recursive: true, force: true });
  });

  /** dclint's findings for one file, as `<line> <rule>: <message>`. */
  async function lint(file: string): Promise<string[]> {
    const { stdout } = await run(process.execPath, [join(ROOT, 'node_modules/dclint/bin/dclint.cjs'), '--formatter', 'json', file], { cwd: ROOT }).catch(
      (error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }),
    );
    const [report] = JSON.parse(stdout) as { messages: { line: number; rule: string; message: string }[] }[];
    return report!.messages.map(({ line, rule, message }) => `${line} ${rule}: ${message}`);
  }

  it('passes the compose linter with no error and no warning', { timeout: 30_000 }, async () => {
    expect(await lint(COMPOSE_FILE)).toEqual([]);
  });

  it('is read by the linter: the same file with its port open to every interface is refused', { timeout: 30_000 }, async () => {
    const folder = await mkdtemp(join(tmpdir(), 'payments-sandbox-deploy-'));
    folders.push(folder);
    const open = join(folder, 'compose.yaml');
    await writeFile(open, (await readFile(COMPOSE_FILE, 'utf8')).replace("'127.0.0.1:4010:4010'", "'4010:4010'"));
    expect((await lint(open)).join('\n')).toMatch(/no-unbound-port-interfaces/);
  });

  it('runs two replicas of this repository\'s image on one PostgreSQL database, the postgres service', () => {
    expect(Object.keys(services).sort()).toEqual(['load-balancer', 'postgres', 'sandbox-1', 'sandbox-2']);
    expect(replicas).toEqual(['sandbox-1', 'sandbox-2']);
    const urls = replicas.map((name) => services[name]!.environment?.SANDBOX_STORE_URL);
    expect(new Set(urls).size, 'one SANDBOX_STORE_URL for every replica').toBe(1);
    const url = new URL(urls[0]!);
    const database = services.postgres!.environment!;
    expect([url.protocol, url.hostname, url.port, url.pathname]).toEqual(['postgres:', 'postgres', '5432', `/${database.POSTGRES_DB}`]);
    expect([url.username, url.password]).toEqual([database.POSTGRES_USER, database.POSTGRES_PASSWORD]);
    expect(services.postgres!.image).toBe('postgres:16');
  });

  it('gives every replica the same required control token and the balancer\'s address as its public URL', () => {
    const environments = replicas.map((name) => services[name]!.environment!);
    for (const variable of ['SANDBOX_CONTROL_TOKEN', 'SANDBOX_PUBLIC_URL']) {
      expect(new Set(environments.map((environment) => environment[variable])).size, variable).toBe(1);
    }
    // `:?`: compose refuses to start without a token rather than run a shared sandbox open to all.
    expect(environments[0]!.SANDBOX_CONTROL_TOKEN).toMatch(/^\$\{SANDBOX_CONTROL_TOKEN:\?.+\}$/);
    expect(environments[0]!.SANDBOX_PUBLIC_URL).toBe('${SANDBOX_PUBLIC_URL:-http://localhost:4010}');
  });

  it('starts the replicas once PostgreSQL is healthy (pg_isready), and the balancer once both replicas are (the image\'s HEALTHCHECK)', () => {
    expect(services.postgres!.healthcheck?.test).toContain('pg_isready');
    for (const name of replicas) {
      expect(services[name]!.depends_on, name).toEqual({ postgres: { condition: 'service_healthy' } });
      expect(services[name]!.healthcheck, `${name} keeps the image's HEALTHCHECK`).toBeUndefined();
    }
    expect(services['load-balancer']!.depends_on).toEqual(Object.fromEntries(replicas.map((name) => [name, { condition: 'service_healthy' }])));
  });

  it('publishes the balancer alone, on the host\'s loopback only', () => {
    expect(services['load-balancer']!.ports).toEqual(['127.0.0.1:4010:4010']);
    for (const name of ['postgres', ...replicas]) expect(services[name]!.ports, name).toBeUndefined();
  });

  it('keeps the state in PostgreSQL: a named volume for the database, none for the replicas; the balancer reads haproxy.cfg read-only', () => {
    expect(services.postgres!.volumes).toEqual(['sandbox-postgres:/var/lib/postgresql/data']);
    expect(compose.volumes).toHaveProperty('sandbox-postgres');
    for (const name of replicas) expect(services[name]!.volumes, name).toBeUndefined();
    expect(services['load-balancer']!.image).toBe('haproxy:2.6');
    expect(services['load-balancer']!.volumes).toEqual(['./haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro']);
    expect(existsSync(CFG_FILE)).toBe(true);
  });
});

describe('examples/deploy/haproxy.cfg', () => {
  it('balances HTTP round robin over every replica of compose.yaml, by its service name and port', () => {
    expect(defaults).toContain('mode http');
    expect(defaults).toContain('option forwardfor');
    expect(backend).toContain('balance roundrobin');
    const servers = backend.filter((line) => line.startsWith('server ')).map((line) => line.split(' ').slice(1, 3));
    expect(servers).toEqual(replicas.map((name) => [name, `${name}:4010`]));
    expect(sections.get('frontend sandbox')).toContain('bind :4010');
  });

  it('checks each replica\'s /__sandbox/health, with a Host the sandbox answers to, and wants 200', () => {
    expect(backend).toContain('option httpchk GET /__sandbox/health HTTP/1.1');
    expect(backend).toContain('http-check send hdr Host localhost');
    expect(backend).toContain('http-check expect status 200');
    expect(backend.find((line) => line.startsWith('default-server '))).toMatch(/\bcheck\b/);
  });

  it('waits for a replica longer than the sandbox\'s longest delay or hang', async () => {
    const server = defaults.find((line) => line.startsWith('timeout server '))!;
    expect(millisecondsOf(server.split(' ')[2]!)).toBeGreaterThan(await longestWaitMs());
  });
});

/** A replica as HAProxy sees it: health 200 or 503, an answer that names it, a stream of server-sent events. */
interface Replica {
  name: string;
  port: number;
  server: Server;
  /** What its health answers: 200 when true, 503 (as while PostgreSQL is unreachable) when false. */
  healthy: boolean;
  /** The Host header of each health check received. */
  checkHosts: (string | undefined)[];
  /** The X-Forwarded-For header of each other request received. */
  forwardedFor: (string | undefined)[];
  /** The open event stream, ended by the test. */
  stream?: ServerResponse;
}

/** Starts a replica on a free loopback port. Like the sandbox, it refuses a request without a Host header with 403. */
async function startReplica(name: string): Promise<Replica> {
  const replica = { name, healthy: true, checkHosts: [], forwardedFor: [] } as unknown as Replica;
  replica.server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const json = (status: number, body: object): void => {
      res.writeHead(status, { 'content-type': 'application/json', 'x-replica': name }).end(JSON.stringify(body));
    };
    if (req.headers.host === undefined) return json(403, { message: 'Host (none) is not a name this sandbox answers to', error: 'FORBIDDEN' });
    if (req.url === '/__sandbox/health') {
      replica.checkHosts.push(req.headers.host);
      return replica.healthy ? json(200, { status: 'ok' }) : json(503, { status: 'store-unavailable' });
    }
    if (req.url === '/__sandbox/events') {
      // The sandbox's own headers for the stream (src/http/control-listener.ts).
      res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no', Connection: 'close', 'x-replica': name });
      res.write(`id: 1\nevent: hello\ndata: {"replica":"${name}"}\n\n`);
      replica.stream = res;
      return;
    }
    replica.forwardedFor.push(req.headers['x-forwarded-for'] as string | undefined);
    return json(200, { replica: name });
  });
  await new Promise<void>((done) => replica.server.listen(0, '127.0.0.1', done));
  replica.port = (replica.server.address() as { port: number }).port;
  return replica;
}

/** One GET through the balancer on a connection of its own: its status, and the replica that answered. */
function get(port: number, path: string): Promise<{ status: number; replica: string | undefined }> {
  return new Promise((done, fail) => {
    const asked = request({ host: '127.0.0.1', port, path, agent: false, timeout: 5000 }, (response) => {
      response.resume();
      response.on('end', () => done({ status: response.statusCode!, replica: response.headers['x-replica'] as string | undefined }));
    });
    asked.on('timeout', () => asked.destroy(new Error(`no answer to GET ${path} within 5 s`)));
    asked.on('error', fail);
    asked.end();
  });
}

/** Resolves once something accepts a TCP connection on the loopback port, or rejects after `ms`. */
async function listening(port: number, ms: number): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const accepted = await new Promise<boolean>((done) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        done(true);
      });
      socket.on('error', () => done(false));
    });
    if (accepted) return;
    if (Date.now() > until) throw new Error(`nothing listens on 127.0.0.1:${port} after ${ms} ms`);
    await sleep(50);
  }
}

/** Fails, in CI, a run without HAProxy, saying how to install it. */
function requireHaproxy(): void {
  if (!haproxyFound()) throw new Error(`HAProxy not found at ${HAPROXY}: install Debian's package (${INSTALL_HAPROXY}) or set HAPROXY_PATH`);
}

describe('HAProxy with examples/deploy/haproxy.cfg', { tags: [HAPROXY_TAG] }, () => {
  it('passes `haproxy -c`; its only warnings are the replicas\' names, which resolve on compose\'s network alone', { timeout: 30_000 }, async () => {
    requireHaproxy();
    const { stdout, stderr } = await run(HAPROXY, ['-c', '-f', CFG_FILE]);
    expect(stdout).toMatch(/Configuration file is valid/);
    const warnings = stderr.split('\n').filter((line) => /\[(WARNING|ALERT)\]/.test(line));
    expect(warnings.filter((line) => !/could not resolve address 'sandbox-\d+'/.test(line))).toEqual([]);
  });

  describe('run with its ports on this machine\'s loopback and two stand-in replicas', () => {
    const started: Replica[] = [];
    let haproxy: ChildProcess | undefined;
    let output = '';
    let port = 0;
    let folder: string | undefined;
    const killHaproxy = (): void => {
      haproxy?.kill('SIGKILL');
    };

    beforeAll(async () => {
      requireHaproxy();
      for (const name of replicas) started.push(await startReplica(name));
      port = await freePort();
      // The cfg as it is, but for where it listens and where the replicas are.
      let rewritten = cfg.replace(/^(\s*bind\s+):4010$/m, `$1127.0.0.1:${port}`);
      expect(rewritten, 'the frontend binds :4010').not.toBe(cfg);
      for (const replica of started) {
        const before = rewritten;
        rewritten = rewritten.replace(new RegExp(`^(\\s*server\\s+${replica.name}\\s+)${replica.name}:4010`, 'm'), `$1127.0.0.1:${replica.port}`);
        expect(rewritten, `a server line for ${replica.name}`).not.toBe(before);
      }
      folder = await mkdtemp(join(tmpdir(), 'payments-sandbox-haproxy-'));
      const file = join(folder, 'haproxy.cfg');
      await writeFile(file, rewritten);
      // -db: in the foreground, so that it is this process's child and ends with it.
      haproxy = spawn(HAPROXY, ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
      process.once('exit', killHaproxy);
      const keep = (chunk: Buffer): void => {
        output = (output + chunk.toString('utf8')).slice(-20_000);
      };
      haproxy.stdout!.on('data', keep);
      haproxy.stderr!.on('data', keep);
      const exited = new Promise<never>((_, reject) => haproxy!.once('exit', (code) => reject(new Error(`haproxy exited (${code}):\n${output}`))));
      exited.catch(() => undefined);
      await Promise.race([listening(port, 10_000), exited]);
      // Both replicas checked once and in the rotation before the tests look at it.
      const seen = new Set<string | undefined>();
      const until = Date.now() + 10_000;
      while ((seen.size < started.length || started.some((replica) => replica.checkHosts.length === 0)) && Date.now() < until) {
        seen.add((await get(port, '/api/v2/warm-up')).replica);
        await sleep(50);
      }
      expect([...seen].sort(), `replicas answering through HAProxy:\n${output}`).toEqual(replicas);
      for (const replica of started) expect(replica.checkHosts.length, `health checks of ${replica.name}:\n${output}`).toBeGreaterThan(0);
    }, 30_000);

    afterAll(async () => {
      if (haproxy && haproxy.exitCode === null && haproxy.signalCode === null) {
        const gone = new Promise((done) => haproxy!.once('exit', done));
        haproxy.kill('SIGTERM');
        await within(gone, 5000, 'haproxy to stop').catch(() => haproxy!.kill('SIGKILL'));
      }
      process.off('exit', killHaproxy);
      for (const replica of started) {
        replica.server.closeAllConnections();
        await new Promise((done) => replica.server.close(done));
      }
      if (folder) await rm(folder, { recursive: true, force: true });
    });

    it('sends requests to the replicas in turn, with the client\'s address in X-Forwarded-For', { timeout: 20_000 }, async () => {
      const answered: (string | undefined)[] = [];
      for (let i = 0; i < 6; i++) {
        const { status, replica } = await get(port, '/api/v2/payments/DEPLOY-1');
        expect(status).toBe(200);
        answered.push(replica);
      }
      for (let i = 1; i < answered.length; i++) expect(answered[i], `request ${i + 1} of ${answered.join(', ')}`).not.toBe(answered[i - 1]);
      for (const name of replicas) expect(answered.filter((replica) => replica === name), name).toHaveLength(3);
      for (const replica of started) expect(replica.forwardedFor.at(-1), replica.name).toBe('127.0.0.1');
      // Every health check named a host the sandbox answers to.
      for (const replica of started) expect(new Set(replica.checkHosts), replica.name).toEqual(new Set(['localhost']));
    });

    it('streams server-sent events: the first event arrives while the replica still holds the response open', { timeout: 20_000 }, async () => {
      const seen = await within(
        new Promise<{ status: number; type: string | undefined; openAtFirst: boolean; text: string }>((done, fail) => {
          const asked = request({ host: '127.0.0.1', port, path: '/__sandbox/events', agent: false, headers: { accept: 'text/event-stream' } }, (response) => {
            const replica = started.find((one) => one.name === response.headers['x-replica']);
            let text = '';
            let openAtFirst = false;
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => {
              if (text === '') {
                // Whether the replica had ended its response when its first event came through: it must not have.
                openAtFirst = replica?.stream?.writableEnded === false;
                replica?.stream?.end('id: 2\nevent: bye\ndata: {}\n\n');
              }
              text += chunk;
            });
            response.on('end', () => done({ status: response.statusCode!, type: response.headers['content-type'], openAtFirst, text }));
            response.on('error', fail);
          });
          asked.on('error', fail);
          asked.end();
        }),
        10_000,
        'the event stream through HAProxy',
      );
      expect(seen.status).toBe(200);
      expect(seen.type).toMatch(/^text\/event-stream/);
      expect(seen.openAtFirst, 'the replica still held the response open when the first event arrived').toBe(true);
      expect(seen.text).toMatch(/^id: 1\nevent: hello\ndata: \{"replica":"sandbox-\d"\}\n\n/);
      expect(seen.text).toMatch(/event: bye/);
    });

    it('leaves out a replica whose health answers 503 within seconds, and takes it back once it answers 200', { timeout: 40_000 }, async () => {
      const [kept, failing] = started as [Replica, Replica];
      failing.healthy = false;
      const since = Date.now();
      // Out once the last 6 requests in a row all went to the other replica.
      let run = 0;
      while (run < 6) {
        if (Date.now() - since > 15_000) throw new Error(`${failing.name} still answered 15 s after its health said 503:\n${output.slice(-2000)}`);
        const { status, replica } = await get(port, '/api/v2/payments/DEPLOY-2');
        expect(status).toBe(200);
        run = replica === kept.name ? run + 1 : 0;
        await sleep(100);
      }
      // Two failed checks, one a second, and the requests that showed it: a few seconds, on a busy machine too.
      expect(Date.now() - since).toBeLessThan(10_000);
      failing.healthy = true;
      const back = Date.now();
      for (;;) {
        if (Date.now() - back > 15_000) throw new Error(`${failing.name} not taken back 15 s after its health said 200:\n${output.slice(-2000)}`);
        if ((await get(port, '/api/v2/payments/DEPLOY-3')).replica === failing.name) break;
        await sleep(100);
      }
    });
  });
});
