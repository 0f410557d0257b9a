import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { listeningSandbox } from '../support/sandbox.js';
import { expectedToolNames } from '../support/mcp.js';
import { agentFlow } from './agent-flow.js';

/**
 * `/__sandbox/mcp` (README, "Agents"): MCP over Streamable HTTP on a running
 * sandbox, reached by the SDK's own client, behind the control API's guards.
 */

const TOKEN = 'mcp-http-token';
let sandbox: Sandbox;
const clients: Client[] = [];
beforeAll(async () => {
  sandbox = await listeningSandbox({ controlToken: TOKEN });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});
afterAll(() => sandbox.close());

const endpoint = () => new URL(`${sandbox.url}/__sandbox/mcp`);

async function connected(headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'agent-under-test', version: '1.0.0' });
  clients.push(client);
  await client.connect(new StreamableHTTPClientTransport(endpoint(), { requestInit: { headers } }));
  return client;
}

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const post = (headers: Record<string, string>) =>
  fetch(endpoint(), { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(initialize) });

describe('MCP over Streamable HTTP at /__sandbox/mcp', { timeout: 30_000 }, () => {
  it('lists one tool per control operation and paymentsApiRequest, and serves an agent through tools alone', async () => {
    const client = await connected({ authorization: `Bearer ${TOKEN}` });
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(await expectedToolNames());
    await agentFlow(client);
  });

  it('is refused without the control token, or with another, as the control API is', async () => {
    await expect(connected({})).rejects.toThrow(/401|control token|Unauthorized/i);
    const missing = await post({});
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(await missing.json()).toEqual({ message: 'The control API needs Authorization: Bearer <control token>', error: 'UNAUTHORIZED' });
    const wrong = await post({ authorization: 'Bearer not-the-token' });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: 'UNAUTHORIZED' });
    const right = await post({ authorization: `Bearer ${TOKEN}` });
    expect(right.status).toBe(200);
    expect(await right.json()).toMatchObject({ id: 1, result: { serverInfo: { name: 'payments-sandbox' } } });
  });

  it("refuses another site's page, a body that is not JSON, and a GET, which a stateless endpoint has no stream for", async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const crossSite = await post({ ...auth, origin: 'https://evil.example' });
    expect(crossSite.status).toBe(403);
    expect(await crossSite.json()).toMatchObject({ error: 'FORBIDDEN' });
    const form = await fetch(endpoint(), { method: 'POST', headers: { ...auth, 'content-type': 'text/plain' }, body: JSON.stringify(initialize) });
    expect(form.status).toBe(415);
    const stream = await fetch(endpoint(), { headers: { ...auth, accept: 'text/event-stream' } });
    expect(stream.status).toBe(405);
    expect(stream.headers.get('allow')).toBe('POST');
  });
});
