/**
 * How an answer of the sandbox differs from the provider's example of it, as
 * short records that a table of known differences can list one by one.
 */

/** What is compared between the two answers. */
export type Aspect = 'status' | 'code' | 'payments fields' | 'products fields' | 'subscriptions fields' | 'error fields';

/** A value of an aspect: a status, a result code, a sorted list of field names, or null where the answer has none. */
export type AspectValue = number | string | string[] | null;

/** One way the sandbox answered a case otherwise than the provider documents. */
export interface Difference {
  case: string;
  aspect: Aspect;
  provider: AspectValue;
  sandbox: AspectValue;
}

/** A known difference: the record, and why it is accepted (or `TODO`). */
export interface KnownDifference extends Difference {
  reason: string;
}

/** An answer as both sides give it: an HTTP status and a JSON body. */
export interface Answer {
  status: number;
  body: unknown;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const fieldsOf = (value: unknown): string[] | null => (isObject(value) ? Object.keys(value).sort() : null);

/**
 * The value of each aspect of an answer. Field names are compared as sets,
 * because a client reads fields by name and never by position; `products`
 * and a list of `subscriptions` give the union over their items, since items
 * of one list may differ.
 */
export function aspectsOf(answer: Answer): Record<Aspect, AspectValue> {
  const data = isObject(answer.body) ? answer.body.data : undefined;
  const products = isObject(data) && Array.isArray(data.products) ? data.products : undefined;
  const unionOfFields = (value: unknown): string[] | null =>
    Array.isArray(value) ? [...new Set(value.flatMap((item) => fieldsOf(item) ?? []))].sort() : fieldsOf(value);
  return {
    status: answer.status,
    code: isObject(data) && data.code !== undefined ? String(data.code) : null,
    'payments fields': isObject(data) ? fieldsOf(data.payments) : null,
    'products fields': products ? [...new Set(products.flatMap((item) => fieldsOf(item) ?? []))].sort() : null,
    // One subscription is an object (by billingId), several a list (by publicKey or customerId).
    'subscriptions fields': isObject(data) && data.subscriptions !== undefined ? unionOfFields(data.subscriptions) : null,
    'error fields': answer.status >= 400 ? fieldsOf(answer.body) : null,
  };
}

/** Every aspect in which `sandbox` answers otherwise than `provider`, in the order of `Aspect`. */
export function differencesBetween(caseName: string, provider: Answer, sandbox: Answer): Difference[] {
  const expected = aspectsOf(provider);
  const actual = aspectsOf(sandbox);
  return (Object.keys(expected) as Aspect[])
    .filter((aspect) => JSON.stringify(expected[aspect]) !== JSON.stringify(actual[aspect]))
    .map((aspect) => ({ case: caseName, aspect, provider: expected[aspect], sandbox: actual[aspect] }));
}

const keyOf = (difference: Difference): string =>
  JSON.stringify([difference.case, difference.aspect, difference.provider, difference.sandbox]);

/**
 * Sets the observed differences against the known ones: `new` are observed
 * but not listed, `disappeared` are listed but no longer observed. Both empty
 * means the table is up to date; the reasons are left out of the comparison.
 */
export function againstKnown(observed: Difference[], known: KnownDifference[]): { new: Difference[]; disappeared: KnownDifference[] } {
  const listed = new Set(known.map(keyOf));
  const seen = new Set(observed.map(keyOf));
  return {
    new: observed.filter((difference) => !listed.has(keyOf(difference))),
    disappeared: known.filter((difference) => !seen.has(keyOf(difference))),
  };
}

/** Differences written as entries of the known-differences table, for pasting into it. */
export function asTableEntries(differences: Difference[]): string {
  return differences
    .map(({ case: name, aspect, provider, sandbox }) => `  { case: ${literal(name)}, aspect: '${aspect}', provider: ${literal(provider)}, sandbox: ${literal(sandbox)}, reason: 'TODO' },`)
    .join('\n');
}

// Written the way the table is, so that an entry can be pasted as it is.
const literal = (value: AspectValue): string =>
  Array.isArray(value) ? `[${value.map(quoted).join(', ')}]` : typeof value === 'string' ? quoted(value) : String(value);

const quoted = (text: string): string => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
