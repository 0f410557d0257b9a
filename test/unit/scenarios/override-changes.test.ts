import { describe, expect, it } from 'vitest';
import { OverrideBook, type OverrideChange } from '../../../src/scenarios/overrides.js';

/** OverrideBook.onChange: every change of the book, whoever makes it (docs/decisions.md#d80-server-sent-events). */

describe('OverrideBook.onChange', () => {
  it('hears an override added, used, used up (removed), cleared and replaced', () => {
    const book = new OverrideBook();
    const heard: OverrideChange[] = [];
    book.onChange = (change) => heard.push(change);
    const once = book.add({ scenario: 'card-declined', publicKey: 'A', times: 1 }, '2026-01-01T00:00:00.000Z');
    expect(book.take('A', () => true)?.id).toBe(once.id);
    book.clear('A');
    book.replace([]);
    expect(heard.map((change) => change.action)).toEqual(['added', 'used', 'removed', 'cleared', 'replaced']);
    expect(heard[1]).toMatchObject({ override: { id: once.id, times: 0 } });
    expect(heard[3]).toEqual({ action: 'cleared', publicKey: 'A' });
  });

  it('hears nothing when no override applies or none is removed', () => {
    const book = new OverrideBook();
    const heard: OverrideChange[] = [];
    book.onChange = (change) => heard.push(change);
    expect(book.take('A', () => true)).toBeUndefined();
    expect(book.remove('no-such-id')).toBe(false);
    expect(heard).toEqual([]);
  });
});
