/**
 * JSON text with parts that JSON.stringify cannot write: a number token
 * kept exactly as typed (`1e999`, `-0`, thirty digits), a key repeated, a
 * `__proto__` key. A hostile client writes bytes, not values.
 */

/** A piece of JSON text inserted as it is. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** An object written with its entries in order, a key possibly repeated (`__proto__` included). */
export class JsonEntries {
  constructor(readonly entries: Array<[string, unknown]>) {}
}

/** An object whose own enumerable keys include `name`, even `__proto__` (a literal would set the prototype instead). */
export function withKey(target: Record<string, unknown>, name: string, value: unknown): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [key, existing] of Object.entries(target)) Object.defineProperty(copy, key, { value: existing, enumerable: true, writable: true, configurable: true });
  Object.defineProperty(copy, name, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

/** Writes a value as JSON text; RawJson and JsonEntries are written as they say. */
export function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (value instanceof JsonEntries) return `{${value.entries.map(([key, entry]) => `${JSON.stringify(key)}:${toJsonText(entry)}`).join(',')}}`;
  if (Array.isArray(value)) return `[${value.map((entry) => (entry === undefined ? 'null' : toJsonText(entry))).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.entries(value)
      .filter(([, entry]) => entry !== undefined)
      .map(([key, entry]) => `${JSON.stringify(key)}:${toJsonText(entry)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
