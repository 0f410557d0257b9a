import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { BROWSER_TAG } from './chromium.js';

/**
 * Every browser test file carries the browser module tag (BROWSER_TAG in
 * chromium.ts), which skips it on a machine without Chromium. CI always has
 * Chromium, so a file without the tag would pass there and fail on a
 * contributor's machine instead of being skipped. This file needs no browser
 * and runs everywhere: it must not carry the tag, nor spell it out whole,
 * since vitest reads the tag from anywhere in a file's text.
 */

const here = new URL('./', import.meta.url);
const TAGGED = new RegExp(`^//\\s*@module-tag\\s+${BROWSER_TAG}\\b`, 'm');

describe('the browser test files', () => {
  it('each carry the browser tag, which skips them without Chromium outside CI', async () => {
    const files = (await readdir(here)).filter((name) => name.endsWith('.test.ts') && name !== 'tagged.test.ts');
    expect(files.length).toBeGreaterThan(0);
    const untagged: string[] = [];
    for (const name of files) {
      if (!TAGGED.test(await readFile(new URL(name, here), 'utf8'))) untagged.push(name);
    }
    expect(untagged).toEqual([]);
  });
});
