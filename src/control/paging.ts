import { inputError } from '../errors.js';

/**
 * Bounded answers for the control API's lists (`GET /payments`, `/orders`,
 * `/requests`; control-api.yaml, "Paging"). A list answers at most `limit`
 * rows and, when more follow, an opaque `next` cursor naming the last row
 * answered. The next page starts right after that row, found again by its
 * key rather than by a position, so rows stored between two pages never make
 * a row appear twice or be skipped: a QA script can page while traffic runs.
 *
 * Only the rows of the page are turned into views: a page costs the same
 * whether the sandbox holds a hundred payments or a hundred thousand, but for
 * one copy of the store's row references.
 */

/** Rows a page holds when the request gives no `limit`. */
export const DEFAULT_LIMIT = 100;

/** The largest `limit` taken; beyond it, 400 INPUT. */
export const MAX_LIMIT = 1000;

/** What a list request asks for: how many rows, and after which one. */
export interface PageRequest {
  /** 1..MAX_LIMIT rows */
  limit: number;
  /** the `next` of the previous page, as the client sent it back; absent: the first page */
  cursor?: string;
}

/** A page of rows, and what a client needs to ask for the next one. */
export interface Page<T> {
  rows: T[];
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
 * @throws ApiError 400 INPUT when the cursor is not one this list handed out,
 *   names a merchant the list does not cover, or names a row no longer
 *   stored (its merchant was reset since)
 */
export function pageOfRows<T extends KeyedRow>(list: string, publicKeys: string[], rowsOf: (publicKey: string) => T[], request: PageRequest): Page<T> {
  // One copy of each merchant's row references; no row is read beyond the page.
  const groups = publicKeys.map(rowsOf);
  let total = 0;
  for (const rows of groups) total += rows.length;
  let group = 0;
  let index = 0;
  if (request.cursor !== undefined) {
    const after = rowCursor(list, request.cursor);
    group = publicKeys.indexOf(after.publicKey);
    if (group < 0) throw inputError(`cursor names merchant ${after.publicKey.slice(0, 100)}, which this list does not cover: page with the publicKey the cursor was handed out for`);
    const rows = groups[group]!;
    // The row is where it was unless a reset moved everything: look it up by its key then.
    const at = rows[after.index]?.paymentReference === after.paymentReference ? after.index : rows.findIndex((row) => row.paymentReference === after.paymentReference);
    if (at < 0) throw inputError(`cursor names ${list} row ${after.paymentReference.slice(0, 100)}, which is no longer stored (its merchant was reset): page again from the start, without cursor`);
    index = at + 1;
  }
  const rows: T[] = [];
  let lastIndex = -1;
  while (group < groups.length && rows.length < request.limit) {
    const candidates = groups[group]!;
    if (index < candidates.length) {
      rows.push(candidates[index]!);
      lastIndex = index;
      index += 1;
    } else {
      group += 1;
      index = 0;
    }
  }
  for (let following = group; following < groups.length; following += 1, index = 0) {
    if (index < groups[following]!.length) return { rows, total, next: encodeRow(list, rows.at(-1)!, lastIndex) };
  }
  return { rows, total };
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

interface RowCursor {
  publicKey: string;
  paymentReference: string;
  /** where the row stood among its merchant's rows: a hint that saves a search */
  index: number;
}

function encodeRow(list: string, row: KeyedRow, index: number): string {
  return encode([list, row.publicKey, row.paymentReference, index]);
}

function rowCursor(list: string, cursor: string): RowCursor {
  const value = decode(cursor);
  if (!Array.isArray(value) || value.length !== 4 || value[0] !== list) throw notOurs(list);
  const [, publicKey, paymentReference, index] = value as unknown[];
  if (typeof publicKey !== 'string' || typeof paymentReference !== 'string' || !Number.isSafeInteger(index) || (index as number) < 0) throw notOurs(list);
  return { publicKey, paymentReference, index: index as number };
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
