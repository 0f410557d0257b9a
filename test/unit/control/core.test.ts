import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../src/index.js';
import { accountPayment } from '../../support/sandbox.js';

/**
 * The control API's core (src/control/core.ts) as a client meets it in
 * process: what its routing resolves, what each transport may ask of it, the
 * answers it renders, and the whole-state guard of fixtures steps, which is
 * a property of the operation a step's path routes to, however it is spelt.
 */

const TOKEN = 'core-token';
const PUB = 'SBTESTPUBK_controlcore0001';
const SEC = 'SBTESTSECK_controlcore0001';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ listen: false, controlToken: TOKEN });
});
afterAll(() => sandbox.close());

interface Asked {
  status: number;
  headers: Record<string, string | string[]>;
  text: string;
  body: any;
}

/** One control request in process, with the token unless `bare`. */
async function ask(method: string, path: string, body?: unknown, options: { bare?: boolean; headers?: Record<string, string> } = {}): Promise<Asked> {
  const headers: Record<string, string> = { ...(options.bare ? {} : { authorization: `Bearer ${TOKEN}` }), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers };
  const answer = await sandbox.handle({ method, url: `/__sandbox${path}`, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  const text = answer.body.toString('utf8');
  const json = String(answer.headers['content-type'] ?? '').includes('json') && text !== '';
  return { status: answer.status, headers: answer.headers, text, body: json ? JSON.parse(text) : undefined };
}

/** A fixtures document of one account payment, then one control step. */
const withControlStep = (reference: string, method: string, path: string) => ({
  version: 1,
  merchant: { publicKey: PUB, secretKey: SEC },
  steps: [{ api: { method: 'POST', path: '/payments/initiates', body: accountPayment({ publicKey: PUB, paymentReference: reference }) } }, { control: { method, path } }],
});

describe('the control core', () => {
  it('answers HEAD as GET, with the headers and without the body', async () => {
    const get = await ask('GET', '/scenarios');
    const head = await ask('HEAD', '/scenarios');
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
    expect(get.body.scenarios.length).toBeGreaterThan(10);
  });

  it('sets X-Content-Type-Options: nosniff on every answer, refusals included', async () => {
    for (const [method, path, bare] of [['GET', '/health', true], ['GET', '/merchants', false], ['GET', '/merchants', true], ['GET', '/nowhere', false], ['DELETE', '/overrides/none', false]] as const) {
      expect((await ask(method, path, undefined, { bare })).headers['x-content-type-options'], `${method} ${path}`).toBe('nosniff');
    }
  });

  it('asks for the token before it says a path does not exist, or cannot be decoded', async () => {
    expect((await ask('GET', '/nowhere', undefined, { bare: true })).status).toBe(401);
    expect((await ask('GET', '/payments/%E0%A4%A', undefined, { bare: true })).status).toBe(401);
    const undecodable = await ask('GET', '/payments/%E0%A4%A');
    expect(undecodable.status).toBe(400);
    expect(undecodable.body).toMatchObject({ error: 'INPUT', message: expect.stringContaining('decode') });
  });

  it('refuses a body beyond its operation’s limit with 413 naming the limits, and changes nothing', async () => {
    const before = (await ask('GET', '/overrides')).body.total;
    const answer = await ask('POST', '/overrides', { scenario: 'card-declined', padding: 'x'.repeat(150_000) });
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ error: 'INPUT', message: expect.stringContaining('100kb') });
    expect((await ask('GET', '/overrides')).body.total).toBe(before);
  });

  it('refuses a body it cannot read with 400 INPUT', async () => {
    const answer = await ask('POST', '/overrides', '{"scenario": ');
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('INPUT');
  });

  it('writes a snapshot whole in process, as a client reads it over a connection', async () => {
    const answer = await ask('GET', '/snapshot');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-length']).toBe(String(Buffer.byteLength(answer.text)));
    expect(answer.body).toMatchObject({ version: 3, merchants: expect.any(Array), payments: expect.any(Array) });
  });
});

describe('a fixtures step that routes to an operation replacing the state as a whole', () => {
  const spellings: Array<[string, string]> = [
    ['POST', '/reset'], ['POST', '/Reset'], ['POST', '/RESET/'], ['POST', '/reset?to=empty'], ['PUT', '/Snapshot'], ['GET', '/snapshot'], ['POST', '/Fixtures'], ['POST', '/snapshot'],
  ];

  it.each(spellings)('%s %s is refused with 400 naming the step, and nothing of the document is kept', async (method, path) => {
    const reference = `CORE-${method}-${path.replace(/[^A-Za-z]/g, '')}-${Math.random().toString(36).slice(2, 8)}`;
    const refused = await ask('POST', '/fixtures', withControlStep(reference, method, path));
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: 'INPUT', step: { index: 1, field: '/steps/1/control/path' }, message: expect.stringContaining('cannot load fixtures or a snapshot, or reset') });
    expect((await ask('GET', `/payments/${reference}?publicKey=${PUB}`)).status).toBe(404);
  });

  it('leaves reset, snapshots and fixtures answering afterwards', async () => {
    await ask('POST', '/fixtures', withControlStep('CORE-AFTER-1', 'POST', '/RESET'));
    expect((await ask('POST', '/reset')).status).toBe(200);
    expect((await ask('GET', '/snapshot')).status).toBe(200);
    const loaded = await ask('POST', '/fixtures', { version: 1, merchant: { publicKey: PUB, secretKey: SEC }, steps: withControlStep('CORE-AFTER-2', 'GET', '/health').steps });
    expect(loaded.status, loaded.text).toBe(200);
  });

  // The core routes a path as an HTTP client sends it, dot segments and all: these reach no operation, so the step fails as a 404.
  it.each([['POST', '/./reset'], ['POST', '/x/../reset']])('%s %s is a failed step (404), and reset still answers', async (method, path) => {
    const answer = await ask('POST', '/fixtures', withControlStep(`CORE-DOTS-${Math.random().toString(36).slice(2, 8)}`, method, path));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: 'INPUT', step: { index: 1 } });
    expect(answer.body.message).toContain('404');
    expect((await ask('POST', '/reset')).status).toBe(200);
  });

  it('reaches no Payments API operation through a control path', async () => {
    const answer = await ask('POST', '/fixtures', withControlStep('CORE-ESCAPE-1', 'GET', '/../api/v2/networks'));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: 'INPUT', step: { index: 1 } });
    expect(answer.body.message).toContain('404');
  });
});
