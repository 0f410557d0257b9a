import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MOCKS_MODULES } from '../../vitest.config.js';

/**
 * The end-to-end files share their worker's modules (vitest.config.ts): a file
 * that replaced a module there would lend its copy to the files after it. So
 * each one that calls vi.mock is listed to run with modules of its own.
 */

const ROOT = join(import.meta.dirname, '..', '..');

async function testFiles(folder: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory() && entry.name !== 'node_modules') found.push(...(await testFiles(path)));
    else if (entry.name.endsWith('.test.ts')) found.push(relative(ROOT, path));
  }
  return found;
}

describe('the test projects', () => {
  it('run every end-to-end file that replaces a module (vi.mock) with its own modules', async () => {
    const files = (await testFiles(join(ROOT, 'test'))).filter((file) => !file.startsWith('test/unit/') && !file.startsWith('test/docs/'));
    const mocking: string[] = [];
    for (const file of files) if (/\bvi\.(?:do)?mock\(/.test(await readFile(join(ROOT, file), 'utf8'))) mocking.push(file);
    expect(mocking.length).toBeGreaterThan(0);
    expect(mocking.sort()).toEqual([...MOCKS_MODULES].sort());
  });
});
