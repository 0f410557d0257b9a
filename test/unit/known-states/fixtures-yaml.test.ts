import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../src/index.js';

/**
 * POST /__sandbox/fixtures reads YAML as well as JSON (`application/yaml`),
 * as the shipped examples are written, with the bounds of a fixtures file.
 */

const EXAMPLE = fileURLToPath(new URL('../../../examples/fixtures/merchant-day.yaml', import.meta.url));

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ listen: false });
});
afterAll(() => sandbox.close());

const post = (body: string, type: string) => sandbox.handle({ method: 'POST', url: '/__sandbox/fixtures', headers: { 'content-type': type }, body });
const json = (answer: { body: Buffer }) => JSON.parse(answer.body.toString('utf8'));

describe('a fixtures document in YAML', () => {
  it('loads the shipped example as application/yaml, as its file would at start', async () => {
    const answer = await post(await readFile(EXAMPLE, 'utf8'), 'application/yaml');
    expect(answer.status, answer.body.toString()).toBe(200);
    expect(json(answer).steps.length).toBeGreaterThan(1);
  });

  it('refuses YAML that is no fixtures document with 400 INPUT naming the field, and YAML it cannot read with 400 INPUT', async () => {
    const wrong = await post('version: 1\nsteps:\n  - expcet: { status: 200 }\n', 'application/yaml; charset=utf-8');
    expect(wrong.status).toBe(400);
    expect(json(wrong)).toMatchObject({ error: 'INPUT', message: expect.stringContaining('steps') });
    const unreadable = await post('version: [1\n', 'application/yaml');
    expect(unreadable.status).toBe(400);
    expect(json(unreadable).error).toBe('INPUT');
  });

  it('takes YAML on POST /fixtures only, and a form on none', async () => {
    const override = await sandbox.handle({ method: 'POST', url: '/__sandbox/overrides', headers: { 'content-type': 'application/yaml' }, body: 'scenario: card-declined\n' });
    expect(override.status).toBe(415);
    expect(json(override).error).toBe('UNSUPPORTED_MEDIA_TYPE');
    const form = await post('version=1', 'application/x-www-form-urlencoded');
    expect(form.status).toBe(415);
    expect(json(form).message).toContain('application/yaml');
  });
});
