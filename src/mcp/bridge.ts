import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { SandboxTools } from './sandbox-tools.js';
import { VERSION } from './server.js';
import { redactUrlCredentials } from '../redaction/url-credentials.js';
import { errorResult } from './tool-results.js';

/** The path of a running sandbox's MCP endpoint, below its origin. */
export const MCP_PATH = '/__sandbox/mcp';

/** The tools of a running sandbox, reached over its MCP endpoint, and the way to let go of it. */
export interface BridgedTools extends Pick<SandboxTools, 'list' | 'call'> {
  close(): Promise<void>;
}

/**
 * Connects an MCP client to a running sandbox's `/__sandbox/mcp` (Streamable
 * HTTP), with its control token, so that its tools can be served again on
 * another transport (stdio: `payments-sandbox mcp --url`). The tools run
 * where the sandbox's store is; the bridge only carries their calls. A call
 * the sandbox cannot be reached for is a tool error saying so.
 * @param origin the sandbox's origin, e.g. http://127.0.0.1:4010
 * @throws Error `cannot reach the sandbox's MCP endpoint at <url>: ...` (the URL without its user and password) when it cannot connect (not listening, or the token refused)
 */
export async function bridgeTools(origin: string, controlToken?: string): Promise<BridgedTools> {
  const url = `${origin.replace(/\/+$/, '')}${MCP_PATH}`;
  const client = new Client({ name: 'payments-sandbox-bridge', version: VERSION });
  const headers: Record<string, string> = controlToken ? { authorization: `Bearer ${controlToken}` } : {};
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  } catch (error) {
    // A --url may carry a user and password: neither is printed.
    throw new Error(redactUrlCredentials(`cannot reach the sandbox's MCP endpoint at ${url}: ${(error as Error).message}`));
  }
  return {
    list: async () => {
      const tools: Tool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return tools;
    },
    call: async (name, args) => {
      try {
        return (await client.callTool({ name, arguments: args })) as CallToolResult;
      } catch (error) {
        return errorResult(redactUrlCredentials(`${name}: the sandbox at ${origin} did not answer: ${(error as Error).message}`));
      }
    },
    close: () => client.close(),
  };
}
