import { boundBody, boundHeaders, boundName, boundQuery, boundWarnings, TEXT_MAX } from './bounds.js';

/**
 * The request journal: the last Payments API requests with their answers,
 * newest first, bounded both in entries (`--journal-size`) and in bytes
 * (`--journal-max-mb`), so a sandbox can run for weeks in the same memory
 * whatever its clients send (README, "The journal"; WireMock's unbounded
 * journal is the counter-example).
 */

/** One journalled request, as the control API shows it: bounded and redacted (src/journal/bounds.ts). */
export interface JournalEntry {
  id: number;
  /** ISO 8601 UTC time the request arrived */
  time: string;
  method: string;
  path: string;
  publicKey?: string;
  paymentReference?: string;
  /** the operationId, when the path is one of the API's */
  operation?: string;
  /** HTTP status; 0 when no answer was sent (a fault) */
  status: number;
  /** the rule that decided the answer (the X-Sandbox-Scenario header) */
  scenario?: string;
  /** why the payment refused what was asked (X-Sandbox-Reason), when it did */
  reason?: string;
  fault?: string;
  /** what the request needed beyond the spec's types (X-Sandbox-Warnings; README, "Accepted beyond the spec") */
  warnings?: string[];
  durationMs: number;
  request: { headers: Record<string, unknown>; query?: Record<string, unknown>; body?: unknown };
  response?: { body?: unknown };
}

/** A class of HTTP statuses, as a journal filter: `4xx` is 400 to 499. */
export type StatusClass = '1xx' | '2xx' | '3xx' | '4xx' | '5xx';

/** What a journal query may filter on; the filters combine with AND. */
export interface JournalQuery {
  path?: string;
  publicKey?: string;
  paymentReference?: string;
  /** the HTTP status answered, exact (0: no answer, a fault), or its class (`4xx`; docs/decisions.md#d82-list-filters) */
  status?: number | StatusClass;
  /** the name of the catalogue rule that decided the answer, exact */
  scenario?: string;
  limit?: number;
}

// An entry is held as its JSON text: its size is then known exactly, and
// reading it back can never meet anything JSON cannot render.
interface Held {
  id: number;
  /** epoch ms the request arrived */
  timeMs: number;
  path: string;
  publicKey?: string;
  paymentReference?: string;
  status: number;
  scenario?: string;
  text: string;
  bytes: number;
}

/** The journal's memory bound when none is given: 32 MiB (`--journal-max-mb 32`). */
export const DEFAULT_JOURNAL_MAX_BYTES = 32 * 1024 * 1024;

/** Bytes charged per entry beside its text: the held record and its filter fields. */
const ENTRY_OVERHEAD = 256;

const EVICTED: Held = { id: 0, timeMs: 0, path: '', status: 0, text: '', bytes: 0 };

/** A journal bounded in entries and in bytes; the oldest entries go first. */
export class Journal {
  private held: Held[] = [];
  // held[0 .. start) are evicted slots, dropped in one go now and then.
  private start = 0;
  private lastId = 0;
  private total = 0;
  private droppedCount = 0;
  // The latest arrival (epoch ms) of an entry let go of, by the bounds or a clear; the journal's start before any.
  private forgottenMs: number;

