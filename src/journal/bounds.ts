import { redactHeaders, redactText } from '../redaction/redact.js';
import { redactMeasured, redactValue } from '../redaction/value.js';

/**
 * What the journal keeps of one request, bounded: whatever a client sends
 * (a 1 MB body, a body nested 10,000 levels deep, a huge header), an entry
 * stays small, can always be rendered back as JSON, and holds no credential
 * or card number (README, "The journal").
 */

/** The longest body kept whole: the length in bytes of its JSON text. */
export const BODY_MAX_BYTES = 16 * 1024;

/** Levels of objects and arrays kept in a body (the body itself is level 0). */
export const BODY_MAX_DEPTH = 32;

/** The longest header value, query value or path kept, in characters. */
export const TEXT_MAX = 2048;

/** The longest publicKey or paymentReference kept, in characters. */
export const NAME_MAX = 256;

/** How many headers, query parameters or warnings are kept. */
export const LIST_MAX = 64;

/**
 * The marker that stands in for a body, or part of one, the journal did not
 * keep whole (control-api.yaml, `Truncated`): `size` for a body whose JSON
 * text is longer than BODY_MAX_BYTES (`bytes` its full length, `head` its
 * start), `depth` for a value nested BODY_MAX_DEPTH levels deep.
 */
export interface Truncated {
  _truncated: true;
  reason: 'size' | 'depth';
  /** size: the length in bytes (UTF-8) of the whole body as compact JSON, as received */
  bytes?: number;
  /** size: the first BODY_MAX_BYTES bytes of that text */
  head?: string;
  /** depth: the level at which the value was cut */
  depth?: number;
}

/**
 * A body as the journal keeps it: redacted, cut at BODY_MAX_DEPTH levels,
 * and replaced by a `size` marker when its JSON text is longer than
 * BODY_MAX_BYTES. Undefined stays undefined. A 1 MB body costs the redaction
 * of its first 16 KB only, and one native JSON.stringify for its size.
 */
export function boundBody(body: unknown): unknown {
  if (body === undefined) return undefined;
  const tooDeep = (depth: number): Truncated => ({ _truncated: true, reason: 'depth', depth });
  const { copy: redacted, characters } = redactMeasured(body, { maxDepth: BODY_MAX_DEPTH, tooDeep, stopAfter: BODY_MAX_BYTES });
  // A character is at most three bytes of UTF-8: a short copy is kept without being written out to measure it.
  if (characters * 3 <= BODY_MAX_BYTES) return redacted;
  const text = JSON.stringify(redacted);
  if (text === undefined) return undefined;
  const bytes = Buffer.byteLength(text);
  if (bytes <= BODY_MAX_BYTES) return redacted;
  // Past BODY_MAX_BYTES characters the copy was left unfinished: the whole body tells its size.
  const whole = text.length > BODY_MAX_BYTES ? byteLengthOf(body) : bytes;
  // The cut may split a digit run or a token: redact the head once more.
  const marker: Truncated = { _truncated: true, reason: 'size', bytes: Math.max(whole ?? 0, bytes), head: redactText(headOf(text, BODY_MAX_BYTES)) };
  return marker;
}

/**
 * Request headers as the journal keeps them: redacted (the credential
 * headers `[redacted]`), at most LIST_MAX of them, each value cut at TEXT_MAX
 * characters.
 */
export function boundHeaders(headers: Record<string, unknown>): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  let count = 0;
  for (const [name, value] of Object.entries(redactHeaders(headers))) {
    if (count++ === LIST_MAX) break;
    kept[cut(name, NAME_MAX)] = Array.isArray(value) ? value.slice(0, LIST_MAX).map((item) => cut(item, TEXT_MAX)) : cut(value, TEXT_MAX);
  }
  return kept;
}

/**
 * A query string (parsed) as the journal keeps it: redacted, at most
 * LIST_MAX parameters of at most LIST_MAX values, each cut at TEXT_MAX
 * characters; undefined when there is none.
 */
export function boundQuery(query: unknown): Record<string, string | string[]> | undefined {
  if (typeof query !== 'object' || query === null) return undefined;
  const entries = Object.entries(redactValue(query, { maxDepth: 3 }) as Record<string, unknown>).slice(0, LIST_MAX);
  if (entries.length === 0) return undefined;
  const text = (value: unknown) => cut(typeof value === 'string' ? value : JSON.stringify(value) ?? '', TEXT_MAX);
  return Object.fromEntries(entries.map(([name, value]) => [cut(name, NAME_MAX), Array.isArray(value) ? value.slice(0, LIST_MAX).map(text) : text(value)]));
}

/** A short string the journal keeps and filters on (path, publicKey, paymentReference): redacted and cut at `max`. */
export function boundName(text: string, max = NAME_MAX): string {
  return cut(redactText(text), max);
}

/** Warnings as the journal keeps them: at most LIST_MAX, each redacted and cut at TEXT_MAX. */
export function boundWarnings(warnings: string[] | undefined): string[] | undefined {
  return warnings?.slice(0, LIST_MAX).map((warning) => boundName(warning, TEXT_MAX));
}

// The length of a value as compact JSON in UTF-8; undefined when it is nested too deep to be written.
function byteLengthOf(value: unknown): number | undefined {
  try {
    return Buffer.byteLength(JSON.stringify(value));
  } catch {
    return undefined;
  }
}

// A cut string says how much is missing, so a reader does not take it for the whole.
function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…(${text.length - max} more characters)`;
}

// The first `bytes` bytes of `text` in UTF-8, without a character split in two.
function headOf(text: string, bytes: number): string {
  return Buffer.from(text.slice(0, bytes)).subarray(0, bytes).toString('utf8').replace(/\uFFFD$/, '');
}
