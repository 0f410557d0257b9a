import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/index.js';
import { ROOT } from '../support/process.js';

/**
 * The README's "Every flow with curl", taken from the README itself and run
 * with bash and curl against a running sandbox on its default store, twice:
 * the second walk must answer exactly as the first.
 */

const run = promisify(execFile);
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, dataFile: join(await (await import('node:fs/promises')).mkdtemp(join((await import('node:os')).tmpdir(), 'readme-walk-')), 'payments-sandbox.json') });
});
afterAll(() => sandbox.close());

async function walkScript(): Promise<string> {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('## Every flow with curl');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
  expect(blocks.length).toBeGreaterThanOrEqual(10);
  // The README's address, made this sandbox's.
  return blocks.join('\n').replaceAll('http://127.0.0.1:4010', sandbox.url);
}

// What may differ between two walks: the times records were made.
const steady = (text: string) => text.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>');

describe("the README's curl walk", () => {
  it('runs twice with the same answers, the documented codes among them', { timeout: 120_000 }, async () => {
    const script = await walkScript();
    const walk = () => run('bash', ['-c', script], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
    const first = await walk();
    const second = await walk();
    expect(steady(second.stdout)).toBe(steady(first.stdout));
    expect(steady(second.stderr)).toBe(steady(first.stderr));
    const codes = [...`${first.stderr}\n${first.stdout}`.matchAll(/"code":"([^"]+)"/g)].map((match) => match[1]);
    for (const code of ["S20", "00", "20", "NIP", "S7", "S18"]) expect(codes, `${code} in ${codes.join(" ")}`).toContain(code);
    expect(first.stdout).toContain('ACCOUNT OPENED SUCCESSFULLY');
    expect(first.stdout).toContain('APPROVED');
    expect(first.stdout).toContain('INVALID HASH');
    expect(first.stdout).not.toContain('linkingReference undefined');
    // Each answer on a line of its own: no answer runs into the next.
    expect(first.stdout).not.toMatch(/\}\{/);
  });
});
