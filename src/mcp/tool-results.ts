import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * The two shapes of a tool's result: an answer, as JSON text and, when it is
 * an object, as structuredContent; and a refusal, which is a tool error
 * (`isError: true`) an agent reads and corrects, never a protocol error.
 */

/** A result carrying `value` as JSON text, and as structuredContent when it is a JSON object. */
export function answerResult(value: unknown): CallToolResult {
  const structured = typeof value === 'object' && value !== null && !Array.isArray(value);
  return {
    content: [{ type: 'text', text: JSON.stringify(value) }],
    ...(structured ? { structuredContent: value as Record<string, unknown> } : {}),
  };
}

/** A tool error saying `message`; `details`, an object, goes with it as structuredContent. */
export function errorResult(message: string, details?: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: message }], ...(details ? { structuredContent: details } : {}), isError: true };
}

/** The body of an answer read as JSON; its text when it is not JSON; undefined when it is empty. */
export function bodyOf(bytes: Buffer): unknown {
  if (bytes.length === 0) return undefined;
  const text = bytes.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
