import { describe, expect, it } from 'vitest';
import { EventBuffer } from '../../../src/events/buffer.js';

/** The replay buffer of the event stream (docs/decisions.md#d80-server-sent-events). */

const filled = (capacity: number, count: number) => {
  const buffer = new EventBuffer<{ id: number }>(capacity);
  for (let id = 1; id <= count; id += 1) buffer.push({ id });
  return buffer;
};

describe('EventBuffer', () => {
  it('keeps the last `capacity` events, oldest first', () => {
    const buffer = filled(3, 5);
    expect(buffer.length).toBe(3);
    expect(buffer.since(2, 5)!.map((event) => event.id)).toEqual([3, 4, 5]);
  });

  it('gives the events after an id it still holds, none after the newest', () => {
    const buffer = filled(3, 5);
    expect(buffer.since(4, 5)!.map((event) => event.id)).toEqual([5]);
    expect(buffer.since(5, 5)).toEqual([]);
  });

  it('answers undefined (reload) when some of what was missed is gone, for an id of another run, or no id at all', () => {
    const buffer = filled(3, 5);
    expect(buffer.since(1, 5)).toBeUndefined();
    expect(buffer.since(0, 5)).toBeUndefined();
    expect(buffer.since(6, 5)).toBeUndefined();
    expect(buffer.since(-1, 5)).toBeUndefined();
    expect(buffer.since(Number.NaN, 5)).toBeUndefined();
    expect(buffer.since(2.5, 5)).toBeUndefined();
  });

  it('before it is full, from the first event on', () => {
    expect(filled(3, 2).since(0, 2)!.map((event) => event.id)).toEqual([1, 2]);
    expect(new EventBuffer(3).since(0, 0)).toEqual([]);
  });

  it('refuses a capacity below 1', () => {
    expect(() => new EventBuffer(0)).toThrow(RangeError);
  });
});
