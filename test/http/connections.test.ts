import { Agent, request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sampleKeyPair, startSandbox, type Sandbox } from '../../src/index.js';
import { banner, run, stopAll, TIMEOUT, within } from '../support/process.js';

/**
 * The sandbox's bounds on connections (README, "Security"): one that sends
 * nothing is closed after the idle timeout, one that sent part of a request
 * is answered 408 in the spec's error body, a request in hand and keep-alive
 * clients are left alone, and connections beyond the cap are closed while the
 * sandbox keeps serving. Real sockets on 127.0.0.1, bounded in count and time.
 * Their defaults, and the bounds refused at start: test/unit/http/listener-options.test.ts.
 */

const sandboxes: Sandbox[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const sandbox of sandboxes.splice(0)) await sandbox.close();
  await stopAll();
});

async function sandboxWith(options: { idleTimeoutMs?: number; maxConnections?: number }): Promise<{ sandbox: Sandbox; port: number }> {
  const sandbox = await startSandbox({ port: 0, ...options });
  sandboxes.push(sandbox);
  return { sandbox, port: Number(new URL(sandbox.url).port) };
}

/** A raw connection, open; `closed` resolves when the far end (or we) closed it, with what it was sent. */
async function open(port: number): Promise<{ socket: Socket; closed: Promise<string> }> {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  let received = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => undefined);
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(received)));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('close', () => reject(new Error('closed before it connected')));
  });
  return { socket, closed };
}

const isOpen = (socket: Socket) => !socket.destroyed && socket.readyState === 'open';
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function health(sandbox: Sandbox): Promise<number> {
  const response = await fetch(`${sandbox.url}/__sandbox/health`, { signal: AbortSignal.timeout(5000) });
  return response.status;
}

