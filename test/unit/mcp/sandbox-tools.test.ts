import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, describe, expect, it } from 'vitest';
import { controlOperations, type Sandbox } from '../../../src/index.js';
import { toolsOf } from '../../../src/cli/mcp.js';
import { mcpServer } from '../../../src/mcp/server.js';
import { operationId } from '../../../src/validation/operations.js';
import { answer, call, expectedToolNames, freshMerchant, toolError } from '../../support/mcp.js';
import { cardPayment, freshReference, sandboxForTest } from '../../support/sandbox.js';

/**
 * The sandbox's MCP tools (README, "Agents") on a sandbox that opens no
 * socket, reached by the SDK's client over its in-memory transport: the list
 * derived from openapi/control-api.yaml, control calls carrying the control
 * token, paymentsApiRequest and its tokens, and bad arguments answered as
 * tool errors. No notification URL is set: a delivery would open a socket.
 */

const TOKEN = 'mcp-unit-token';
const open: Array<{ sandbox: Sandbox; client: Client }> = [];
afterEach(async () => {
  for (const { sandbox, client } of open.splice(0)) {
    await client.close();
    await sandbox.close();
  }
});

// A sandbox with a control token, so that every control tool's success also says the token went with it.
async function connected(): Promise<{ sandbox: Sandbox; client: Client }> {
  const sandbox = await sandboxForTest({ controlToken: TOKEN });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mcpServer(toolsOf(sandbox, TOKEN)).connect(serverSide);
  const client = new Client({ name: 'agent-under-test', version: '1.0.0' });
  await client.connect(clientSide);
  open.push({ sandbox, client });
  return { sandbox, client };
}

