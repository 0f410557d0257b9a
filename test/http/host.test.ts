import { connect } from 'node:net';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { listeningSandbox } from '../support/sandbox.js';

/**
 * The Host checks only a listener shows (test/unit/control/access.test.ts
 * has the rest): an empty Host, and a request that carries no Host at all,
 * which only a client on a socket can send, and the address a sandbox listens on, which is a name it
 * answers only when it listens there.
 */

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await listeningSandbox({ publicUrl: 'http://sandbox.test:4010', allowedHosts: ['payments.internal'], tlsHosts: ['seerbitapi.com'] });
});
afterAll(() => sandbox.close());

describe('the Host header', () => {
  it('refuses an empty Host, and a request without Host', async () => {
    expect((await request(sandbox.app).get('/__sandbox/health').set('Host', '')).status).toBe(403);
    const port = Number(new URL(sandbox.url).port);
    const answer = await new Promise<string>((resolve) => {
      let received = '';
      const socket = connect(port, '127.0.0.1', () => socket.end('GET /__sandbox/health HTTP/1.0\r\n\r\n'));
      socket.on('data', (chunk) => (received += chunk.toString()));
      socket.on('close', () => resolve(received));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 403 /);
  });

  it('accepts the address it listens on, when that is not every interface', async () => {
    const bound = await listeningSandbox({ host: '127.0.0.2' });
    try {
      const host = new URL(bound.url).host;
      expect((await fetch(`${bound.url}/__sandbox/health`)).status).toBe(200);
      expect((await request(bound.app).get('/__sandbox/health').set('Host', host)).status).toBe(200);
      expect((await request(sandbox.app).get('/__sandbox/health').set('Host', host)).status).toBe(403);
    } finally {
      await bound.close();
    }
  });
});
