import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_MAX_BYTES, BODY_MAX_DEPTH, TEXT_MAX } from '../../src/journal/bounds.js';
import { Journal } from '../../src/journal/journal.js';
import type { Sandbox } from '../../src/index.js';
import { ControlClient } from '../support/control.js';
import { ApiClient, sandboxForTest, type TestMerchant } from '../support/sandbox.js';

/**
 * The journal is bounded in bytes as well as in entries: a client sending
 * 1 MB bodies, bodies nested 10,000 levels deep or huge headers cannot make
 * the sandbox run out of memory, nor break `GET /__sandbox/requests`.
 */

const MiB = 1024 * 1024;

// A garbage collection on demand, to read the heap the journal holds rather than what is yet to be collected.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;
const heapUsed = () => {
  collect();
  collect();
  return process.memoryUsage().heapUsed;
};

/** A JSON body of `bytes` bytes, with many small fields after a card number and a secret key. */
function bigBody(bytes: number): string {
  const head = { publicKey: 'SBTESTPUBK_bigbodies0001', paymentType: 'CARD', productDescription: 'card 4111111111111111 key SBTESTSECK_bigbodies0001' };
  const filler = Array.from({ length: Math.floor(bytes / 50) }, (_, index) => ({ line: index, text: 'lorem ipsum dolor' }));
  const text = JSON.stringify({ ...head, filler, pad: '' });
  return `${text.slice(0, -2)}${'x'.repeat(bytes - text.length)}"}`;
}

describe('500 requests with 1 MB bodies, read and refused with 400', () => {
  const MAX_BYTES = 4 * MiB;
  const SENT = 500;
  let sandbox: Sandbox;
  let control: ControlClient;
  let token: string;

  beforeAll(async () => {
    sandbox = await sandboxForTest({ journalMaxBytes: MAX_BYTES });
    control = await ControlClient.for(sandbox);
    token = (await (await ApiClient.for(sandbox)).merchant()).token;
  });
  afterAll(() => sandbox.close());

  it('keep the journal under its byte bound, each body cut to a marker with its size and head', { timeout: 120_000 }, async () => {
    const body = bigBody(MiB);
    expect(Buffer.byteLength(body)).toBe(MiB);
    expect(JSON.parse(body).filler.length).toBeGreaterThan(20_000);
    const before = heapUsed();
    let sent = 0;
    let peakBytes = 0;
    const worker = async () => {
      while (sent < SENT) {
        sent += 1;
        // A merchant's request, so the body is read (a stranger's is refused before it is): 400 INPUT, the card fields missing.
        const response = await fetch(`${sandbox.apiBase}/payments/initiates`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body });
        expect(response.status).toBe(400);
        await response.arrayBuffer();
        peakBytes = Math.max(peakBytes, sandbox.journal.bytes);
        expect(sandbox.journal.bytes).toBeLessThanOrEqual(MAX_BYTES);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    const after = heapUsed();

    const journal = (await control.requests()).body;
    expect(journal.maxBytes).toBe(MAX_BYTES);
    expect(journal.bytes).toBeLessThanOrEqual(MAX_BYTES);
    // Bound by bytes, not by entries: far fewer than the 5000 the ring could hold.
    expect(journal.count).toBeLessThan(SENT);
    expect(journal.count).toBeGreaterThan(MAX_BYTES / (3 * BODY_MAX_BYTES));
    const [newest] = journal.requests;
    expect(newest.status).toBe(400);
    expect(newest.request.body).toMatchObject({ _truncated: true, reason: 'size', bytes: Buffer.byteLength(body) });
    expect(Buffer.byteLength(newest.request.body.head)).toBeLessThanOrEqual(BODY_MAX_BYTES);
    expect(newest.request.body.head.startsWith('{"publicKey":"SBTESTPUBK_bigbodies0001"')).toBe(true);
    expect(newest.request.body.head).toContain('card 411111******1111 key SBTESTSECK_[redacted]');
    const grownMiB = (after - before) / MiB;
    console.log(
      `journal after ${SENT} requests of ${(Buffer.byteLength(body) / MiB).toFixed(2)} MiB: ${journal.count} entries, ${(journal.bytes / MiB).toFixed(2)} MiB ` +
        `(bound ${MAX_BYTES / MiB} MiB, peak ${(peakBytes / MiB).toFixed(2)} MiB); heapUsed grew ${grownMiB.toFixed(1)} MiB`,
    );
    // Kept whole, as before the bound, they took about 2 MiB of heap each: 1 GB for these 500.
    expect(grownMiB).toBeLessThan(24);
  });
});

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
      await request(sandbox.app).post('/api/v2/payments/initiates').set('Content-Type', 'application/json').set('Authorization', `Bearer ${merchant.token}`).send(raw);
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
    await request(sandbox.app)
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