describe('the MCP tools of a sandbox in process', { timeout: 20_000 }, () => {
  it('are one per control operation and paymentsApiRequest, each with the parameters and body its operation documents', async () => {
    const { client } = await connected();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(await expectedToolNames());
    // Each schema stands alone: a client has no document to resolve a reference in.
    expect(JSON.stringify(tools)).not.toContain('$ref');
    for (const operation of await controlOperations()) {
      const tool = tools.find((each) => each.name === operationId(operation));
      if (!tool) continue;
      const schema = tool.inputSchema as { properties: Record<string, unknown>; required?: string[] };
      const pathNames = operation.request?.path?.map((parameter) => parameter.name) ?? [];
      const queryNames = operation.request?.query?.map((parameter) => parameter.name) ?? [];
      const hasBody = (operation.request?.body?.contents?.length ?? 0) > 0;
      expect(Object.keys(schema.properties).sort(), tool.name).toEqual([...pathNames, ...queryNames, ...(hasBody ? ['body'] : [])].sort());
      expect(schema.required ?? [], tool.name).toEqual(expect.arrayContaining([...pathNames, ...(operation.request?.body?.required ? ['body'] : [])]));
      expect(tool.description, tool.name).toContain(`/__sandbox${operation.path}`);
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(operation.method === 'get');
    }
    const advance = tools.find((tool) => tool.name === 'advanceClock')!;
    expect(advance.description).toMatch(/^Move a merchant's clock forward\. /);
    expect((advance.inputSchema.properties as any).body).toMatchObject({ type: 'object', properties: { by: { type: 'string' }, to: { type: 'string' } } });
  });

  it('send one control request per call, with the control token, and answer its JSON, or the status of an empty answer', async () => {
    const { client } = await connected();
    const merchant = freshMerchant();
    const { publicKey } = merchant;
    // A notification URL is set for a merchant the sandbox knows: its keys exchanged first.
    expect(await answer(client, 'paymentsApiRequest', { ...merchant, method: 'GET', path: '/networks' })).toMatchObject({ status: 200 });
    expect(await answer(client, 'setWebhook', { publicKey, body: { url: 'http://127.0.0.1:3000/webhook', events: ['refund'] } })).toMatchObject({ publicKey, url: 'http://127.0.0.1:3000/webhook', events: ['refund'], source: 'merchant' });
    expect(await answer(client, 'getWebhook', { publicKey })).toMatchObject({ url: 'http://127.0.0.1:3000/webhook' });
    expect(await answer(client, 'deleteWebhook', { publicKey })).toEqual({ status: 204 });
    expect(await answer(client, 'getWebhook', { publicKey })).toMatchObject({ url: null });
    // A path parameter is sent encoded: a slash in it stays in the one segment.
    expect(await toolError(client, 'getPayment', { paymentReference: 'A/B' })).toMatch(/404 NOT_FOUND: No payment with paymentReference A\/B/);
    const scenarios = await answer(client, 'listScenarios', {});
    expect(scenarios.scenarios.map((scenario: { name: string }) => scenario.name)).toContain('card-declined');
  });

  it('paymentsApiRequest sends a request as the merchant, exchanging its keys once, and answers status, scenario and body whatever the status', async () => {
    const { client, sandbox } = await connected();
    const merchant = freshMerchant();
    const { publicKey } = merchant;
    const declined = await answer(client, 'paymentsApiRequest', { ...merchant, method: 'POST', path: '/payments/initiates', body: cardPayment({ publicKey, cardNumber: '4000000000000002' }) });
    expect(declined).toMatchObject({ status: 200, scenario: 'card-declined', body: { data: { code: 'S12', message: 'Transaction Failed' } } });
    // The sandbox knows the merchant now: its store's secret key serves.
    expect(sandbox.store.merchant(publicKey)?.secretKey).toBe(merchant.secretKey);
    const reference = freshReference();
    expect(await answer(client, 'paymentsApiRequest', { publicKey, method: 'post', path: '/payments/initiates', body: cardPayment({ publicKey, paymentReference: reference }) })).toMatchObject({ status: 200, body: { data: { code: 'S20' } } });
    const v3 = await answer(client, 'paymentsApiRequest', { publicKey, method: 'GET', path: `/v3/payments/query/${reference}` });
    expect(v3).toMatchObject({ status: 200, body: { data: { payments: { paymentReference: reference } } } });
    // A refusal of the Payments API is an answer the integration must handle, not a tool error.
    const refused = await answer(client, 'paymentsApiRequest', { publicKey, method: 'POST', path: '/payments/initiates', body: cardPayment({ publicKey, amount: '0' }) });
    expect(refused).toMatchObject({ status: 400, scenario: expect.any(String), body: { error: 'INPUT' } });
    expect(JSON.stringify(refused.body)).toContain('amount');
    expect(await answer(client, 'countRequests', { publicKey, path: '/encrypt/keys' })).toMatchObject({ count: 1 });
  });

  it('paymentsApiRequest exchanges the keys again for a merchant the sandbox forgot, and asks for the secret key of one it does not know', async () => {
    const { client } = await connected();
    const empty = await answer(client, 'getSnapshot', {});
    const merchant = freshMerchant();
    const networks = { ...merchant, method: 'GET', path: '/networks' };
    expect(await answer(client, 'paymentsApiRequest', networks)).toMatchObject({ status: 200 });
    expect(await answer(client, 'putSnapshot', { body: empty })).toMatchObject({ loaded: 'all' });
    // The kept token is refused now (401): the keys are exchanged once more, and the request sent again.
    expect(await answer(client, 'paymentsApiRequest', networks)).toMatchObject({ status: 200 });
    expect(await answer(client, 'countRequests', { path: '/networks', status: 401 })).toMatchObject({ count: 1 });
    expect(await answer(client, 'countRequests', { publicKey: merchant.publicKey, path: '/encrypt/keys' })).toMatchObject({ count: 2 });
    expect(await answer(client, 'putSnapshot', { body: empty })).toMatchObject({ loaded: 'all' });
    expect(await toolError(client, 'paymentsApiRequest', { publicKey: merchant.publicKey, method: 'GET', path: '/networks' })).toBe(
      `secretKey is required: the sandbox does not know the merchant ${merchant.publicKey} yet`,
    );
  });

  it('answer a bad argument with a tool error naming it, and serve on', async () => {
    const { client } = await connected();
    const merchant = freshMerchant();
    const { publicKey } = merchant;
    expect(await toolError(client, 'setWebhook', { publicKey, body: { url: 'http://127.0.0.1:3000/webhook' } })).toBe(
      `setWebhook: the control API answered 404 NOT_FOUND: ${publicKey} is no merchant of this sandbox: exchange its keys first (POST /api/v2/encrypt/keys), or load it with a snapshot or fixtures`,
    );
    expect(await answer(client, 'paymentsApiRequest', { ...merchant, method: 'GET', path: '/networks' })).toMatchObject({ status: 200 });
    expect(await toolError(client, 'setWebhook', { publicKey, body: { url: 'localhost:3000' } })).toBe('setWebhook: the control API answered 400 INPUT: url must be an absolute http or https URL, not "localhost:3000"');
    expect(await toolError(client, 'createOverride', { body: { scenario: 'card-declined', times: 'twice' } })).toMatch(/\btimes\b/);
    expect(await toolError(client, 'listPayments', { limit: 5000 })).toMatch(/\blimit\b/);
    expect(await toolError(client, 'getClock', {})).toBe('getClock: publicKey is required');
    expect(await toolError(client, 'getClock', { publicKey: { key: publicKey } })).toMatch(/^getClock: publicKey must be a string/);
    expect(await toolError(client, 'listPayments', { publicKey: [publicKey] })).toMatch(/^listPayments: publicKey must be a string, a number or a boolean/);
    expect(await toolError(client, 'getClock', { publicKey, by: 'PT1H' })).toBe('getClock: by: getClock has no such argument (it takes publicKey)');
    expect(await toolError(client, 'getHealth', { body: {} })).toBe('getHealth: body: getHealth has no such argument (it takes no arguments)');
    expect(await toolError(client, 'streamEvents', {})).toMatch(/^No tool named streamEvents/);
    const result = await call(client, 'paymentsApiRequest', { publicKey, method: 'TRACE', path: '/networks' });
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'method must be one of GET, POST, PUT, PATCH, DELETE' }] });
    expect(await toolError(client, 'paymentsApiRequest', { publicKey, method: 'GET', path: 'networks' })).toMatch(/^path must start with \//);
    expect(await toolError(client, 'paymentsApiRequest', { publicKey, method: 'POST', path: '/../../__sandbox/reset' })).toBe('path must have no . or .. segments');
    expect(await toolError(client, 'paymentsApiRequest', { publicKey, method: 'GET', path: '/networks', headers: {} })).toMatch(/^headers: paymentsApiRequest has no such argument/);
    expect(await answer(client, 'getHealth', {})).toEqual({ status: 'ok' });
  });
});

describe('/__sandbox/mcp served in process', () => {
  const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  const post = (sandbox: Sandbox, headers: Record<string, string>) =>
    sandbox.handle({ method: 'POST', url: '/__sandbox/mcp', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: initialize });

  it('needs the control token as the control API does, and then initializes', async () => {
    const sandbox = await sandboxForTest({ controlToken: TOKEN });
    try {
      const refused = await post(sandbox, {});
      expect(refused.status).toBe(401);
      expect(JSON.parse(refused.body.toString())).toMatchObject({ error: 'UNAUTHORIZED' });
      const answered = await post(sandbox, { authorization: `Bearer ${TOKEN}` });
      expect(answered.status).toBe(200);
      expect(JSON.parse(answered.body.toString())).toMatchObject({ jsonrpc: '2.0', id: 1, result: { capabilities: { tools: {} }, serverInfo: { name: 'payments-sandbox' } } });
    } finally {
      await sandbox.close();
    }
  });
});
