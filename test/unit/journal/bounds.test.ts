import { inProcess } from '../../support/in-process.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_MAX_DEPTH, TEXT_MAX } from '../../../src/journal/bounds.js';
import { Journal } from '../../../src/journal/journal.js';
import type { Sandbox } from '../../../src/index.js';
import { ControlClient } from '../../support/control.js';
import { ApiClient, sandboxForTest, type TestMerchant } from '../../support/sandbox.js';

/**
 * The journal is bounded in bytes as well as in entries: a client sending
 * 1 MB bodies, bodies nested 10,000 levels deep or huge headers cannot make
 * the sandbox run out of memory, nor break `GET /__sandbox/requests`.
 */

const MiB = 1024 * 1024;

// bigBody and the heap measure live with the test that uses them: test/control/journal-bounds.test.ts.

describe('a default sandbox', () => {
  let sandbox: Sandbox;
  let api: ApiClient;
  let control: ControlClient;
  let merchant: TestMerchant;

  beforeAll(async () => {
    sandbox = await sandboxForTest();
    api = await ApiClient.for(sandbox);
    control = await ControlClient.for(sandbox);
    merchant = await api.merchant();
  });
  afterAll(() => sandbox.close());

  it('bounds its journal to 32 MiB', async () => {
    expect(sandbox.journal.maxBytes).toBe(32 * MiB);
    expect((await control.requests({ limit: 1 })).body.maxBytes).toBe(32 * MiB);
  });

  it('renders a 10,000-deep body back, cut at 32 levels with a depth marker', async () => {
    const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    const deepArrays = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    for (const raw of [deep, deepArrays]) {
      await inProcess(sandbox).post('/api/v2/payments/initiates').set('Content-Type', 'application/json').set('Authorization', `Bearer ${merchant.token}`).send(raw);
    }
    const listed = await control.requests({ path: '/payments/initiates' });
    expect(listed.status).toBe(200);
    expect(listed.body.requests).toHaveLength(2);
    const [arrays, objects] = listed.body.requests;
    let node = objects.request.body;
    for (let level = 0; level < BODY_MAX_DEPTH; level += 1) node = node.a;
    expect(node).toEqual({ _truncated: true, reason: 'depth', depth: BODY_MAX_DEPTH });
    node = arrays.request.body;
    for (let level = 0; level < BODY_MAX_DEPTH; level += 1) node = node[0];
    expect(node).toEqual({ _truncated: true, reason: 'depth', depth: BODY_MAX_DEPTH });
    // And the whole journal still renders.
    expect((await control.requests()).status).toBe(200);
  });

  it('bounds headers, query parameters and path', async () => {
    const query = Array.from({ length: 100 }, (_, n) => `p${n}=${n}`).join('&');
    // Within Node's 16 KB of request head, beyond what the journal keeps of each part.
    await inProcess(sandbox)
      .get(`/api/v2/payments/query/${'R'.repeat(2500)}?${query}&long=${'q'.repeat(3000)}`)
      .set('Authorization', `Bearer ${merchant.token}`)
      .set('X-Long', 'h'.repeat(4000));
    const [entry] = (await control.requests({ publicKey: merchant.publicKey, limit: 1 })).body.requests;
    expect(entry.operation).toBe('queryPayment');
    expect(entry.request.headers['x-long']).toBe(`${'h'.repeat(TEXT_MAX)}…(${4000 - TEXT_MAX} more characters)`);
    expect(Object.keys(entry.request.query)).toHaveLength(64);
    expect(entry.request.query.p0).toBe('0');
    expect(entry.path).toBe(`/payments/query/${'R'.repeat(TEXT_MAX - '/payments/query/'.length)}…(${2500 + '/payments/query/'.length - TEXT_MAX} more characters)`);
  });
});

describe('Journal', () => {
  const entry = (body: unknown) => ({ time: '2025-03-14T09:00:00.000Z', method: 'POST', path: '/p', publicKey: 'A', status: 200, durationMs: 1, request: { headers: {}, body } });

  it('drops the oldest entries beyond its byte bound, keeps the newest even when it alone is larger, and counts its bytes', () => {
    const journal = new Journal(1000, 64 * 1024);
    const text = 'x'.repeat(10_000);
    for (let n = 0; n < 20; n += 1) journal.record(entry({ n, text }));
    expect(journal.bytes).toBeLessThanOrEqual(64 * 1024);
    expect(journal.count).toBe(6);
    expect(journal.query().map((kept) => (kept.request.body as { n: number }).n)).toEqual([19, 18, 17, 16, 15, 14]);

    const tiny = new Journal(10, 100);
    tiny.record(entry({ n: 1 }));
    tiny.record(entry({ n: 2 }));
    expect(tiny.count).toBe(1);
    expect(tiny.query()[0]!.request.body).toEqual({ n: 2 });

    journal.clear();
    expect(journal.bytes).toBe(0);
    expect(journal.count).toBe(0);
  });

  it('charges text beyond Latin-1 at two bytes a character, as it is held', () => {
    const latin = new Journal(10);
    const wide = new Journal(10);
    latin.record(entry({ text: 'é'.repeat(1000) }));
    wide.record(entry({ text: 'é'.repeat(999) + '€' }));
    expect(wide.bytes - latin.bytes).toBeGreaterThan(900);
  });

  it('refuses a bound that is not a positive number of bytes', () => {
    expect(() => new Journal(10, 0)).toThrow(RangeError);
    expect(() => new Journal(10, Number.NaN)).toThrow(RangeError);
    expect(() => new Journal(10, Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});
