import { maskCardField, maskCardNumbers } from './card-numbers.js';
import { maskOfField } from './fields.js';
import { HIDDEN, redactText } from './redact.js';

/** How far `redactValue` goes, and what it puts where it stops. */
export interface RedactOptions {
  /** levels of objects and arrays kept (the value itself is level 0); default 64 */
  maxDepth?: number;
  /** what replaces an object or array at level `maxDepth`; default the string `[nested too deep]` */
  tooDeep?: (depth: number) => unknown;
  /**
   * characters of JSON text after which nothing more is copied: the copy's
   * JSON text then starts exactly as the whole value's would, and ends early;
   * default no limit
   */
  stopAfter?: number;
}

/**
 * A redacted copy of a JSON value (a parsed body, a query): strings and
 * property names go through `redactText`, a number that is a card number
 * becomes its masked string; fields masked by name (any case, any depth:
 * src/redaction/fields.ts) are masked whatever their value: a card number field
 * keeps its BIN and last four even when it fails the Luhn check (`***` when
 * it is not digits), a CVV, PIN or OTP field is `***`. The input is not changed.
 *
 * It never recurses deeper than `maxDepth`, so a body nested 10,000 levels
 * deep cannot overflow the stack of whoever renders the copy; with
 * `stopAfter`, a huge body costs no more than the part of it that is kept.
 */
export function redactValue(value: unknown, options: RedactOptions = {}): unknown {
  return redactMeasured(value, options).copy;
}

/**
 * `redactValue`, and the length of the copy's JSON text in characters (UTF-16
 * code units, as JSON.stringify writes them; counted as it is built), so that
 * a caller that bounds the text need not write it out to measure it.
 */
export function redactMeasured(value: unknown, options: RedactOptions = {}): { copy: unknown; characters: number } {
  const maxDepth = options.maxDepth ?? 64;
  const tooDeep = options.tooDeep ?? (() => '[nested too deep]');
  const stopAfter = options.stopAfter ?? Number.POSITIVE_INFINITY;
  // Characters of JSON text the copy holds so far, counted exactly as JSON.stringify writes them.
  let written = 0;
  const scalar = (node: unknown): unknown => {
    written += jsonLength(node);
    return node;
  };
  const walk = (node: unknown, depth: number): unknown => {
    if (typeof node === 'string') return scalar(redactText(node));
    if (typeof node === 'number') {
      // Below 12 digits no number can be a card number.
      if (Math.abs(node) < 1e11 && Number.isInteger(node)) return scalar(node);
      const text = String(node);
      const masked = maskCardNumbers(text);
      return scalar(masked === text ? node : masked);
    }
    // JSON has no bigint: its digits are written as a string.
    if (typeof node === 'bigint') return scalar(maskCardNumbers(String(node)));
    if (typeof node !== 'object' || node === null) return scalar(node);
    // Dates and the like are written as their JSON form.
    const plain = typeof (node as { toJSON?: unknown }).toJSON === 'function' ? (node as { toJSON: () => unknown }).toJSON() : node;
    if (plain !== node) return walk(plain, depth);
    if (depth >= maxDepth) return scalar(tooDeep(depth));
    written += 2;
    if (Array.isArray(node)) {
      const copy: unknown[] = [];
      for (const item of node) {
        if (written > stopAfter) break;
        if (copy.length > 0) written += 1;
        copy.push(walk(item, depth + 1));
      }
      return copy;
    }
    const copy: Record<string, unknown> = {};
    let first = true;
    for (const name of Object.keys(node)) {
      const field = (node as Record<string, unknown>)[name];
      // JSON leaves such fields out; so does the copy.
      if (field === undefined || typeof field === 'function' || typeof field === 'symbol') continue;
      if (written > stopAfter) break;
      const key = redactText(name);
      written += jsonLength(key) + (first ? 1 : 2);
      first = false;
      const mask = maskOfField(name);
      const kept = mask === undefined ? walk(field, depth + 1) : scalar(mask === 'card' ? maskCardField(field, HIDDEN) : HIDDEN);
      // A `__proto__` field stays a plain field, as JSON.parse made it.
      if (key === '__proto__') Object.defineProperty(copy, key, { value: kept, enumerable: true, writable: true, configurable: true });
      else copy[key] = kept;
    }
    return copy;
  };
  const copy = walk(value, 0);
  return { copy, characters: written };
}

// Characters that JSON.stringify writes escaped (lone surrogates among the surrogates).
const ESCAPED = /[\u0000-\u001f"\\\ud800-\udfff]/;

// The length of a scalar's JSON text, without writing it where a string needs no escape.
function jsonLength(node: unknown): number {
  if (typeof node === 'string' && !ESCAPED.test(node)) return node.length + 2;
  if (typeof node === 'number') return Number.isFinite(node) ? String(node).length : 4;
  return node === undefined ? 4 : (JSON.stringify(node)?.length ?? 4);
}
