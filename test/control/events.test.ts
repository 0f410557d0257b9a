import { connect } from 'node:net';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { ControlClient } from '../support/control.js';
import { accountPayment, ApiClient, listeningSandbox } from '../support/sandbox.js';

/**
 * GET /__sandbox/events over a real connection (docs/decisions.md#d80-server-sent-events):
 * a stream never ends, so these tests read it with Node's fetch from a
 * listening sandbox, never through `sandbox.handle()`.
 */

interface StreamEvent {
  /** the `id:` line */
  lineId: string;
  data: Record<string, any>;
}

/** A stream being read: the events parsed so far, and a wait for the next one that matches. */
class Stream {
  readonly events: StreamEvent[] = [];
  ended = false;
  private waiters: Array<() => void> = [];

  private constructor(
    readonly status: number,
    readonly headers: Headers,
    readonly controller: AbortController,
    readonly body?: any,
  ) {}

  static async open(sandbox: Sandbox, query = '', headers: Record<string, string> = {}): Promise<Stream> {
    const controller = new AbortController();
    const response = await fetch(`${sandbox.url}/__sandbox/events${query}`, { headers, signal: controller.signal });
    if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
      return new Stream(response.status, response.headers, controller, await response.json());
    }
    const stream = new Stream(response.status, response.headers, controller);
    void stream.read(response.body!);
    return stream;
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let text = '';
    const reader = body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        let end;
        while ((end = text.indexOf('\n\n')) >= 0) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          const id = /^id: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (id !== undefined && data !== undefined) this.events.push({ lineId: id, data: JSON.parse(data) });
        }
        this.wake();
      }
    } catch {
      // aborted by the test
    }
    this.ended = true;
    this.wake();
  }

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  /** The first event (from the start of the stream) that matches, within `ms`. */
  async next(matches: (data: Record<string, any>) => boolean, ms = 1000, what = 'an event'): Promise<StreamEvent> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.events.find((event) => matches(event.data));
      if (found) return found;
      if (this.ended) throw new Error(`the stream ended before ${what}: ${JSON.stringify(this.events.map((event) => event.data))}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${what} within ${ms} ms: ${JSON.stringify(this.events.map((event) => event.data))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  close(): void {
    this.controller.abort();
  }
}

let sandbox: Sandbox;
let api: ApiClient;
let control: ControlClient;

beforeAll(async () => {
  sandbox = await listeningSandbox({ seed: 'events' });
  api = await ApiClient.overHttp(sandbox);
  control = await ControlClient.for(sandbox);
});
afterAll(() => sandbox.close());

describe('GET /__sandbox/events', () => {
  it('announces a payment initiated over the API within a second, with its publicKey and paymentReference', async () => {
    const stream = await Stream.open(sandbox);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const merchant = await api.merchant();
    const body = accountPayment();
    const started = Date.now();
    expect((await api.as(merchant, 'POST', '/payments/initiates', body)).status).toBe(200);
    const event = await stream.next((data) => data.kind === 'payment' && data.paymentReference === body.paymentReference, 1000, 'payment event');
    expect(Date.now() - started).toBeLessThan(1000);
    expect(event.data).toMatchObject({ kind: 'payment', publicKey: merchant.publicKey, paymentReference: body.paymentReference, action: 'created' });
    expect(event.lineId).toBe(String(event.data.id));
    stream.close();
  });

  it('announces a clock advance, an override added and a reset', async () => {
    const stream = await Stream.open(sandbox);
    const merchant = await api.merchant();
    expect((await control.send('POST', `/clock/${merchant.publicKey}/advance`, { body: { by: 'PT2H' } })).status).toBe(200);
    const clock = await stream.next((data) => data.kind === 'clock' && data.publicKey === merchant.publicKey, 1000, 'clock event');
    expect(clock.data.offsetMs).toBeGreaterThanOrEqual(2 * 3600_000);
    const override = await control.override({ scenario: 'transaction-failed', publicKey: merchant.publicKey, times: 1 });
    expect((await stream.next((data) => data.kind === 'override' && data.action === 'added', 1000, 'override event')).data).toMatchObject({ publicKey: merchant.publicKey, ref: override.id });
    expect((await control.reset(merchant.publicKey)).status).toBe(200);
    await stream.next((data) => data.kind === 'reset' && data.publicKey === merchant.publicKey, 1000, 'reset event');
    stream.close();
  });

  it("with ?publicKey=, sends only that merchant's events", async () => {
    const [mine, other] = [await api.merchant(), await api.merchant()];
    const stream = await Stream.open(sandbox, `?publicKey=${encodeURIComponent(mine.publicKey)}`);
    const theirs = accountPayment();
    const ours = accountPayment();
    expect((await api.as(other, 'POST', '/payments/initiates', theirs)).status).toBe(200);
    expect((await api.as(mine, 'POST', '/payments/initiates', ours)).status).toBe(200);
    await stream.next((data) => data.paymentReference === ours.paymentReference, 1000, 'own payment event');
    expect(stream.events.filter((event) => event.data.publicKey === other.publicKey)).toEqual([]);
    expect(stream.events.every((event) => event.data.publicKey === undefined || event.data.publicKey === mine.publicKey)).toBe(true);
    stream.close();
  });

  it('replays what was missed after Last-Event-ID, and asks for a reload when it cannot', async () => {
    const merchant = await api.merchant();
    const first = await Stream.open(sandbox, `?publicKey=${encodeURIComponent(merchant.publicKey)}`);
    const before = accountPayment();
    await api.as(merchant, 'POST', '/payments/initiates', before);
    const seen = await first.next((data) => data.paymentReference === before.paymentReference, 1000, 'first payment event');
    first.close();
    const missed = accountPayment();
    await api.as(merchant, 'POST', '/payments/initiates', missed);
    const again = await Stream.open(sandbox, `?publicKey=${encodeURIComponent(merchant.publicKey)}`, { 'Last-Event-ID': seen.lineId });
    const replayed = await again.next((data) => data.paymentReference === missed.paymentReference, 1000, 'missed payment event');
    expect(Number(replayed.lineId)).toBeGreaterThan(Number(seen.lineId));
    expect(again.events.some((event) => event.data.paymentReference === before.paymentReference)).toBe(false);
    again.close();
    const stale = await Stream.open(sandbox, '', { 'Last-Event-ID': String(sandbox.events.newestId + 1000) });
    expect((await stale.next((data) => data.kind === 'reload', 1000, 'reload event')).data.id).toBe(sandbox.events.newestId);
    stale.close();
  });

  it("answers the 33rd subscriber 503 in the control API's error shape", async () => {
    const open = await Promise.all(Array.from({ length: 32 }, () => Stream.open(sandbox)));
    try {
      expect(open.map((stream) => stream.status)).toEqual(Array(32).fill(200));
      const refused = await Stream.open(sandbox);
      expect(refused.status).toBe(503);
      expect(refused.body).toEqual({ message: expect.stringContaining('32 event streams are open'), error: 'UNAVAILABLE' });
    } finally {
      for (const stream of open) stream.close();
    }
    await expect.poll(() => sandbox.events.subscriberCount, { timeout: 2000 }).toBe(0);
    const later = await Stream.open(sandbox);
    expect(later.status).toBe(200);
    later.close();
  });

  it('needs the control token like every other control request', async () => {
    const guarded = await listeningSandbox({ controlToken: 'events-token' });
    try {
      expect((await Stream.open(guarded)).status).toBe(401);
      const stream = await Stream.open(guarded, '', { Authorization: 'Bearer events-token' });
      expect(stream.status).toBe(200);
      stream.close();
    } finally {
      await guarded.close();
    }
  });

  it('drops a subscriber that stops reading, rather than keeping its events in memory', async () => {
    const merchant = await api.merchant();
    const before = sandbox.events.dropped;
    const socket = connect(Number(new URL(sandbox.url).port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(`GET /__sandbox/events HTTP/1.1\r\nHost: ${new URL(sandbox.url).host}\r\n\r\n`);
    await expect.poll(() => sandbox.events.subscriberCount, { timeout: 2000 }).toBe(1);
    socket.pause();
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    // Loopback buffers hold a few MB at most; 64 MB of events is far more than they take.
    const ref = 'x'.repeat(64);
    let published = 0;
    while (sandbox.events.subscriberCount > 0 && published < 256_000) {
      for (let i = 0; i < 1000; i += 1) sandbox.events.publish({ kind: 'delivery', publicKey: merchant.publicKey, ref, state: 'scheduled' });
      published += 1000;
      await yieldToLoop();
    }
    expect(sandbox.events.subscriberCount).toBe(0);
    expect(sandbox.events.dropped).toBe(before + 1);
    socket.resume();
    await closed;
  });
});

describe('closing the sandbox', () => {
  it('ends every stream at once: close() does not wait for them', async () => {
    const closing = await listeningSandbox();
    const stream = await Stream.open(closing);
    expect(stream.status).toBe(200);
    const started = Date.now();
    await closing.close();
    expect(Date.now() - started).toBeLessThan(2000);
    await stream.next(() => false, 2000, 'the end').catch(() => undefined);
    expect(stream.ended).toBe(true);
  });
});
