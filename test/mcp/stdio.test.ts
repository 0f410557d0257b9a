import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { BIN, cleanEnv, EXIT_WITHIN, ROOT, run, stopAll, TIMEOUT, within } from '../support/process.js';
import { listeningSandbox } from '../support/sandbox.js';
import { answer, expectedToolNames, freshMerchant } from '../support/mcp.js';
import { agentFlow } from './agent-flow.js';

/**
 * `payments-sandbox mcp` (README, "Agents"): the built executable as a coding
 * agent starts it, MCP on its stdin and stdout, with a sandbox in memory in
 * its own process, and bridged to a running sandbox with `--url`.
 */

const TOKEN = 'mcp-stdio-token';
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await stopAll();
});

async function connected(args: string[]): Promise<Client> {
  const client = new Client({ name: 'agent-under-test', version: '1.0.0' });
  clients.push(client);
  // stderr is the server's to write on: it is kept out of the test's output.
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', ...args], cwd: ROOT, env: cleanEnv() as Record<string, string>, stderr: 'pipe' }));
  return client;
}

describe('payments-sandbox mcp, a sandbox in memory', { timeout: TIMEOUT }, () => {
  it('lists one tool per control operation and paymentsApiRequest, and serves an agent through tools alone', async () => {
    const client = await connected([]);
    expect(client.getServerVersion()).toMatchObject({ name: 'payments-sandbox' });
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(await expectedToolNames());
    await agentFlow(client);
  });

  it('writes nothing but MCP messages on stdout, and ends when its stdin ends', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp'], { cwd: ROOT, env: cleanEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    const merchant = freshMerchant();
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/call', params: { name: 'paymentsApiRequest', arguments: { ...merchant, method: 'GET', path: '/networks' } } });
    send({ id: 3, method: 'tools/call', params: { name: 'resetState', arguments: {} } });
    await expect.poll(() => stdout.split('\n').filter(Boolean).length, { timeout: 20_000 }).toBe(3);
    child.stdin.end();
    expect(await within(exited, EXIT_WITHIN, 'the MCP server to exit once its stdin ended')).toBe(0);
    const messages = stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { jsonrpc: string; id: number; result: any });
    expect(messages.map((message) => [message.jsonrpc, message.id])).toEqual([['2.0', 1], ['2.0', 2], ['2.0', 3]]);
    expect(messages[1]!.result.structuredContent).toMatchObject({ status: 200, scenario: expect.any(String) });
    expect(messages[2]!.result.structuredContent).toMatchObject({ reset: 'all' });
  });
});

describe('payments-sandbox mcp --url, bridged to a running sandbox', { timeout: TIMEOUT }, () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await listeningSandbox({ controlToken: TOKEN });
  });
  afterAll(() => sandbox.close());

  it("re-exposes the running sandbox's tools, whose calls act on that sandbox", async () => {
    const client = await connected(['--url', sandbox.url, '--control-token', TOKEN]);
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(await expectedToolNames());
    await agentFlow(client);
    // The payments the agent made are the running sandbox's own.
    const merchants = await answer(client, 'listMerchants', {});
    expect(merchants.merchants.map((merchant: { publicKey: string }) => merchant.publicKey)).toEqual(sandbox.store.merchants().map((merchant) => merchant.publicKey));
  });

  it('stops at once with one line when the sandbox refuses its control token, or when given what only a sandbox in memory takes', async () => {
    const refused = run(['mcp', '--url', sandbox.url, '--control-token', 'not-the-token']);
    expect((await within(refused.closed, EXIT_WITHIN, 'the bridge to exit')).code).toBe(1);
    expect(refused.stderr()).toMatch(/^payments-sandbox: cannot reach the sandbox's MCP endpoint at http:\/\/127\.0\.0\.1:\d+\/__sandbox\/mcp: .*control token/);
    expect(refused.stdout()).toBe('');

    const withSeed = run(['mcp', '--url', sandbox.url, '--seed', '42']);
    expect((await within(withSeed.closed, EXIT_WITHIN, 'the bridge to exit')).code).toBe(2);
    expect(withSeed.stderr()).toContain('--seed is for a sandbox in memory');
  });
});