  /**
   * @param capacity how many entries are kept at most (`--journal-size`)
   * @param maxBytes how many bytes the entries may take together (`--journal-max-mb`);
   *   the newest entry is kept even when it alone is larger
   * @throws RangeError when capacity is not a whole number of at least 1, or maxBytes not a finite positive number
   */
  constructor(
    readonly capacity: number,
    readonly maxBytes = DEFAULT_JOURNAL_MAX_BYTES,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`the journal size must be a whole number of at least 1, not ${capacity}`);
    if (!Number.isFinite(maxBytes) || maxBytes <= 0) throw new RangeError(`the journal's memory bound must be a positive number of bytes, not ${maxBytes}`);
    // Nothing that arrived before the journal existed is in it: a millisecond earlier, as a request may arrive in the same one.
    this.forgottenMs = Date.now() - 1;
  }

  /**
   * A time (epoch ms, real time) after which every request that arrived is
   * still held: no entry that arrived later was let go of, by the bounds or
   * a clear, and the journal did not exist before it (a store file's payments
   * may be older). GET /__sandbox/payments/{paymentReference}/story tells by
   * it whether a payment's requests are all there (docs/decisions.md#d79-payment-history).
   */
  get completeAfterMs(): number {
    return this.forgottenMs;
  }

  /**
   * Records an entry (its id is assigned here), bounded and redacted, then
   * drops the oldest entries beyond `capacity` or `maxBytes`.
   * @returns the entry as it is kept
   */
  record(entry: Omit<JournalEntry, 'id'>): JournalEntry {
    const [kept, text] = this.keep(entry);
    this.onRecord?.(kept, text);
    return kept;
  }

  /**
   * Called with each entry `record` keeps, and its JSON text (not with those `receive` adds): on a
   * shared store, how the other replicas get it (docs/decisions.md#d84-shared-store). Absent: nobody listens.
   */
  onRecord?: (entry: JournalEntry, text: string) => void;

  /**
   * Adds an entry another replica recorded, bounded and numbered as one recorded here, without telling `onRecord`.
   * @param entry as the other replica kept it; its `id` there is not kept
   */
  receive(entry: JournalEntry): void {
    const { id: _theirs, ...rest } = entry;
    this.keep(rest);
  }

  // The entry as kept, and its JSON text (kept too, and what a shared store sends).
  private keep(entry: Omit<JournalEntry, 'id'>): [JournalEntry, string] {
    const kept = keptForm({ id: ++this.lastId, ...entry });
    const text = JSON.stringify(kept);
    // V8 keeps a string with any character beyond Latin-1 at two bytes a character.
    const bytes = text.length * (/[^\u0000-\u00ff]/.test(text) ? 2 : 1) + ENTRY_OVERHEAD;
    // A time that does not parse counts as now: later, never earlier, than the request arrived.
    const arrived = Date.parse(kept.time);
    this.held.push({ id: kept.id, timeMs: Number.isNaN(arrived) ? Date.now() : arrived, path: kept.path, publicKey: kept.publicKey, paymentReference: kept.paymentReference, status: kept.status, scenario: kept.scenario, text, bytes });
    this.total += bytes;
    while (this.count > this.capacity || (this.total > this.maxBytes && this.count > 1)) {
      this.total -= this.held[this.start]!.bytes;
      this.forgottenMs = Math.max(this.forgottenMs, this.held[this.start]!.timeMs);
      // The slot lets go of the entry at once; the array itself is compacted now and then.
      this.held[this.start++] = EVICTED;
      this.droppedCount += 1;
    }
    if (this.start > 1024 && this.start * 2 > this.held.length) {
      this.held = this.held.slice(this.start);
      this.start = 0;
    }
    return [kept, text];
  }

  /**
   * How many held entries match, for a test's "the client called refund
   * exactly once" (WireMock's verify): the journal is bounded, so `dropped`
   * says how many entries it let go of since the start, which a count cannot see.
   */
  tally(filter: Omit<JournalQuery, 'limit'>): { count: number; dropped: number } {
    const matches = matcher(filter);
    let count = 0;
    for (let index = this.start; index < this.held.length; index += 1) if (matches(this.held[index]!)) count += 1;
    return { count, dropped: this.droppedCount };
  }

  /** How many entries are held now (at most `capacity`). */
  get count(): number {
    return this.held.length - this.start;
  }

  /** How many bytes the entries held take: the length of their JSON text, plus a fixed overhead each. */
  get bytes(): number {
    return this.total;
  }

  /** Entries newest first, filtered; `limit` caps how many. Filters compare with the redacted, cut values kept. */
  query(filter: JournalQuery = {}): JournalEntry[] {
    const matches = matcher(filter);
    const found: JournalEntry[] = [];
    for (let index = this.held.length - 1; index >= this.start; index -= 1) {
      const entry = this.held[index]!;
      if (!matches(entry)) continue;
      found.push(JSON.parse(entry.text) as JournalEntry);
      if (filter.limit !== undefined && found.length >= filter.limit) break;
    }
    return found;
  }

  /**
   * One page of the entries, newest first, filtered as `query` filters: at
   * most `limit` entries with an id below `before` (all, without it). Only
   * the entries of the page are read back from their text.
   * @param limit at least 1
   * @param before an id: the page starts at the newest entry older than it
   * @returns the entries; `total`, how many entries match the filters in the
   *   whole journal; `more`, whether an older matching entry follows the page
   */
  page(filter: Omit<JournalQuery, 'limit'>, limit: number, before?: number): { entries: JournalEntry[]; total: number; more: boolean } {
    const matches = matcher(filter);
    const filtered = filter.path !== undefined || filter.publicKey !== undefined || filter.paymentReference !== undefined || filter.status !== undefined || filter.scenario !== undefined;
    let total = this.count;
    if (filtered) {
      total = 0;
      for (let index = this.start; index < this.held.length; index += 1) if (matches(this.held[index]!)) total += 1;
    }
    const entries: JournalEntry[] = [];
    for (let index = before === undefined ? this.held.length - 1 : this.below(before); index >= this.start; index -= 1) {
      const entry = this.held[index]!;
      if (!matches(entry)) continue;
      if (entries.length === limit) return { entries, total, more: true };
      entries.push(JSON.parse(entry.text) as JournalEntry);
    }
    return { entries, total, more: false };
  }

  // The index of the newest entry with an id below `id`; start - 1 when none.
  // Ids grow with the index (eviction and clearing keep the order), so a binary search does.
  private below(id: number): number {
    let low = this.start;
    let high = this.held.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.held[middle]!.id < id) low = middle + 1;
      else high = middle;
    }
    return low - 1;
  }

  /** Forgets the entries of one merchant, or all. */
  clear(publicKey?: string): void {
    const key = publicKey === undefined ? undefined : boundName(publicKey);
    for (let index = this.start; index < this.held.length; index += 1) {
      const entry = this.held[index]!;
      if (key === undefined || entry.publicKey === key) this.forgottenMs = Math.max(this.forgottenMs, entry.timeMs);
    }
    this.held = key === undefined ? [] : this.held.slice(this.start).filter((entry) => entry.publicKey !== key);
    this.start = 0;
    this.total = this.held.reduce((sum, entry) => sum + entry.bytes, 0);
  }
}

