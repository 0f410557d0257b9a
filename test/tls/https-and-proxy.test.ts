import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { get as httpsGet } from 'node:https';
import net, { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sampleKeyPair, type Sandbox } from '../../src/index.js';
import { cleanEnv, EXIT_WITHIN, within } from '../support/process.js';
import { listeningSandbox } from '../support/sandbox.js';

/**
 * The HTTPS listener and the forward proxy, from the outside: what a client
 * with a hard-wired production host sees, and what the proxy refuses.
 */

let caDir: string;
let sandbox: Sandbox;
let ca: string;
let proxyPort: number;

beforeAll(async () => {
  caDir = await mkdtemp(join(tmpdir(), 'proxy-ca-'));
  sandbox = await listeningSandbox({ httpsPort: 0, proxyPort: 0, tlsHosts: ['seerbitapi.com'], caDir });
  ca = await readFile(sandbox.caCertificate!, 'utf8');
  proxyPort = Number(new URL(sandbox.proxyUrl!).port);
});

afterAll(async () => {
  await sandbox?.close();
  if (caDir) await rm(caDir, { recursive: true, force: true });
});

/** Sends `head` (a request line and headers) to the proxy and reads until it closes or `ms` pass. */
async function rawToProxy(head: string, ms = 2_000): Promise<string> {
  const socket = net.connect(proxyPort, '127.0.0.1');
  let received = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
  socket.write(head);
  await new Promise<void>((done) => {
    const timer = setTimeout(() => done(), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      done();
    });
    socket.once('error', () => undefined);
  });
  socket.destroy();
  return received;
}

/** A plain request through the proxy in absolute form (`GET http://host/path`), as clients send to an HTTP proxy. */
function viaProxy(target: string, body?: string): Promise<{ status: number; text: string }> {
  return within(
    new Promise((done, fail) => {
      const req = httpRequest(
        { host: '127.0.0.1', port: proxyPort, method: body ? 'POST' : 'GET', path: target, headers: { Host: new URL(target).host, 'Content-Type': 'application/json' } },
        (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
          res.on('end', () => done({ status: res.statusCode!, text }));
        },
      );
      req.on('error', fail);
      req.end(body);
    }),
    EXIT_WITHIN,
    `an answer to ${target}`,
  );
}

describe('the HTTPS listener', () => {
  it('serves the same app with a certificate for localhost that verifies against the CA', async () => {
    const port = Number(new URL(sandbox.httpsUrl!).port);
    const answer = await within(
      new Promise<{ status: number; body: string; names: string }>((done, fail) => {
        httpsGet({ host: '127.0.0.1', servername: 'localhost', port, path: '/__sandbox/health', ca }, (res) => {
          const names = (res.socket as TLSSocket).getPeerCertificate().subjectaltname ?? '';
          let body = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
          res.on('end', () => done({ status: res.statusCode!, body, names }));
        }).on('error', fail);
      }),
      EXIT_WITHIN,
      'GET /__sandbox/health over HTTPS',
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ status: 'ok' });
    expect(answer.names).toContain('DNS:localhost');
    expect(answer.names).toContain('DNS:seerbitapi.com');
    expect(answer.names).toContain('IP Address:127.0.0.1');
  });

  it('is not trusted without the CA', async () => {
    const port = Number(new URL(sandbox.httpsUrl!).port);
    const failed = new Promise<Error>((done) => {
      httpsGet({ host: '127.0.0.1', servername: 'localhost', port, path: '/__sandbox/health' }, () => done(new Error('answered'))).on('error', done);
    });
    expect((await within(failed, EXIT_WITHIN, 'the TLS failure')).message).toMatch(/self[- ]signed|unable to (verify|get)/i);
  });
});

