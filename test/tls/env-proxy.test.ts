import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { cleanEnv, EXIT_WITHIN, ROOT, within } from '../support/process.js';
import { listeningSandbox } from '../support/sandbox.js';

/**
 * The `payments-sandbox/env-proxy` preload (built in dist/), in a CommonJS
 * client that makes its own `new https.Agent()`, as SDKs do: Node 20 ignores
 * HTTPS_PROXY by itself, the preload makes it count.
 */

// Prints {status, body} or {error} as one JSON line.
const CLIENT = `const https = require('https');
const http = require('http');
const url = new URL(process.argv[2]);
const lib = url.protocol === 'https:' ? https : http;
const req = lib.request({ hostname: url.hostname, port: url.port, path: url.pathname, method: 'GET', agent: new lib.Agent() }, (res) => {
  let body = '';
  res.setEncoding('utf8').on('data', (chunk) => (body += chunk));
  res.on('end', () => console.log(JSON.stringify({ status: res.statusCode, body })));
});
req.on('error', (error) => console.log(JSON.stringify({ error: error.message })));
req.end();
`;

let dir: string;
let sandbox: Sandbox;
let client: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'env-proxy-'));
  sandbox = await listeningSandbox({ httpsPort: 0, proxyPort: 0, tlsHosts: ['seerbitapi.com'], caDir: join(dir, 'ca') });
  client = join(dir, 'client.cjs');
  await writeFile(client, CLIENT);
});

afterAll(async () => {
  await sandbox?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Runs the client on `url` with the preload, the CA trusted, and `env` as the only proxy settings. */
async function fetchWithPreload(url: string, env: Record<string, string>): Promise<any> {
  const childEnv = cleanEnv({ NODE_EXTRA_CA_CERTS: sandbox.caCertificate!, NODE_OPTIONS: '--import payments-sandbox/env-proxy' });
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy']) delete childEnv[name];
  const child = spawn(process.execPath, [client, url], { cwd: ROOT, env: { ...childEnv, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  try {
    await within(new Promise((done) => child.once('close', done)), EXIT_WITHIN, `the client on ${url}`);
  } finally {
    child.kill('SIGKILL');
  }
  expect(stdout, stderr).toMatch(/^\{.*\}\n$/);
  return JSON.parse(stdout);
}

describe('payments-sandbox/env-proxy', () => {
  it('sends https.request with its own Agent through HTTPS_PROXY (or https_proxy) to the sandbox', async () => {
    for (const name of ['HTTPS_PROXY', 'https_proxy']) {
      expect(await fetchWithPreload('https://seerbitapi.com/__sandbox/health', { [name]: sandbox.proxyUrl! }), name).toEqual({ status: 200, body: '{"status":"ok"}' });
    }
  });

  it('sends http.request through HTTP_PROXY', async () => {
    expect(await fetchWithPreload('http://seerbitapi.com/__sandbox/health', { HTTP_PROXY: sandbox.proxyUrl! })).toEqual({ status: 200, body: '{"status":"ok"}' });
  });

  it('honours NO_PROXY: a listed host is reached directly, an unlisted one through the proxy', async () => {
    const direct = `https://localhost:${new URL(sandbox.httpsUrl!).port}/__sandbox/health`;
    // The proxy refuses localhost, so an answer proves the request did not go through it.
    expect(await fetchWithPreload(direct, { HTTPS_PROXY: sandbox.proxyUrl!, NO_PROXY: 'localhost' })).toEqual({ status: 200, body: '{"status":"ok"}' });
    expect((await fetchWithPreload(direct, { HTTPS_PROXY: sandbox.proxyUrl! })).error).toMatch(/Proxy server refused connecting to 'localhost:\d+' \(HTTP\/1\.1 403 Forbidden\)/);
  });

  it('changes nothing without a proxy variable', async () => {
    expect(await fetchWithPreload(`https://localhost:${new URL(sandbox.httpsUrl!).port}/__sandbox/health`, {})).toEqual({ status: 200, body: '{"status":"ok"}' });
  });
});
