import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { SandboxAnswer, SandboxRequest } from '../api/handle.js';
import type { ControlTool } from './control-tools.js';
import { answerResult, bodyOf, errorResult } from './tool-results.js';

/** The control API's base path, which every control tool's request is below. */
const CONTROL_BASE = '/__sandbox';

/**
 * A control tool's call as the one control API request it stands for:
 * `/__sandbox` + the path with its parameters encoded + the query, and the
 * `body` argument as JSON. What the tool's arguments cannot make a request of
 * (a missing path parameter, an argument the tool does not take) is answered
 * here, naming the argument; everything else is the control API's to judge.
 * @param controlToken the sandbox's control token, sent as a bearer token; absent: none
 * @returns the request, or a message naming the argument at fault
 */
export function controlRequestOf(tool: ControlTool, args: Record<string, unknown>, controlToken?: string): SandboxRequest | { refused: string } {
  const taken = new Set([...tool.pathParameters, ...tool.queryParameters, ...(tool.body === 'none' ? [] : ['body'])]);
  const unknown = Object.keys(args).filter((name) => !taken.has(name));
  if (unknown.length > 0) {
    const takes = taken.size === 0 ? 'it takes no arguments' : `it takes ${[...taken].join(', ')}`;
    return { refused: `${unknown.join(', ')}: ${tool.name} has no such argument (${takes})` };
  }
  let path = tool.path;
  for (const name of tool.pathParameters) {
    if (args[name] === undefined || args[name] === null || args[name] === '') return { refused: `${name} is required` };
    const value = scalar(args[name]);
    if (value === undefined) return { refused: `${name} must be a string, not ${JSON.stringify(args[name])}` };
    path = path.replace(`{${name}}`, encodeURIComponent(value));
  }
  const query = new URLSearchParams();
  for (const name of tool.queryParameters) {
    if (args[name] === undefined || args[name] === null) continue;
    const value = scalar(args[name]);
    if (value === undefined) return { refused: `${name} must be a string, a number or a boolean, not ${JSON.stringify(args[name])}` };
    query.set(name, value);
  }
  const headers: Record<string, string> = { accept: 'application/json', ...(controlToken ? { authorization: `Bearer ${controlToken}` } : {}) };
  const search = query.size > 0 ? `?${query.toString()}` : '';
  const request: SandboxRequest = { method: tool.method, url: `${CONTROL_BASE}${path}${search}`, headers };
  if (args.body !== undefined) {
    headers['content-type'] = 'application/json';
    request.body = JSON.stringify(args.body);
  }
  return request;
}

/**
 * The control API's answer as the tool's result: a 2xx answer's JSON (or, with
 * none, its status), anything else a tool error carrying the control API's
 * own `message` (which names the field of a validation failure) and `error`.
 */
export function controlResult(tool: ControlTool, answer: SandboxAnswer): CallToolResult {
  const body = bodyOf(answer.body);
  if (answer.status >= 200 && answer.status < 300) return body === undefined ? answerResult({ status: answer.status }) : answerResult(body);
  const { message, error } = (typeof body === 'object' && body !== null ? body : { message: body }) as { message?: unknown; error?: unknown };
  const reason = typeof message === 'string' ? message : JSON.stringify(body ?? null);
  return errorResult(`${tool.name}: the control API answered ${answer.status}${typeof error === 'string' ? ` ${error}` : ''}: ${reason}`, { status: answer.status, ...(typeof body === 'object' && body !== null ? body : {}) });
}

// A path or query value as text; undefined for what has no one text (an object, a list, nothing).
function scalar(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}
