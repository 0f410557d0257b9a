import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PAYMENTS_API_DOCUMENT } from '../../src/index.js';

/** The README's endpoint table lists every operation of openapi/payments-api.yaml, and nothing the document does not serve. Files only. */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe("the README's endpoint table", () => {
  it('has one row for each method and path of the document, and no other', async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const start = readme.indexOf('\n## Endpoints\n');
    expect(start).toBeGreaterThan(0);
    const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
    const rows = [...section.matchAll(/^\| `([A-Z]+) ([^`]+)` \|/gm)].map((match) => `${match[1]} ${match[2]}`);
    const document = parse(await readFile(PAYMENTS_API_DOCUMENT, 'utf8'));
    const served = Object.entries<Record<string, unknown>>(document.paths).flatMap(([path, item]) =>
      ['get', 'post', 'put', 'patch', 'delete'].filter((method) => method in item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect([...rows].sort()).toEqual([...served].sort());
  });
});
