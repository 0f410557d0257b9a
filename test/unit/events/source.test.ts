import { afterEach, describe, expect, it, vi } from 'vitest';
import { SandboxEvents, SubscriberLimitError, type EventLimits, type EventSink } from '../../../src/events/source.js';

/** The event source without a socket: replay, filter, bounds, keep-alive, close (docs/decisions.md#d80-server-sent-events). */

class FakeSink implements EventSink {
  text = '';
  /** bytes the peer has not taken: set by the test */
  pending = 0;
  ended = false;
  destroyed = false;
  write(text: string): boolean {
    this.text += text;
    return true;
  }
  end(): void {
    this.ended = true;
  }
  destroy(): void {
    this.destroyed = true;
  }
  /** the JSON of each event written */
  get events(): Array<Record<string, unknown>> {
    return [...this.text.matchAll(/^data: (.*)$/gm)].map((match) => JSON.parse(match[1]!));
  }
}

const limits = (fields: Partial<EventLimits> = {}): EventLimits => ({ maxSubscribers: 2, bufferSize: 3, maxPendingBytes: 100, keepAliveMs: 15_000, ...fields });
const source = (fields: Partial<EventLimits> = {}) => new SandboxEvents(() => '2026-01-01T00:00:00.000Z', limits(fields));

afterEach(() => {
  vi.useRealTimers();
});

describe('SandboxEvents', () => {
  it('numbers events from 1 and writes them to every subscriber; a filtered one gets its merchant and the sandbox-wide ones', () => {
    const events = source();
    const all = new FakeSink();
    const mine = new FakeSink();
    events.subscribe(all);
    events.subscribe(mine, { publicKey: 'A' });
    events.publish({ kind: 'clock', publicKey: 'A' });
    events.publish({ kind: 'clock', publicKey: 'B' });
    events.publish({ kind: 'reset' });
    expect(all.events.map((event) => event.id)).toEqual([1, 2, 3]);
    expect(mine.events.map((event) => [event.id, event.publicKey])).toEqual([[1, 'A'], [3, undefined]]);
    expect(all.text.startsWith(': connected\n\nid: 1\n')).toBe(true);
  });

  it('replays the held events after Last-Event-ID, and a reload event when they are gone', () => {
    const events = source();
    for (let n = 0; n < 5; n += 1) events.publish({ kind: 'clock', publicKey: 'A' });
    const back = new FakeSink();
    events.subscribe(back, { lastEventId: 3 });
    expect(back.events.map((event) => event.id)).toEqual([4, 5]);
    const late = new FakeSink();
    events.subscribe(late, { lastEventId: 1 });
    expect(late.events).toEqual([{ id: 5, at: '2026-01-01T00:00:00.000Z', kind: 'reload' }]);
  });

  it('does not drop a subscriber for its replay, only once new events find it behind', () => {
    const events = source();
    for (let n = 0; n < 3; n += 1) events.publish({ kind: 'clock', publicKey: 'A' });
    const slow = new FakeSink();
    slow.pending = 101;
    events.subscribe(slow, { lastEventId: 0 });
    expect(slow.destroyed).toBe(false);
    expect(slow.events).toHaveLength(3);
    events.publish({ kind: 'reset' });
    expect(slow.destroyed).toBe(true);
  });

  it('refuses a subscriber beyond maxSubscribers, and takes one again once another leaves', () => {
    const events = source();
    const leave = events.subscribe(new FakeSink());
    events.subscribe(new FakeSink());
    expect(() => events.subscribe(new FakeSink())).toThrow(SubscriberLimitError);
    leave();
    expect(() => events.subscribe(new FakeSink())).not.toThrow();
  });

  it('drops a subscriber whose connection holds more than maxPendingBytes unsent', () => {
    const events = source();
    const slow = new FakeSink();
    const fast = new FakeSink();
    events.subscribe(slow);
    events.subscribe(fast);
    slow.pending = 101;
    events.publish({ kind: 'reset' });
    expect(slow.destroyed).toBe(true);
    expect(fast.destroyed).toBe(false);
    expect(events.subscriberCount).toBe(1);
    expect(events.dropped).toBe(1);
  });

  it('writes a keep-alive comment every keepAliveMs while someone listens', () => {
    vi.useFakeTimers();
    const events = source();
    const sink = new FakeSink();
    const leave = events.subscribe(sink);
    vi.advanceTimersByTime(15_000);
    expect(sink.text.endsWith(': keep-alive\n\n')).toBe(true);
    leave();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('close() ends every stream and refuses new ones', () => {
    const events = source();
    const sink = new FakeSink();
    events.subscribe(sink);
    events.close();
    expect(sink.ended).toBe(true);
    expect(events.subscriberCount).toBe(0);
    expect(() => events.subscribe(new FakeSink())).toThrow(/closing/);
  });

  it('close() destroys a stream whose peer has bytes it has not taken, rather than wait for it', () => {
    const events = source();
    const behind = new FakeSink();
    events.subscribe(behind);
    behind.pending = 10;
    events.close();
    expect(behind.destroyed).toBe(true);
    expect(behind.ended).toBe(false);
  });
});