describe('the proxy', () => {
  it('takes curl (--cacert, -x) to the sandbox for a --tls-host name', async () => {
    const { publicKey, secretKey } = sampleKeyPair();
    const env = cleanEnv();
    for (const name of ['NO_PROXY', 'no_proxy', 'HTTPS_PROXY', 'https_proxy', 'ALL_PROXY', 'all_proxy']) delete env[name];
    const { stdout } = await promisify(execFile)(
      'curl',
      ['-sS', '--max-time', '10', '--cacert', sandbox.caCertificate!, '-x', sandbox.proxyUrl!, 'https://seerbitapi.com/api/v2/encrypt/keys',
        '-H', 'Content-Type: application/json', '-d', JSON.stringify({ key: `${secretKey}.${publicKey}` })],
      { env, timeout: EXIT_WITHIN },
    );
    expect(JSON.parse(stdout).data.EncryptedSecKey.encryptedKey).toMatch(/\S/);
  });

  it('refuses with 403 a CONNECT to any other host or port, and connects nowhere', async () => {
    // A listener that must never see a connection: the proxy is asked to reach it.
    const canary = createServer();
    const reached = vi.fn();
    canary.on('connection', reached);
    await new Promise<void>((done) => canary.listen(0, '127.0.0.1', done));
    const canaryPort = (canary.address() as AddressInfo).port;
    const connects = vi.spyOn(net.Socket.prototype, 'connect');
    try {
      const httpPort = new URL(sandbox.url).port;
      const httpsPort = new URL(sandbox.httpsUrl!).port;
      for (const target of ['example.com:443', `127.0.0.1:${httpPort}`, `127.0.0.1:${canaryPort}`, `localhost:${httpsPort}`, 'seerbitapi.com.evil.example:443']) {
        const answer = await rawToProxy(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
        expect(answer, target).toMatch(/^HTTP\/1\.1 403 /);
        expect(answer, target).toMatch(/only reaches the sandbox, as the --tls-host names \(seerbitapi\.com\)/);
      }
      // The only connections made are the test's own, to the proxy.
      expect(connects).toHaveBeenCalled();
      const targets = connects.mock.calls.map((call) => JSON.stringify(call[0]));
      expect(targets.filter((target) => !target.includes(String(proxyPort)))).toEqual([]);
      expect(reached).not.toHaveBeenCalled();
    } finally {
      connects.mockRestore();
      canary.close();
    }
  });

  it('answers plain absolute-form requests for a --tls-host name (http:// and https://) with the app, and refuses the rest', async () => {
    expect(await viaProxy('http://seerbitapi.com/__sandbox/health')).toEqual({ status: 200, text: '{"status":"ok"}' });
    expect(await viaProxy('https://seerbitapi.com/__sandbox/health')).toEqual({ status: 200, text: '{"status":"ok"}' });
    const { publicKey, secretKey } = sampleKeyPair();
    const exchanged = await viaProxy('https://seerbitapi.com/api/v2/encrypt/keys', JSON.stringify({ key: `${secretKey}.${publicKey}` }));
    expect(exchanged.status).toBe(200);
    expect(JSON.parse(exchanged.text).data.EncryptedSecKey.encryptedKey).toMatch(/\S/);
    for (const target of ['http://example.com/', `http://127.0.0.1:${new URL(sandbox.url).port}/__sandbox/health`]) {
      const refused = await viaProxy(target);
      expect(refused.status, target).toBe(403);
      expect(refused.text, target).toMatch(/^payments-sandbox proxy: refused .*--tls-host names \(seerbitapi\.com\)\n$/);
    }
    // A request for the proxy itself (origin form) names no destination the proxy may reach.
    expect(await rawToProxy('GET /__sandbox/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 403 /);
  });

  it('stops with the sandbox: neither the HTTPS port nor the proxy port answers after close()', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'proxy-ca-'));
    try {
      const other = await listeningSandbox({ proxyPort: 0, tlsHosts: ['seerbitapi.com'], caDir: dir });
      expect(other.httpsUrl, 'HTTPS starts with the proxy').toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      await other.close();
      for (const origin of [other.httpsUrl!, other.proxyUrl!]) {
        const refused = new Promise<string | undefined>((done) => {
          const socket = net.connect(Number(new URL(origin).port), '127.0.0.1');
          socket.once('connect', () => done('connected'));
          socket.once('error', (error: NodeJS.ErrnoException) => done(error.code));
        });
        expect(await within(refused, EXIT_WITHIN, `a connection to ${origin}`), origin).toBe('ECONNREFUSED');
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
