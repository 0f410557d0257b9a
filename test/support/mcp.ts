import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { controlOperations } from '../../src/index.js';
import { LEFT_OUT_OPERATIONS } from '../../src/mcp/control-tools.js';
import { operationId } from '../../src/validation/operations.js';

/** Calling the sandbox's MCP tools from a test, over any transport the client was connected with (README, "Agents"). */

/** The tools tools/list must give: one per operation of openapi/control-api.yaml but the left-out ones, and paymentsApiRequest; sorted. */
export async function expectedToolNames(): Promise<string[]> {
  const ids = (await controlOperations()).map(operationId).filter((id) => !(id in LEFT_OUT_OPERATIONS));
  return [...ids, 'paymentsApiRequest'].sort();
}

/** Calls a tool and returns its result as the client read it. */
export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** Calls a tool that must succeed, and returns its structured answer. */
export async function answer(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const result = await call(client, name, args);
  expect(result.isError, `${name} answered ${JSON.stringify(result.content)}`).toBeFalsy();
  const text = (result.content[0] as { text: string }).text;
  // The same answer twice: as text for any client, as structuredContent for one that reads it.
  expect(result.structuredContent).toEqual(JSON.parse(text));
  return result.structuredContent;
}

/** The text of a tool error, after checking it is one. */
export async function toolError(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = await call(client, name, args);
  expect(result.isError, `${name} should have refused ${JSON.stringify(args)}`).toBe(true);
  return (result.content[0] as { text: string }).text;
}

/** A fresh test key pair, unknown to any sandbox. */
export const freshMerchant = () => ({ publicKey: `SBTESTPUBK_${randomBytes(8).toString('hex')}`, secretKey: `SBTESTSECK_${randomBytes(8).toString('hex')}` });
