import { createRequire } from 'node:module';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { SandboxTools } from './sandbox-tools.js';

/** The package's version, which the server (and the bridge's client) reports in its `serverInfo`. */
export const VERSION = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

/** What the server tells an agent when it connects, before any tool's description. */
export const INSTRUCTIONS =
  'A local sandbox of the merchant Payments API v2. The control tools (one per operation of its control API, named by operationId) inspect ' +
  'and steer it: merchants, payments and their stories, scenarios and overrides, notification URLs and deliveries, merchants\' clocks, resets. ' +
  'paymentsApiRequest sends a Payments API request as a merchant, as the integration under test would. A tool error carries the sandbox\'s ' +
  'own message, which names the field at fault.';

/**
 * An MCP server answering `tools/list` and `tools/call` from `tools`: the
 * sandbox's own, or those a bridge reaches over HTTP. The low-level server of
 * the SDK, since the tools' input schemas are JSON Schema taken from the
 * control API's document rather than zod's. One server serves one transport:
 * make one per connection.
 */
export function mcpServer(tools: Pick<SandboxTools, 'list' | 'call'>): Server {
  const server = new Server({ name: 'payments-sandbox', title: 'Payments API v2 sandbox', version: VERSION }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await tools.list() }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => tools.call(request.params.name, request.params.arguments ?? {}));
  return server;
}
