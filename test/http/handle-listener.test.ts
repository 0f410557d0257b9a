import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox, type SandboxAnswer } from '../../src/index.js';

/** Sandbox.handle() beside a listener (test/unit/http/handle.test.ts serves it with none): both answer, neither disturbs the other. */

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const json = (answer: SandboxAnswer): any => JSON.parse(answer.body.toString('utf8'));

async function keyExchange(box: Sandbox): Promise<{ publicKey: string; token: string }> {
  const publicKey = `SBTESTPUBK_${randomBytes(8).toString('hex')}`;
  const secretKey = `SBTESTSECK_${randomBytes(8).toString('hex')}`;
  const answer = await box.handle({ method: 'POST', url: '/api/v2/encrypt/keys', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ key: `${secretKey}.${publicKey}` }) });
  expect(answer.status).toBe(200);
  return { publicKey, token: json(answer).data.EncryptedSecKey.encryptedKey };
}

describe('handle() beside a listener', () => {
  it('leaves the listener answering real requests, the control API included', async () => {
    sandbox = await startSandbox({ port: 0 });
    expect(sandbox.server?.listening).toBe(true);
    expect((await sandbox.handle({ method: 'GET', url: '/__sandbox/health' })).status).toBe(200);
    await keyExchange(sandbox);
    const health = await fetch(`${sandbox.url}/__sandbox/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });
    // A control request with a body, then the same over the socket.
    const made = await sandbox.handle({ method: 'POST', url: '/__sandbox/overrides', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ scenario: 'hang', times: 1 }) });
    expect(made.status).toBe(201);
    expect(json(made)).toMatchObject({ scenario: 'hang', times: 1 });
    const listed = await fetch(`${sandbox.url}/__sandbox/overrides`);
    expect(listed.status).toBe(200);
    expect((await listed.json()).overrides).toHaveLength(1);
    const cleared = await fetch(`${sandbox.url}/__sandbox/overrides`, { method: 'DELETE' });
    expect(cleared.status).toBe(204);
  });
});
