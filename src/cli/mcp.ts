import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CONTROL_API_DOCUMENT, startSandbox, type Sandbox } from '../index.js';
import { bridgeTools } from '../mcp/bridge.js';
import { sandboxTools, type SandboxTools } from '../mcp/sandbox-tools.js';
import { mcpServer } from '../mcp/server.js';
import { closesWithParent, watchParent } from './parent-watch.js';

/** What `payments-sandbox mcp` is given. */
export interface McpCommandOptions {
  /** a running sandbox's origin: its tools are bridged; absent: a sandbox in memory in this process */
  url?: string;
  /** the sandbox's control token: sent to the running one, or required by the one in memory */
  controlToken?: string;
  /** the seed of the sandbox in memory */
  seed?: string;
  /** fixtures documents the sandbox in memory loads at start */
  fixtures?: string[];
}

/**
 * `payments-sandbox mcp` (README, "Agents"): MCP on stdin and stdout, for a
 * coding agent that starts it. Without `url`, a sandbox in memory in this
 * process (`listen: false`: no port), whose tools run beside its store; with
 * `url`, a bridge to that sandbox's `/__sandbox/mcp`. Nothing but MCP is
 * written on stdout: the sandbox logs nothing. It ends when stdin ends (the
 * client's way to stop a stdio server), on SIGINT or SIGTERM, or under npx
 * when its launcher exits, closing the sandbox first.
 * @throws Error naming the problem when the sandbox cannot start or be reached
 */
export async function serveMcp(options: McpCommandOptions): Promise<void> {
  let tools: Pick<SandboxTools, 'list' | 'call'>;
  let close: () => Promise<void>;
  if (options.url !== undefined) {
    const bridged = await bridgeTools(options.url, options.controlToken);
    tools = bridged;
    close = () => bridged.close();
  } else {
    const started = await startSandbox({ listen: false, logLevel: 'silent', seed: options.seed, fixtures: options.fixtures, controlToken: options.controlToken });
    tools = toolsOf(started, options.controlToken);
    close = () => started.close();
  }
  const server = mcpServer(tools);
  let ending: Promise<void> | undefined;
  const end = () =>
    (ending ??= (async () => {
      await server.close().catch(() => undefined);
      await close();
      process.exit(0);
    })());
  process.stdin.once('end', end);
  process.once('SIGINT', end);
  process.once('SIGTERM', end);
  // Under npx, a stop the launcher does not pass on (docs/decisions.md#d69-close-with-npm-exec).
  if (closesWithParent(process.env, process.ppid)) watchParent(end);
  await server.connect(new StdioServerTransport());
}

/**
 * The MCP tools of a sandbox started in this process, run beside its store:
 * its `handle()`, and the secret keys its store holds.
 * @param controlToken the control token it was started with, if any
 */
export function toolsOf(sandbox: Sandbox, controlToken?: string): SandboxTools {
  return sandboxTools({
    controlDocument: CONTROL_API_DOCUMENT,
    handle: sandbox.handle,
    secretKeyOf: (publicKey) => sandbox.store.merchant(publicKey)?.secretKey,
    controlToken,
  });
}
