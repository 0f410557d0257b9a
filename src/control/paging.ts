import type { TextAnswer } from './operation.js';
import { createHash } from 'node:crypto';
import { inputError } from '../errors.js';

/**
 * Bounded answers for the control API's lists (`GET /payments`, `/orders`,
 * `/requests`, `/merchants`, `/overrides`; control-api.yaml, "Paging"). A
 * list answers at most `limit` rows, and no more than MAX_PAGE_BYTES of them
 * written as JSON; when more follow, an opaque `next` cursor naming the last
 * row answered. The next page starts right after that row, found again by
 * its key rather than by a position, so rows stored between two pages never
 * make a row appear twice or be skipped: a QA script can page while traffic
 * runs.
 *
 * Only the rows of the page are turned into views and written: a page costs
 * the same whether the sandbox holds a hundred payments or a hundred
 * thousand, but for one copy of the store's row references.
 */

/** Rows a page holds when the request gives no `limit`. */
export const DEFAULT_LIMIT = 100;

/** The largest `limit` taken; beyond it, 400 INPUT. */
export const MAX_LIMIT = 1000;

/**
 * The most bytes (UTF-8) the rows of one page take written as JSON: 4 MiB,
 * written in a few milliseconds (an unbounded page of 180 MB held every
 * other request for seconds).
 * A page stops before the row that would take it past this bound, and says
 * so with `next`, as a page cut by `limit` does; it always holds at least
 * one row, so that paging moves on (README, "Bounds").
 */
export const MAX_PAGE_BYTES = 4 * 1024 * 1024;

/** What a list request asks for: how many rows, and after which one. */
export interface PageRequest {
  /** 1..MAX_LIMIT rows */
  limit: number;
  /** the `next` of the previous page, as the client sent it back; absent: the first page */
  cursor?: string;
}

/** A page of rows written as JSON, and what a client needs to ask for the next one. */
export interface WrittenPage<T> {
  /** the rows of the page, in order */
  rows: T[];
  /** each row of `rows` written as JSON, in the same order */
  texts: string[];
  /** rows the whole list holds now, filters applied */
  total: number;
  /** the cursor of the page after this one; absent when no row follows */
  next?: string;
}

/** A stored row the store keys by merchant, then paymentReference: a payment or an order. */
export interface KeyedRow {
  publicKey: string;
  paymentReference: string;
}

/** How a row is written into a page: its JSON text (`JSON.stringify` of its view). */
export type RowWriter<T> = (row: T) => string;

/**
 * Reads `limit` and `cursor` from a parsed query string. The document's
 * schema refuses them first; this check stands for the handler's own safety.
 * @throws ApiError 400 INPUT naming `limit` when it is not a whole number in 1..MAX_LIMIT
 */
export function pageRequest(query: Record<string, unknown>): PageRequest {
  const raw = query.limit;
  let limit = DEFAULT_LIMIT;
  if (raw !== undefined) {
    limit = typeof raw === 'string' && /^[0-9]+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
      throw inputError(`limit must be a whole number from 1 to ${MAX_LIMIT}, not ${String(raw).slice(0, 100)}`);
    }
  }
  const cursor = typeof query.cursor === 'string' ? query.cursor : undefined;
  return { limit, cursor };
}

/**
 * One page of the rows of several merchants, listed merchant after merchant
 * in `publicKeys` order and each merchant's rows in the store's order
 * (oldest first; a replaced row keeps its place).
 * @param list     which list the cursor belongs to (`payments`, `orders`): a cursor of one is refused by the other
 * @param publicKeys the merchants listed, in order: every merchant, or the one the request names
 * @param rowsOf   a merchant's rows, oldest first (`store.payments`, `store.orders`)
 * @param write    a row's JSON text, as the answer carries it
 * @param walk     the filters a row must pass and the order (the exact reverse with `newest`); absent: every row, oldest first
 * @throws ApiError 400 INPUT when the cursor is not one this list handed out,
 *   was handed out for other filters or another order, names a merchant the
 *   list does not cover, or names a row no longer stored (its merchant was
 *   reset since)
 */
export function pageOfRows<T extends KeyedRow>(list: string, publicKeys: string[], rowsOf: (publicKey: string) => readonly T[], request: PageRequest, write: RowWriter<T>, walk: RowWalk<T> = {}): WrittenPage<T> {
  return pageOfGroups(list, publicKeys, rowsOf, (row) => row.paymentReference, request, write, walk);
}

/**
 * Which rows of a keyed list a page takes, and in which order
 * (GET /payments' filters and `order`; docs/decisions.md#d82-list-filters).
 */
