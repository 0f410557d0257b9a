import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { SandboxAnswer, SandboxRequest } from '../api/handle.js';
import { controlRequestOf, controlResult } from './control-call.js';
import { controlTools, readControlDocument, type ControlTool } from './control-tools.js';
import { PAYMENTS_API_REQUEST, paymentsApiRequester, paymentsApiRequestTool } from './payments-request.js';
import { errorResult } from './tool-results.js';

/** What the tools are made of: one sandbox, served in its own process. */
export interface SandboxToolsOptions {
  /** openapi/control-api.yaml: the file the control tools are derived from */
  controlDocument: string;
  /** serves one request in process: `Sandbox.handle()` */
  handle: (request: SandboxRequest) => Promise<SandboxAnswer>;
  /** the secret key the store holds for a merchant it knows */
  secretKeyOf: (publicKey: string) => string | undefined;
  /** the sandbox's control token, which the control tools' requests carry; absent: none */
  controlToken?: string;
}

/** The tools of one sandbox: the list `tools/list` answers, and `tools/call`. */
export interface SandboxTools {
  /** one tool per control operation (but LEFT_OUT_OPERATIONS), then paymentsApiRequest */
  list(): Promise<Tool[]>;
  /**
   * Calls a tool: one request served in process.
   * @returns its result; a tool error for an unknown tool, bad arguments or a refusing answer
   * @throws only when the sandbox itself fails
   */
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
}

/**
 * The sandbox's MCP tools (README, "Agents"). The control document is read on
 * the first use, once; the bearer tokens paymentsApiRequest obtains are kept
 * for as long as the tools are.
 */
export function sandboxTools(options: SandboxToolsOptions): SandboxTools {
  let loaded: Promise<{ byName: Map<string, ControlTool>; list: Tool[] }> | undefined;
  const load = () =>
    (loaded ??= readControlDocument(options.controlDocument).then((document) => {
      const tools = controlTools(document);
      const list: Tool[] = tools.map((tool) => ({
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        annotations: annotationsOf(tool),
      }));
      return { byName: new Map(tools.map((tool) => [tool.name, tool])), list: [...list, paymentsApiRequestTool] };
    }));
  const paymentsApiRequest = paymentsApiRequester(options);
  return {
    list: async () => (await load()).list,
    call: async (name, args) => {
      if (name === PAYMENTS_API_REQUEST) return paymentsApiRequest(args);
      const tool = (await load()).byName.get(name);
      if (!tool) return errorResult(`No tool named ${name}: tools/list names them`);
      const request = controlRequestOf(tool, args, options.controlToken);
      if ('refused' in request) return errorResult(`${tool.name}: ${request.refused}`);
      return controlResult(tool, await options.handle(request));
    },
  };
}

// What a client may tell a person before a call, from the HTTP method alone (RFC 9110, 9.2): a GET only reads, a PUT or a DELETE
// repeated changes nothing more; any other may change or forget state (MCP's default for destructiveHint).
function annotationsOf(tool: ControlTool): Tool['annotations'] {
  return { title: tool.title, readOnlyHint: tool.method === 'GET', idempotentHint: tool.method !== 'POST', openWorldHint: false };
}
