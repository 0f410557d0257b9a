import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../src/index.js';
import { FixturesError, parseFixturesText, referencesIn } from '../../../src/known-states/fixtures.js';

/**
 * A fixtures document cannot freeze the sandbox or exhaust its memory:
 * `${…}` references are found in one pass over a string, however it is
 * written, and a YAML alias cannot expand a document past the fixtures bound
 * (docs/known-states.md, "Bounds").
 */

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ listen: false });
  // The first load of a worker compiles the fixtures reader and the operations it reaches: the timed cases measure the scan, not that.
  await post(unclosedReferences(1_000), 'application/json');
});
afterAll(() => sandbox.close());

const post = (body: string, type: string) => sandbox.handle({ method: 'POST', url: '/__sandbox/fixtures', headers: { 'content-type': type }, body });
const json = (answer: { body: Buffer }) => JSON.parse(answer.body.toString('utf8'));

// A step whose body holds `${a.x${a.x…`, never closed, about `bytes` long.
function unclosedReferences(bytes: number): string {
  const text = '${a.x'.repeat(Math.ceil(bytes / 5));
  return JSON.stringify({ version: 1, steps: [{ api: { method: 'POST', path: '/payments/initiates', body: { productDescription: text } } }] });
}

describe('references in a fixtures document', () => {
  it('finds the references the pattern of a reference finds, at the same places', () => {
    const pattern = /\$\{([A-Za-z_][A-Za-z0-9_-]{0,63})((?:\.[^.}\s]+)*)\}/g;
    const alphabet = ['$', '{', '}', '.', 'a', 'x', '_', '-', '0', ' ', '\u00a0', '${', '${a', '.b', '}}'];
    let seed = 7;
    const random = (below: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % below;
    const texts = ['${a}', '${a.b.0}', 'x${step_1.data.id}y${b}', '${a..b}', '${a.}', '${1a}', '${a b}', `\${'a'.repeat(64)}}`, `\${'a'.repeat(65)}}`, '${a.x${a.x}', '${a.x ${b}'];
    for (let i = 0; i < 3000; i++) texts.push(Array.from({ length: random(24) }, () => alphabet[random(alphabet.length)]).join(''));
    for (const text of texts) {
      const expected = [...text.matchAll(pattern)].map((match) => ({ start: match.index, end: match.index + match[0].length, name: match[1], path: match[2] }));
      expect(referencesIn(text), text).toEqual(expected);
    }
  });

  it('answers a 300 KB string of unclosed references within 1 s, and the health check within 100 ms meanwhile', async () => {
    const started = performance.now();
    let done = false;
    const fixtures = post(unclosedReferences(300_000), 'application/json').then((answer) => {
      done = true;
      return { answer, ms: performance.now() - started };
    });
    const healthLatencies: number[] = [];
    while (!done) {
      const asked = performance.now();
      const health = await sandbox.handle({ method: 'GET', url: '/__sandbox/health', headers: {} });
      healthLatencies.push(performance.now() - asked);
      expect(health.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const { answer, ms } = await fixtures;
    expect(answer.status).toBeGreaterThanOrEqual(200);
    expect(answer.status).toBeLessThan(500);
    expect(ms).toBeLessThan(1000);
    expect(Math.max(...healthLatencies)).toBeLessThan(100);
  });

  it('answers a document at the 16 MB bound of unclosed references within 5 s', async () => {
    const started = performance.now();
    const answer = await post(unclosedReferences(16 * 1024 * 1024 - 200), 'application/json');
    expect(answer.status).toBeLessThan(500);
    expect(performance.now() - started).toBeLessThan(5000);
  }, 120_000);
});

// A YAML document whose one 6 MB anchor is used 94 times (under the 100-alias cap): 564 MB once expanded.
function repeatedAnchor(): string {
  const uses = Array.from({ length: 94 }, (_, i) => `  - id: s${i}\n    api: { method: POST, path: /payments/initiates, body: { productDescription: *big } }\n`).join('');
  return `version: 1\nbig: &big ${'x'.repeat(6 * 1024 * 1024)}\nsteps:\n${uses}`;
}

describe('a YAML document that aliases expand', () => {
  it('is refused by its reader with one sentence naming the bound', async () => {
    const error = await parseFixturesText(repeatedAnchor()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(FixturesError);
    expect((error as Error).message).toMatch(/^the document expands to more than 16 MB of keys and values .*: write each value once, or split the document$/);
  });

  it('is refused by POST /__sandbox/fixtures with 400 INPUT, not a RangeError', async () => {
    const answer = await post(repeatedAnchor(), 'application/yaml');
    expect(answer.status).toBe(400);
    expect(json(answer)).toMatchObject({ error: 'INPUT', message: expect.stringContaining('expands to more than 16 MB') });
  });

  it('still reads a document whose aliases repeat small values', async () => {
    const small = await parseFixturesText('version: 1\nmerchant: &m { publicKey: a, secretKey: b }\nsteps:\n  - { merchant: *m }\n  - { merchant: *m }\n');
    expect(small).toMatchObject({ steps: [{ merchant: { publicKey: 'a' } }, { merchant: { publicKey: 'a' } }] });
  });
});