export interface RowWalk<T> {
  /** the filters, combined: a row is listed when this holds; absent: every row */
  matches?: (row: T) => boolean;
  /** true: the exact reverse of the list's order (merchants last seen first, each merchant's newest first) */
  newest?: boolean;
  /**
   * the filters and order as text, the same for the same request (empty or
   * absent: none, oldest first). A cursor carries a digest of it and is
   * refused with another: its position means nothing in another walk.
   */
  filters?: string;
}

/**
 * One page of a list of rows with a key of their own (the merchants by
 * public key), in the list's order.
 * @param list  which list the cursor belongs to (`merchants`)
 * @param rows  the whole list, filters applied, in its order
 * @param keyOf a row's key, unique in the list
 * @throws ApiError 400 INPUT when the cursor is not one this list handed out,
 *   or names a row no longer listed
 */
export function pageOfList<T>(list: string, rows: readonly T[], keyOf: (row: T) => string, request: PageRequest, write: RowWriter<T>): WrittenPage<T> {
  return pageOfGroups(list, [''], () => rows, keyOf, request, write);
}

/**
 * One page of a list ordered by a number that only grows (the overrides'
 * sequence, the journal's ids, the deliveries' sequence), from the row
 * after the cursor's on.
 * @param list     which list the cursor belongs to
 * @param rowsFrom the rows whose number comes after `after` (all for 0), in the list's order
 * @param numberOf a row's number
 * @throws ApiError 400 INPUT when the cursor is not one this list handed out
 */
export function pageOfSequence<T>(list: string, rowsFrom: (after: number) => Iterable<T>, numberOf: (row: T) => number, total: number, request: PageRequest, write: RowWriter<T>): WrittenPage<T> {
  const after = request.cursor === undefined ? 0 : cursorSequence(list, request.cursor);
  const { rows, texts, more } = fill(rowsFrom(after)[Symbol.iterator](), request.limit, write);
  return { rows, texts, total, next: more ? sequenceCursor(list, numberOf(rows.at(-1)!)) : undefined };
}

/**
 * Takes rows in order until the page holds `limit` of them, or the next one
 * would take their JSON text past MAX_PAGE_BYTES (the first row is always
 * taken). Reads one row beyond the page to know whether any follows.
 * @returns the rows taken and their texts; `more` when a row was left for the next page
 */
export function fill<T>(candidates: Iterator<T>, limit: number, write: RowWriter<T>): { rows: T[]; texts: string[]; more: boolean } {
  const rows: T[] = [];
  const texts: string[] = [];
  let bytes = 0;
  for (let step = candidates.next(); step.done !== true; step = candidates.next()) {
    if (rows.length === limit) return { rows, texts, more: true };
    const text = write(step.value);
    // The comma between rows counts too: the bound is on the text a client reads.
    const size = Buffer.byteLength(text) + 1;
    if (rows.length > 0 && bytes + size > MAX_PAGE_BYTES) return { rows, texts, more: true };
    rows.push(step.value);
    texts.push(text);
    bytes += size;
  }
  return { rows, texts, more: false };
}

/**
 * The JSON text of a list answer: `fields` (`total`, `limit`, `next`, ...;
 * undefined ones left out), then the rows, already written, under `list`.
 * Rows are written once, when the page is filled, and never again.
 */
export function pageBody(fields: Record<string, unknown>, list: string, texts: readonly string[]): string {
  const head = JSON.stringify(fields);
  return `${head.slice(0, -1)}${head === '{}' ? '' : ','}${JSON.stringify(list)}:[${texts.join(',')}]}`;
}

/** A list answer whose rows are already written as JSON (pageBody): they are not written a second time. */
export function pageAnswer(fields: Record<string, unknown>, list: string, texts: readonly string[]): TextAnswer {
  return { status: 200, type: 'application/json; charset=utf-8', text: pageBody(fields, list, texts) };
}

/**
 * The cursor of the journal page that follows an entry: the journal lists
 * newest first, and ids only grow, so "older than this id" stays right
 * while requests keep arriving.
 */
export function journalCursor(id: number): string {
  return sequenceCursor('requests', id);
}

/** The cursor of the page that follows the row numbered `sequence` of a list ordered by a number that only grows (the journal's ids, the deliveries' sequence). */
export function sequenceCursor(list: string, sequence: number): string {
  return encode([list, sequence]);
}

/**
 * The number a cursor of `sequenceCursor` names.
 * @throws ApiError 400 INPUT when the cursor is not one `GET /__sandbox/<list>` handed out
 */
export function cursorSequence(list: string, cursor: string): number {
  const value = decode(cursor);
  if (Array.isArray(value) && value.length === 2 && value[0] === list && Number.isSafeInteger(value[1]) && (value[1] as number) >= 1) return value[1] as number;
  throw notOurs(list);
}

/**
 * The id a journal cursor names: the next page holds the entries with
 * smaller ids.
 * @throws ApiError 400 INPUT when the cursor is not one `GET /requests` handed out
 */
