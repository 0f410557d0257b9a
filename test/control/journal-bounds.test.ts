import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_MAX_BYTES } from '../../src/journal/bounds.js';
import type { Sandbox } from '../../src/index.js';
import { ControlClient } from '../support/control.js';
import { ApiClient, listeningSandbox } from '../support/sandbox.js';

/**
 * The journal is bounded in bytes as well as in entries: a client sending
 * 1 MB bodies over real connections cannot make the sandbox's heap grow with
 * them (test/unit/journal/bounds.test.ts has the rest of the bounds). The
 * heap is measured in the test's own process, so the client must be a
 * real one: requests served in process keep their last bodies on that heap
 * a while longer, which is the client's memory, not the journal's.
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

/**
 * Bodies sent: more than twice what the journal holds of them (some 100 entries of about 20 KiB, a 16 KiB
 * head each, in 2 MiB), so that it drops the oldest again and again; kept whole, as before the bound, they
 * would take 500 MiB of heap.
 */
const SENT = 250;

describe(`${SENT} requests with 1 MB bodies, read and refused with 400`, () => {
  const MAX_BYTES = 2 * MiB;
  let sandbox: Sandbox;
  let control: ControlClient;
  let token: string;

  beforeAll(async () => {
    sandbox = await listeningSandbox({ journalMaxBytes: MAX_BYTES });
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
    // Kept whole, as before the bound, they took about 2 MiB of heap each: 500 MiB for these 250.
    expect(grownMiB).toBeLessThan(24);
  });
});