// Filters compare with the redacted, cut values the journal keeps: a filter written as the client sent it finds what was kept of it.
function matcher(filter: JournalQuery): (entry: Held) => boolean {
  const path = filter.path === undefined ? undefined : boundName(filter.path, TEXT_MAX);
  const publicKey = filter.publicKey === undefined ? undefined : boundName(filter.publicKey);
  const paymentReference = filter.paymentReference === undefined ? undefined : boundName(filter.paymentReference);
  const { status, scenario } = filter;
  // A class is a range of a hundred: 4xx is 400 to 499.
  const lowest = typeof status === 'string' ? Number(status[0]) * 100 : status;
  const highest = typeof status === 'string' ? lowest! + 99 : status;
  return (entry) =>
    (path === undefined || entry.path === path) &&
    (publicKey === undefined || entry.publicKey === publicKey) &&
    (paymentReference === undefined || entry.paymentReference === paymentReference) &&
    (status === undefined || (entry.status >= lowest! && entry.status <= highest!)) &&
    (scenario === undefined || entry.scenario === scenario);
}

// Every field a client could make large or fill with secrets is bounded and redacted here, the one way in.
function keptForm(entry: JournalEntry): JournalEntry {
  return {
    ...entry,
    path: boundName(entry.path, TEXT_MAX),
    publicKey: entry.publicKey === undefined ? undefined : boundName(entry.publicKey),
    paymentReference: entry.paymentReference === undefined ? undefined : boundName(entry.paymentReference),
    // It quotes a paymentReference, which a client chose: bounded and redacted like one.
    reason: entry.reason === undefined ? undefined : boundName(entry.reason, TEXT_MAX),
    warnings: boundWarnings(entry.warnings),
    request: { headers: boundHeaders(entry.request.headers), query: boundQuery(entry.request.query), body: boundBody(entry.request.body) },
    response: entry.response === undefined ? undefined : { body: boundBody(entry.response.body) },
  };
}

export { hideExchangeKey, hideIssuedTokens, maskResponse } from './masks.js';
