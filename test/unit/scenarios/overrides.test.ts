import { describe, expect, it } from 'vitest';
import { OverrideBook, type Override } from '../../../src/scenarios/overrides.js';

/** The overrides in force, on their own: what the control API's /__sandbox/overrides keeps (README, "Choosing a scenario"). */

const MINE = 'SBTESTPUBK_mine00000001';
const THEIRS = 'SBTESTPUBK_theirs000002';
const NOW = '2025-03-14T09:20:11.204Z';
const ANY = () => true;

const scenarios = (overrides: readonly Override[]) => overrides.map((override) => override.scenario);

/** Takes an override for `publicKey` `count` times and says which scenarios came out. */
function takeTimes(book: OverrideBook, publicKey: string | undefined, count: number): Array<string | undefined> {
  return Array.from({ length: count }, () => book.take(publicKey, ANY)?.scenario);
}

describe('adding', () => {
  it('keeps what was asked for, with a new id and the time it was added', () => {
    const book = new OverrideBook();
    const first = book.add({ scenario: 'card-declined', publicKey: MINE, times: 2 }, NOW);
    const second = book.add({ delay: { ms: 300 }, fault: 'hang' }, '2025-03-14T09:21:00.000Z');
    expect(first).toEqual({ id: expect.any(String), scenario: 'card-declined', publicKey: MINE, times: 2, createdAt: NOW });
    expect(second).toEqual({ id: expect.any(String), delay: { ms: 300 }, fault: 'hang', createdAt: '2025-03-14T09:21:00.000Z' });
    expect(first.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(second.id).not.toBe(first.id);
  });
});

describe('listing', () => {
  const book = new OverrideBook();
  book.add({ scenario: 'global-1' }, NOW);
  book.add({ scenario: 'mine-1', publicKey: MINE }, NOW);
  book.add({ scenario: 'theirs-1', publicKey: THEIRS }, NOW);
  book.add({ scenario: 'mine-2', publicKey: MINE }, NOW);

  it('lists every override in the order they were added', () => {
    expect(scenarios(book.list())).toEqual(['global-1', 'mine-1', 'theirs-1', 'mine-2']);
  });

  it("lists one merchant's own, and with the sandbox-wide ones when asked", () => {
    expect(scenarios(book.list(MINE))).toEqual(['mine-1', 'mine-2']);
    expect(scenarios(book.list(MINE, true))).toEqual(['global-1', 'mine-1', 'mine-2']);
    expect(scenarios(book.list('SBTESTPUBK_nobody000003'))).toEqual([]);
    expect(scenarios(book.list('SBTESTPUBK_nobody000003', true))).toEqual(['global-1']);
  });

  it('hands out a list of its own: changing it changes nothing in the book', () => {
    book.list().length = 0;
    book.list(MINE).pop();
    expect(book.list()).toHaveLength(4);
  });
});

describe('taking the override for a request', () => {
  it("tries the merchant's own, newest first, then the sandbox-wide ones, newest first", () => {
    const book = new OverrideBook();
    book.add({ scenario: 'global-old' }, NOW);
    book.add({ scenario: 'mine-old', publicKey: MINE }, NOW);
    book.add({ scenario: 'global-new' }, NOW);
    book.add({ scenario: 'theirs', publicKey: THEIRS }, NOW);
    book.add({ scenario: 'mine-new', publicKey: MINE }, NOW);
    const tried: Array<string | undefined> = [];
    expect(book.take(MINE, (override) => (tried.push(override.scenario), false))).toBeUndefined();
    expect(tried).toEqual(['mine-new', 'mine-old', 'global-new', 'global-old']);
    expect(book.take(MINE, ANY)?.scenario).toBe('mine-new');
  });

  it('takes the first that applies, and skips the others without counting them', () => {
    const book = new OverrideBook();
    book.add({ scenario: 'global', times: 1 }, NOW);
    book.add({ scenario: 'refund-only', publicKey: MINE, times: 1 }, NOW);
    const taken = book.take(MINE, (override) => override.scenario !== 'refund-only');
    expect(taken?.scenario).toBe('global');
    expect(scenarios(book.list())).toEqual(['refund-only']);
    expect(book.list()[0]!.times).toBe(1);
  });

  it('gives a request without a merchant the sandbox-wide ones only', () => {
    const book = new OverrideBook();
    book.add({ scenario: 'mine', publicKey: MINE }, NOW);
    expect(book.take(undefined, ANY)).toBeUndefined();
    book.add({ scenario: 'global' }, NOW);
    expect(book.take(undefined, ANY)?.scenario).toBe('global');
  });

  it("never gives a merchant another merchant's override", () => {
    const book = new OverrideBook();
    book.add({ scenario: 'theirs', publicKey: THEIRS }, NOW);
    expect(book.take(MINE, ANY)).toBeUndefined();
    expect(book.take(THEIRS, ANY)?.scenario).toBe('theirs');
  });

  it('returns nothing from an empty book', () => {
    expect(new OverrideBook().take(MINE, ANY)).toBeUndefined();
  });
});

describe('how long an override lasts', () => {
  it('with times, counts down the requests left and is removed once spent', () => {
    const book = new OverrideBook();
    const override = book.add({ scenario: 'twice', publicKey: MINE, times: 2 }, NOW);
    expect(book.take(MINE, ANY)?.id).toBe(override.id);
    expect(book.list(MINE)).toEqual([{ ...override, times: 1 }]);
    expect(book.take(MINE, ANY)?.id).toBe(override.id);
    expect(book.list()).toEqual([]);
    expect(book.take(MINE, ANY)).toBeUndefined();
  });

  it('a spent override lets the next one through: the older one of the merchant, then the sandbox-wide one', () => {
    const book = new OverrideBook();
    book.add({ scenario: 'global' }, NOW);
    book.add({ scenario: 'mine-old', publicKey: MINE, times: 1 }, NOW);
    book.add({ scenario: 'mine-new', publicKey: MINE, times: 2 }, NOW);
    expect(takeTimes(book, MINE, 5)).toEqual(['mine-new', 'mine-new', 'mine-old', 'global', 'global']);
  });

  it('without times, it is sticky: it stays until removed', () => {
    const book = new OverrideBook();
    const sticky = book.add({ fault: 'drop-connection' }, NOW);
    for (let request = 0; request < 5; request += 1) expect(book.take(MINE, ANY)?.id).toBe(sticky.id);
    expect(book.list()).toEqual([sticky]);
  });
});

describe('removal', () => {
  it('removes one override by id, and says whether there was one', () => {
    const book = new OverrideBook();
    const first = book.add({ scenario: 'first' }, NOW);
    book.add({ scenario: 'second' }, NOW);
    expect(book.remove(first.id)).toBe(true);
    expect(book.remove(first.id)).toBe(false);
    expect(book.remove('no-such-id')).toBe(false);
    expect(scenarios(book.list())).toEqual(['second']);
  });

  it("clear(publicKey) removes that merchant's only; clear() removes every one", () => {
    const book = new OverrideBook();
    book.add({ scenario: 'global' }, NOW);
    book.add({ scenario: 'mine', publicKey: MINE }, NOW);
    book.add({ scenario: 'theirs', publicKey: THEIRS }, NOW);
    book.clear(MINE);
    expect(scenarios(book.list())).toEqual(['global', 'theirs']);
    book.clear();
    expect(book.list()).toEqual([]);
    expect(book.take(THEIRS, ANY)).toBeUndefined();
  });
});
