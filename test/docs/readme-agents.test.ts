import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { controlOperations } from '../../src/index.js';
import { LEFT_OUT_OPERATIONS } from '../../src/mcp/control-tools.js';
import { operationId } from '../../src/validation/operations.js';
import { ROOT } from '../support/process.js';

/** The README's "Agents" section names the control operations that are no MCP tools: those of LEFT_OUT_OPERATIONS, and no other. */

describe("the README's Agents section", () => {
  it('names every left-out operation, and no other control operation', async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const start = readme.indexOf('\n## Agents\n');
    expect(start).toBeGreaterThan(0);
    const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
    const operations = new Set((await controlOperations()).map(operationId));
    const named = [...section.matchAll(/`([a-z][A-Za-z]+)`/g)].map((match) => match[1]!).filter((name) => operations.has(name));
    expect(named.sort()).toEqual(Object.keys(LEFT_OUT_OPERATIONS).sort());
  });
});
