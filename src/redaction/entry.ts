import { redactText } from './redact.js';

/**
 * Card numbers masked where a value enters the store (docs/decisions.md#d86-one-redaction-rule):
 * a value a request or a snapshot gave is kept as the one rule shows it
 * (src/redaction/redact.ts), so the status query, the control API, the
 * dashboard and the snapshot taken all read the stored, masked value, and no
 * answer is scanned on its way out.
 *
 * Values the sandbox uses to find or reach something are kept whole: a
 * client looks its payment up by its paymentReference, a customer is sent to
 * its redirectUrl. Those are masked where they are shown instead
 * (`redactValue` on the control API's views, the events, the journal, the log).
 */

/**
 * Fields kept whole at entry, at any depth: the keys the store and the API
 * look records up by, the URLs the sandbox calls or sends a customer to, and
 * the sandbox's own identifiers and times.
 */
export const KEPT_WHOLE: ReadonlySet<string> = new Set([
  'publicKey', 'secretKey', 'paymentReference', 'linkingReference', 'billingId', 'batchId', 'authorizationCode',
  'redirectUrl', 'callbackUrl', 'url', 'id', 'copyOf', 'ackReference',
]);

/** Whether a field's value is masked at entry: every field but those the sandbox looks up or calls (KEPT_WHOLE). */
export const maskedAtEntry = (field: string): boolean => !KEPT_WHOLE.has(field);

/**
 * A copy of a record a file gave (a snapshot's payment, order, delivery),
 * with every string masked by the one rule but those of KEPT_WHOLE fields:
 * a full card number in `card.bin`, `fullName`, `message` or
 * `history[].message` is kept as `512345******0008`. Records without a card
 * number come back equal; the input is not changed.
 */
export function maskRecordAtEntry<T>(record: T): T {
  return walk(record, undefined, KEPT_WHOLE) as T;
}

/** The sandbox's own identifiers, whose hex may hold a Luhn-valid run by chance: shown whole, or they could not be looked up. */
const SANDBOX_IDENTIFIERS: ReadonlySet<string> = new Set(['id', 'copyOf', 'ackReference', 'linkingReference', 'deliveryId', 'eventId', 'publicKey', 'authorizationCode']);

/**
 * A copy of a stored record as the control API shows it: every string masked
 * by the one rule (a paymentReference, a URL, a payload) but the sandbox's own
 * identifiers (delivery ids, linkingReference, ...).
 */
export function maskRecordShown<T>(record: T): T {
  return walk(record, undefined, SANDBOX_IDENTIFIERS) as T;
}

// One walk for both: it copies only what it changes, so a record with no card number in it is given back as it is (records are
// never changed in place), and a snapshot load of tens of thousands of records allocates next to nothing (bench/snapshot.mjs).
function walk(node: unknown, field: string | undefined, whole: ReadonlySet<string>): unknown {
  if (typeof node === 'string') return field !== undefined && whole.has(field) ? node : redactText(node);
  if (typeof node !== 'object' || node === null) return node;
  if (Array.isArray(node)) {
    let copy: unknown[] | undefined;
    for (let at = 0; at < node.length; at += 1) {
      const kept = walk(node[at], field, whole);
      if (kept !== node[at]) (copy ??= node.slice())[at] = kept;
    }
    return copy ?? node;
  }
  let changed: Array<[string, unknown]> | undefined;
  for (const name in node) {
    if (!Object.hasOwn(node, name)) continue;
    const value = (node as Record<string, unknown>)[name];
    const kept = walk(value, name, whole);
    if (kept !== value) (changed ??= []).push([name, kept]);
  }
  if (changed === undefined) return node;
  // defineProperty, not assignment: a key `__proto__` from JSON stays a field and never becomes the copy's prototype.
  const copy: Record<string, unknown> = {};
  for (const [name, value] of [...Object.entries(node), ...changed]) Object.defineProperty(copy, name, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}
