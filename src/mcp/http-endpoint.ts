import type { RequestHandler } from 'express';
import { controlToken, sameOriginJson } from '../control/guards.js';
import type { SandboxAnswer, SandboxRequest } from '../api/handle.js';
import type { SandboxTools } from './sandbox-tools.js';

/** What the endpoint needs of the sandbox that serves it. */
export interface McpEndpointDependencies {
  /** the control token (`--control-token`): the endpoint asks for it as the control API does; absent: none */
  controlToken?: string;
  /** the OpenAPI documents; the control API's is the one the tools come from */
  documents: { 'control-api': string };
  /** the store, for the secret key of a merchant it knows */
  store: { merchant(publicKey: string): { secretKey: string } | undefined };
  /** `Sandbox.handle()`: each tool call is one request served by it */
  handle: (request: SandboxRequest) => Promise<SandboxAnswer>;
}

/**
 * `/__sandbox/mcp`: MCP over Streamable HTTP (README, "Agents"), stateless
 * (a server and a transport per request, answering JSON rather than a
 * stream), behind the control API's own guards: same-origin JSON, then the
 * control token. A GET (the stream a stateless server has no use for) or a
 * DELETE (no session to end) answers 405, as the transport's specification
 * allows. The SDK is loaded on the first request: a sandbox no agent drives
 * never loads it.
 */
export function mcpEndpoint(deps: McpEndpointDependencies): RequestHandler[] {
  let loaded: ReturnType<typeof load> | undefined;
  const load = async () => {
    const [{ StreamableHTTPServerTransport }, { mcpServer }, { sandboxTools }] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
      import('./server.js'),
      import('./sandbox-tools.js'),
    ]);
    const tools: SandboxTools = sandboxTools({
      controlDocument: deps.documents['control-api'],
      handle: deps.handle,
      secretKeyOf: (publicKey) => deps.store.merchant(publicKey)?.secretKey,
      controlToken: deps.controlToken,
    });
    return { StreamableHTTPServerTransport, mcpServer, tools };
  };
  const serve: RequestHandler = async (req, res) => {
    if (req.method !== 'POST') {
      res.status(405).set('Allow', 'POST').json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this endpoint is stateless, send every message as a POST' }, id: null });
      return;
    }
    const { StreamableHTTPServerTransport, mcpServer, tools } = await (loaded ??= load());
    const server = mcpServer(tools);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };
  return [sameOriginJson(), controlToken(deps.controlToken), serve];
}
