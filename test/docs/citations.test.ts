import { readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Citations in code and documents point somewhere. Comments, tests, the
 * OpenAPI documents, the catalogue and the benchmarks cite the register of
 * decisions (`docs/decisions.md#<anchor>`), a heading of the README
 * (`README, "<Heading>"`) or of the design notes (`docs/design.md,
 * "<Heading>"`). This reads every such citation in src/, test/, bench/,
 * openapi/ and scenarios/ and fails on one that names nothing: an anchor the
 * register does not have, a heading the file does not have, or a decision
 * cited the old way, by its number in the README. It also fails when any
 * file of the repository names the folder beside it: the repository stands
 * alone. Files only, no process and no socket.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const SCANNED = ['src', 'test', 'bench', 'openapi', 'scenarios'];
const SKIPPED = new Set(['node_modules', 'dist', '.git', 'test-results', 'coverage']);
const TEXT = new Set(['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs', '.json', '.yaml', '.yml', '.md', '.html', '.css', '.sh', '.py', '.go', '.txt', '']);
/** The folder beside the repository that it must not depend on, spelt so that this file does not name it. */
const OUTSIDE = ['..', 'shared'].join('/');

function* filesUnder(folder: string): Generator<string> {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (SKIPPED.has(entry.name)) continue;
    const path = join(folder, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path);
    else if (entry.isFile() && TEXT.has(extname(entry.name))) yield path;
  }
}

/**
 * A file's text with every line's comment marker (` * `, `//`, `#`) taken off
 * and the lines joined by spaces, so that a citation broken across comment
 * lines reads as one; `\"` (a quote inside a JSON string) reads as `"`.
 */
function flattened(text: string): { flat: string; lineOf: (index: number) => number } {
  const starts: number[] = [];
  let flat = '';
  for (const line of text.split('\n')) {
    starts.push(flat.length);
    flat += `${line.replace(/^[ \t]*(?:\*(?!\/)|\/\/|#)?[ \t]*/, '').replaceAll('\\"', '"')} `;
  }
  const lineOf = (index: number) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle]! <= index) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  };
  return { flat, lineOf };
}