export function journalCursorId(cursor: string): number {
  return cursorSequence('requests', cursor);
}

// Rows in groups (a merchant's payments), groups in order; a cursor names the group and the row's key.
// Filters are applied while walking the stored rows, and a cursor names a stored row and its place among
// all of its group's rows, not among the matching ones: a row that stops matching between two pages
// (a payment settled) still marks where the next page starts.
function pageOfGroups<T>(
  list: string,
  groupKeys: string[],
  rowsOf: (group: string) => readonly T[],
  keyOf: (row: T) => string,
  request: PageRequest,
  write: RowWriter<T>,
  walk: RowWalk<T> = {},
): WrittenPage<T> {
  const { matches, newest = false } = walk;
  const digest = walk.filters ? filtersDigest(walk.filters) : undefined;
  const keys = newest ? [...groupKeys].reverse() : groupKeys;
  // One copy of each group's row references; no row is written beyond the page.
  const groups = keys.map(rowsOf);
  let total = 0;
  for (const rows of groups) {
    if (matches === undefined) total += rows.length;
    else for (const row of rows) if (matches(row)) total += 1;
  }
  const step = newest ? -1 : 1;
  const first = (rows: readonly T[]) => (newest ? rows.length - 1 : 0);
  let group = 0;
  let index = groups.length > 0 ? first(groups[0]!) : 0;
  if (request.cursor !== undefined) {
    const after = rowCursor(list, request.cursor);
    if (after.filters !== digest) throw inputError(`cursor was handed out for other filters or another order: send the same status, method, code, q, from, to and order as for the page it came with, or no cursor to start again`);
    group = keys.indexOf(after.group);
    if (group < 0) throw inputError(`cursor names merchant ${after.group.slice(0, 100)}, which this list does not cover: page with the publicKey the cursor was handed out for`);
    const rows = groups[group]!;
    // The row is where it was unless a reset moved everything: look it up by its key then.
    const at = rows[after.index] !== undefined && keyOf(rows[after.index]!) === after.key ? after.index : rows.findIndex((row) => keyOf(row) === after.key);
    if (at < 0) throw inputError(`cursor names ${list} row ${after.key.slice(0, 100)}, which is no longer stored (its merchant was reset): page again from the start, without cursor`);
    index = at + step;
  }
  const positions: Array<[number, number]> = [];
  function* from(): Generator<T> {
    for (; group < groups.length; group += 1, index = group < groups.length ? first(groups[group]!) : 0) {
      const rows = groups[group]!;
      for (; index >= 0 && index < rows.length; index += step) {
        const row = rows[index]!;
        if (matches !== undefined && !matches(row)) continue;
        positions.push([group, index]);
        yield row;
      }
    }
  }
  const page = fill(from(), request.limit, write);
  if (!page.more) return { rows: page.rows, texts: page.texts, total };
  const [lastGroup, lastIndex] = positions[page.rows.length - 1]!;
  const cursor: unknown[] = [list, keys[lastGroup]!, keyOf(page.rows.at(-1)!), lastIndex];
  if (digest !== undefined) cursor.push(digest);
  return { rows: page.rows, texts: page.texts, total, next: encode(cursor) };
}

// A short digest of a walk's filters: enough to tell two sets apart, and it keeps the cursor short.
function filtersDigest(filters: string): string {
  return createHash('sha256').update(filters).digest('base64url').slice(0, 12);
}

interface RowCursor {
  /** the merchant of the row (payments, orders); empty for a list without groups */
  group: string;
  key: string;
  /** where the row stood in its group: a hint that saves a search */
  index: number;
  /** the digest of the filters and order the cursor was handed out for; absent: none, oldest first */
  filters?: string;
}

function rowCursor(list: string, cursor: string): RowCursor {
  const value = decode(cursor);
  // Four items: a cursor of the plain list, as it always was; a fifth names the filters.
  if (!Array.isArray(value) || (value.length !== 4 && value.length !== 5) || value[0] !== list) throw notOurs(list);
  const [, group, key, index, filters] = value as unknown[];
  if (typeof group !== 'string' || typeof key !== 'string' || !Number.isSafeInteger(index) || (index as number) < 0) throw notOurs(list);
  if (value.length === 5 && typeof filters !== 'string') throw notOurs(list);
  return { group, key, index: index as number, filters: filters as string | undefined };
}

// base64url of JSON: safe in a query string as it is, and opaque enough that
// no client builds one by hand and comes to depend on its inside.
function encode(value: unknown[]): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function decode(cursor: string): unknown {
  try {
    return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

const notOurs = (list: string) => inputError(`cursor is not one GET /__sandbox/${list} handed out: pass the next of the previous page as it was, or no cursor for the first page`);