describe('an idle timeout of 1 s', () => {
  it('closes 50 connections that send nothing within a few seconds, leaves a request in hand alone, and still serves', { timeout: 15_000 }, async () => {
    const { sandbox, port } = await sandboxWith({ idleTimeoutMs: 1000 });
    // A request the sandbox holds unanswered (the hang fault): in hand, so no idle timeout applies to it.
    const hung = await open(port);
    const { publicKey, secretKey } = sampleKeyPair();
    const body = JSON.stringify({ key: `${secretKey}.${publicKey}` });
    hung.socket.write(
      `POST /api/v2/encrypt/keys HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Sandbox-Scenario: hang\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    const opened = await Promise.all(Array.from({ length: 50 }, () => open(port)));
    const answers = await within(Promise.all(opened.map((each) => each.closed)), 6000, 'the sandbox to close 50 silent connections');
    // Nothing was asked: nothing is answered.
    expect(answers.every((answer) => answer === '')).toBe(true);
    await pause(1000);
    expect(isOpen(hung.socket)).toBe(true);
    expect(await health(sandbox)).toBe(200);
  });

  it('answers 408 in the spec\'s error body to a connection that sent part of a request and went silent', { timeout: 15_000 }, async () => {
    const { port } = await sandboxWith({ idleTimeoutMs: 1000 });
    const { socket, closed } = await open(port);
    socket.write('GET /__sandbox/health HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const answer = await within(closed, 6000, 'the half-sent request to be answered');
    expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(answer).toContain('Content-Type: application/json');
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({ message: 'Request Timeout', error: 'The request was not received in time' });
  });
});

describe('the HTTPS listener with an idle timeout of 1 s', () => {
  it('closes a connection that never starts its TLS handshake, as it closes a silent plain one', { timeout: 15_000 }, async () => {
    const caDir = mkdtempSync(join(tmpdir(), 'connections-ca-'));
    try {
      const sandbox = await startSandbox({ port: 0, httpsPort: 0, caDir, idleTimeoutMs: 1000 });
      sandboxes.push(sandbox);
      const silent = await open(Number(new URL(sandbox.httpsUrl!).port));
      await pause(500);
      expect(isOpen(silent.socket)).toBe(true);
      // Node's own handshake limit is 120 s: the sandbox's idle time applies instead.
      await within(silent.closed, 5_000, 'the silent TLS connection to close');
      expect(await health(sandbox)).toBe(200);
    } finally {
      rmSync(caDir, { recursive: true, force: true });
    }
  });
});

describe('an idle timeout of 2.5 s, shorter than Node\'s 5 s keep-alive', () => {
  it('keeps a keep-alive connection for the next request, then closes it once idle for 2.5 s', { timeout: 15_000 }, async () => {
    const { sandbox } = await sandboxWith({ idleTimeoutMs: 2500 });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = () =>
      new Promise<{ status: number; socket: Socket }>((resolve, reject) => {
        const sent = httpRequest(`${sandbox.url}/__sandbox/health`, { agent }, (response) => {
          // The agent takes the socket back once the answer is read: note it now.
          const socket = response.socket;
          response.resume();
          response.on('end', () => resolve({ status: response.statusCode ?? 0, socket }));
        });
        sent.on('error', reject).end();
      });
    try {
      const first = await get();
      await pause(300);
      const second = await get();
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(second.socket).toBe(first.socket);
    } finally {
      agent.destroy();
    }
    // The same by hand, to see the sandbox (not the client's agent) close it: Node's own keep-alive would keep it 5 s.
    const { socket, closed } = await open(Number(new URL(sandbox.url).port));
    let answered = 0;
    socket.on('data', (chunk: string) => (answered += chunk.split('{"status":"ok"}').length - 1));
    const ask = async (count: number) => {
      socket.write('GET /__sandbox/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      await within((async () => { while (answered < count) await pause(20); })(), 3000, `answer ${count}`);
    };
    await ask(1);
    await pause(300);
    await ask(2);
    await within(closed, 4000, 'the idle keep-alive connection to be closed');
  });
});

describe('a cap of 20 connections', () => {
  it('closes the 10 beyond it at once, keeps the 20, and serves again once they close', { timeout: 15_000 }, async () => {
    const { sandbox, port } = await sandboxWith({ maxConnections: 20 });
    const opened = await Promise.all(Array.from({ length: 30 }, () => open(port).catch(() => undefined)));
    // A connection beyond the cap is accepted by the kernel, then closed by the sandbox.
    const closedOnes = await within(
      (async () => {
        for (;;) {
          const closed = opened.filter((each) => !each || !isOpen(each.socket));
          if (closed.length >= 10) return closed.length;
          await pause(50);
        }
      })(),
      5000,
      'the connections beyond the cap to be closed',
    );
    await pause(200);
    expect(closedOnes).toBe(10);
    expect(opened.filter((each) => each && isOpen(each.socket))).toHaveLength(20);
    for (const each of opened) each?.socket.destroy();
    // The sandbox counts a connection as gone once its close reaches it: ask until it has room again.
    const status = await within(
      (async () => {
        for (;;) {
          const answered = await health(sandbox).catch(() => 0);
          if (answered === 200) return answered;
          await pause(50);
        }
      })(),
      5000,
      'the sandbox to serve again',
    );
    expect(status).toBe(200);
  });
});

describe('the bounds as options', () => {
  it('are --idle-timeout (seconds) and --max-connections on the command line', { timeout: TIMEOUT }, async () => {
    const started = run(['--port', '0', '--in-memory', '--log-level', 'silent', '--idle-timeout', '1', '--max-connections', '5']);
    const { origin } = await banner(started);
    const port = Number(new URL(origin).port);
    const silent = await open(port);
    await within(silent.closed, 5000, 'the sandbox to close a silent connection after 1 s');
    silent.socket.destroy();
    const opened = await Promise.all(Array.from({ length: 7 }, () => open(port).catch(() => undefined)));
    await pause(200);
    expect(opened.filter((each) => each && isOpen(each.socket))).toHaveLength(5);
  });
});