/** The headings of a Markdown file (outside code blocks), as written, without backticks. */
function headingsOf(markdown: string): string[] {
  return markdown
    .replace(/^```[\s\S]*?^```/gm, '')
    .split('\n')
    .flatMap((line) => /^#{1,6} (.+)$/.exec(line)?.[1]?.replaceAll('`', '').trim() ?? []);
}

/** The anchors a link into a Markdown file may name: explicit `<a id>`s and GitHub's slugs of its headings. */
function anchorsOf(markdown: string): Set<string> {
  const slug = (heading: string) => heading.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
  return new Set([...explicitAnchorsOf(markdown), ...headingsOf(markdown).map(slug)]);
}

/** The `<a id="…"></a>` anchors that start a line. */
function explicitAnchorsOf(markdown: string): string[] {
  return [...markdown.matchAll(/^<a id="([^"]+)"><\/a>/gm)].map((match) => match[1]!);
}

/**
 * True when `cited` names `heading`: the whole heading, or its leading part up
 * to a colon, a comma or a parenthesis (`"Time"` names "Time: merchants'
 * clocks, what settles and expires when").
 */
function names(cited: string, heading: string): boolean {
  return heading === cited || (heading.startsWith(cited) && /^(?::|,| \()/.test(heading.slice(cited.length)));
}

/** The quoted headings of a citation: `"A"`, `"A" and "B"`, `"A", "B"`. */
const quotedChain = String.raw`"[^"\n]{1,120}"(?:(?:,\s*|\s+and\s+)"[^"\n]{1,120}")*`;
const quotedIn = (chain: string) => [...chain.matchAll(/"([^"]+)"/g)].map((match) => match[1]!);

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const README = read('README.md');
const DESIGN = read('docs/design.md');
const DECISIONS = read('docs/decisions.md');
const README_HEADINGS = headingsOf(README);
const DESIGN_HEADINGS = headingsOf(DESIGN);
const DECISION_ANCHORS = new Set(explicitAnchorsOf(DECISIONS));
const LINKABLE: Record<string, Set<string>> = {
  'README.md': anchorsOf(README),
  'docs/design.md': anchorsOf(DESIGN),
  'docs/performance.md': anchorsOf(read('docs/performance.md')),
};

interface Found {
  where: string;
  text: string;
  cited: string[];
}

/** Every match of `pattern` in the scanned files (this file excepted: it describes the forms it looks for), with file and line. */
function findAll(pattern: RegExp, cited: (match: RegExpMatchArray) => string[] = (match) => [match[0]]): Found[] {
  const found: Found[] = [];
  for (const folder of SCANNED) {
    for (const file of filesUnder(join(ROOT, folder))) {
      if (file === SELF) continue;
      const { flat, lineOf } = flattened(readFileSync(file, 'utf8'));
      for (const match of flat.matchAll(pattern)) {
        found.push({ where: `${relative(ROOT, file)}:${lineOf(match.index!)}`, text: match[0], cited: cited(match) });
      }
    }
  }
  return found;
}

describe('citations in src/, test/, bench/, openapi/ and scenarios/', () => {
  it('name anchors of docs/decisions.md that exist', () => {
    const found = findAll(/docs\/decisions\.md#([A-Za-z0-9_-]*)/g, (match) => [match[1]!]);
    const dangling = found.filter(({ cited }) => !DECISION_ANCHORS.has(cited[0]!)).map(({ where, text }) => `${where}: ${text}`);
    expect(dangling, 'anchors docs/decisions.md does not have').toEqual([]);
  });

  it('name headings of the README that exist', () => {
    const found = findAll(new RegExp(String.raw`\bREADME(?:\.md)?,?\s+(${quotedChain})`, 'g'), (match) => quotedIn(match[1]!));
    expect(found.length, 'README citations found').toBeGreaterThan(50);
    const dangling = found
      .flatMap(({ where, cited }) => cited.filter((heading) => !README_HEADINGS.some((known) => names(heading, known))).map((heading) => `${where}: README, "${heading}"`));
    expect(dangling, 'headings the README does not have').toEqual([]);
  });

  it('name headings of docs/design.md that exist', () => {
    const found = findAll(new RegExp(String.raw`docs\/design\.md,?\s+(${quotedChain})`, 'g'), (match) => quotedIn(match[1]!));
    const dangling = found
      .flatMap(({ where, cited }) => cited.filter((heading) => !DESIGN_HEADINGS.some((known) => names(heading, known))).map((heading) => `${where}: docs/design.md, "${heading}"`));
    expect(dangling, 'headings docs/design.md does not have').toEqual([]);
  });

  it('link to anchors of the README and the docs that exist', () => {
    const found = findAll(/(README\.md|docs\/design\.md|docs\/performance\.md)#([A-Za-z0-9_-]*)/g, (match) => [match[1]!, match[2]!]);
    const dangling = found.filter(({ cited: [file, anchor] }) => !LINKABLE[file!]!.has(anchor!)).map(({ where, text }) => `${where}: ${text}`);
    expect(dangling, 'anchors those files do not have').toEqual([]);
  });

  it('cite no decision by its old number in the README: the register names each by its anchor', () => {
    const old = findAll(/\bREADME(?:'s)?,?\s+decisions?\b[^.;)\n]{0,40}|\bdecisions?\s+\d+(?:(?:,\s*|\s+and\s+)\d+)*/g);
    expect(old.map(({ where, text }) => `${where}: ${text.trim()}`), 'cite docs/decisions.md#<anchor> instead').toEqual([]);
  });
});

describe('the repository', () => {
  it('names no folder outside itself: it stands alone', () => {
    const naming = [...filesUnder(ROOT)]
      .filter((file) => file !== SELF)
      .flatMap((file) => {
        const lines = readFileSync(file, 'utf8').split('\n');
        return lines.flatMap((line, index) => (line.includes(OUTSIDE) ? [`${relative(ROOT, file)}:${index + 1}: ${line.trim().slice(0, 120)}`] : []));
      });
    expect(naming).toEqual([]);
  });
});

describe('docs/decisions.md', () => {
  const lines = DECISIONS.split('\n');
  const anchors = explicitAnchorsOf(DECISIONS);

  it('gives every entry one anchor, just before its heading', () => {
    expect(new Set(anchors).size, 'each anchor once').toBe(anchors.length);
    const misplaced = lines.flatMap((line, index) => (/^<a id="/.test(line) && !/^#{2,4} /.test(lines[index + 1] ?? '') ? [`line ${index + 1}: ${line}`] : []));
    expect(misplaced, 'an anchor not followed by its heading').toEqual([]);
    const unanchored = lines.flatMap((line, index) => (/^### /.test(line) && !/^<a id="/.test(lines[index - 1] ?? '') ? [`line ${index + 1}: ${line}`] : []));
    expect(unanchored, 'an entry without an anchor').toEqual([]);
  });

  it('keeps each numbered decision under `d` and its number, its heading starting with that number', () => {
    const numbered = anchors.filter((anchor) => /^d\d{2}-/.test(anchor));
    expect(numbered.length).toBeGreaterThanOrEqual(61);
    for (const anchor of numbered) {
      const at = lines.indexOf(`<a id="${anchor}"></a>`);
      expect(lines[at + 1], anchor).toMatch(new RegExp(`^### ${Number(anchor.slice(1, 3))}\\. `));
    }
    expect(new Set(numbered.map((anchor) => anchor.slice(0, 3))).size, 'one anchor per number').toBe(numbered.length);
  });

  it('has no line longer than 400 characters', () => {
    expect(lines.flatMap((line, index) => (line.length > 400 ? [`line ${index + 1}: ${line.length}`] : []))).toEqual([]);
  });
});

describe('README.md', () => {
  // 800 until the guide gained what a newcomer asked for first (its SDK's base URL, a troubleshooting table) and an agent's configuration.
  it('stays a user\'s guide of at most 830 lines', () => {
    expect(README.trimEnd().split('\n').length).toBeLessThanOrEqual(830);
  });
});
