import { createRequire } from 'node:module';

// lossless-json is read only for a body that needs leniency: its one-file build is required then, so that a start,
// and a sandbox whose clients send what the spec says, load none of it.
type LosslessJson = typeof import('lossless-json');
let losslessJson: LosslessJson | undefined;
const lossless = (): LosslessJson => (losslessJson ??= createRequire(import.meta.url)('lossless-json') as LosslessJson);
import { isRedirectTarget } from '../model/redirect-targets.js';
import type { Violation } from './violations.js';

/**
 * What the sandbox accepts beyond the spec's types, because the provider's
 * own clients and examples send it (README, "Accepted beyond the spec";
 * evidence: the provider's public OpenAPI description and the official SDKs).
 * Each leniency turns one violation of the OpenAPI document into a warning:
 * - a JSON number where the spec types a string (amount, paymentReference,
 *   card fields, productId, ...): read from its exact text, amounts as
 *   decimals with at most 2 places, a whole number in exponent form
 *   (`8.033456599E9`, as the provider's examples send mobileNumber) as its digits;
 * - `null` for a field: as if the field were left out;
 * - an empty string the document refuses in a field: as if the field were
 *   left out, which a required one may not be (refuseEmptyRequired);
 * - `paymentType: "TRANSFER"`: the transfer variant; `"USSD"`: the USSD variant (docs/decisions.md#d61-ussd);
 * - a callbackUrl / redirectUrl that is no redirect target (isRedirectTarget,
 *   the pages' own rule): kept as sent, never redirected to (never one with a
 *   script-running scheme);
 * - a productId string on order update, where the spec shows integers.
 * In strict mode (`--strict`) none applies and the document decides alone.
 */

/** The outcome of relaxing one set of violations. */
export interface Relaxed {
  /** the body with numbers read as strings, and nulls and refused empty strings left out (a copy when anything changed) */
  body: unknown;
  /** one sentence per leniency used, naming the field and what the spec expects (never a semicolon: the header joins them with one) */
  warnings: string[];
  /** the violations no leniency covers, some with a clearer message than the validator's */
  rejected: Violation[];
  /** true when `body` differs from the input and must be validated again */
  changed: boolean;
  /** the empty strings taken as left out: each field's name (`callbackUrl`, `orders.0.productId`) and what the validator said of it */
  emptied: Map<string, Violation[]>;
}

/** Fields the spec types as strings that real clients send as JSON numbers (top level and in order items). */
const NUMBER_AS_STRING = new Set([
  'amount', 'fee', 'paymentReference', 'cardNumber', 'cvv', 'pin', 'expiryMonth', 'expiryYear', 'mobileNumber', 'dateOfBirth', 'productId',
]);

/** Of those, the decimal amounts: major units, at most 2 decimal places (docs/decisions.md#d07-amounts). */
const AMOUNT_FIELDS = new Set(['amount', 'fee']);

const AMOUNT_TEXT = /^[0-9]{1,13}(\.[0-9]{1,2})?$/;
const DIGITS_TEXT = /^([0-9]{1,32})(\.0+)?$/;
const URL_FIELDS = new Set(['callbackUrl', 'redirectUrl']);

/** Schemes a browser would run or read locally: refused even where other URLs are kept as sent. */
const UNSAFE_SCHEME = /^(javascript|data|vbscript|file|blob):/i;

/**
 * Relaxes the violations of one request body.
 * @param violations what the validator found (`where` is `body.<field>` or `body.orders.<n>.<field>`)
 * @param body       the body as parsed
 * @param raw        the body's bytes, to read numbers exactly (a JSON number loses digits past 2^53)
 */
export function relax(violations: readonly Violation[], body: unknown, raw: Buffer | undefined): Relaxed {
  const warnings = new Set<string>();
  const rejected: Violation[] = [];
  const emptied = new Map<string, Violation[]>();
  let copy: Record<string, unknown> | undefined;
  let exact: unknown;
  const numberText = (path: string[]): string | undefined => {
    exact ??= raw === undefined ? null : safeParse(raw);
    const value = valueAt(exact, path);
    return lossless().isLosslessNumber(value) ? (value as { value: string }).value : undefined;
  };
  for (const violation of violations) {
    const path = violation.where.split('.');
    if (path[0] !== 'body' || !inScope(path)) {
      rejected.push(violation);
      continue;
    }
    const field = path[path.length - 1]!;
    const name = path.slice(1).join('.');
    const value = valueAt(body, path.slice(1));
    // Before the URL rule, which refuses a blank URL: empty is how clients say "none" (a Go struct's zero value).
    if (value === '') {
      if (!emptied.has(name)) {
        copy ??= copyOf(body);
        delete (parentOf(copy, path.slice(1)) as Record<string, unknown>)[field];
        warnings.add(`${name}: an empty string, taken as left out`);
        emptied.set(name, []);
      }
      emptied.get(name)!.push(violation);
      continue;
    }
    const kept = keptAsSent(field, name, value, violation);
    if (kept === false) {
      rejected.push(violation);
      continue;
    }
    if (kept !== undefined) {
      warnings.add(kept);
      continue;
    }
    if (value === null) {
      copy ??= copyOf(body);
      delete (parentOf(copy, path.slice(1)) as Record<string, unknown>)[field];
      warnings.add(`${name}: null, the spec sends a value or leaves the field out`);
      continue;
    }
    if (typeof value === 'number' && NUMBER_AS_STRING.has(field) && /must be string$/.test(violation.message)) {
      const text = numberText(path.slice(1)) ?? String(value);
      const converted = asString(field, text);
      if (converted === undefined) {
        rejected.push({
          ...violation,
          message: AMOUNT_FIELDS.has(field)
            ? `${name} must be a decimal amount with at most 2 places`
            : `${name} must be a string of digits`,
        });
        continue;
      }
      copy ??= copyOf(body);
      (parentOf(copy, path.slice(1)) as Record<string, unknown>)[field] = converted;
      warnings.add(`${name}: a JSON number, the spec sends a string`);
      continue;
    }
    rejected.push(violation);
  }
  return { body: copy ?? body, warnings: [...warnings], rejected, changed: copy !== undefined, emptied };
}

/**
 * The violations of a relaxed body checked again, where a field whose empty
 * string was taken as left out proves required: that field is refused for
 * its empty string, in the validator's words (`paymentReference must NOT
 * have fewer than 1 characters`), not as missing. An empty required field is
 * no value at all (docs/decisions.md#d45-zero-amounts-empty-references).
 * @param rejected what relax left of the second check
 * @param emptied  Relaxed.emptied of the first
 */
export function refuseEmptyRequired(rejected: readonly Violation[], emptied: ReadonlyMap<string, Violation[]>): Violation[] {
  if (emptied.size === 0) return [...rejected];
  return rejected.flatMap((violation) => {
    if (violation.keyword !== 'required') return [violation];
    const missing = /property '([^']+)'/.exec(violation.message)?.[1];
    const name = [...violation.where.split('.').slice(1), missing].join('.');
    return (missing !== undefined && emptied.get(name)) || [violation];
  });
}

/**
 * The warnings for URL fields (`callbackUrl`, `redirectUrl`) of a body the
 * document accepted that are still no redirect target (a port past 65535,
 * `http://`, a numeric host that is no IPv4 address): the pages will not
 * send the customer there, so the client is told, in the words given to the
 * URLs the document refuses (README, "Accepted beyond the spec").
 * @returns one sentence per such field; empty (and no array made) for most bodies
 */
export function unredirectableUrls(body: unknown): string[] {
  if (typeof body !== 'object' || body === null) return NONE;
  let warnings: string[] | undefined;
  for (const field of URL_FIELDS) {
    const value = (body as Record<string, unknown>)[field];
    if (typeof value === 'string' && value !== '' && !isRedirectTarget(value)) (warnings ??= []).push(`${field}: not an absolute http(s) URL, kept as sent and never redirected to`);
  }
  return warnings ?? NONE;
}

const NONE: string[] = [];

/**
 * The leniencies that keep a value as it was sent: the warning, or false
 * for a value that stays refused, or undefined when none applies.
 */
function keptAsSent(field: string, name: string, value: unknown, violation: Violation): string | false | undefined {
  if (field === 'paymentType' && name === 'paymentType' && value === 'TRANSFER' && violation.keyword === 'enum') {
    return 'paymentType: TRANSFER, the spec sends CARD with transfer fields for a transfer';
  }
  if (field === 'paymentType' && name === 'paymentType' && value === 'USSD' && violation.keyword === 'enum') {
    return 'paymentType: USSD, a paymentType the provider documents and the spec does not name';
  }
  if (URL_FIELDS.has(field) && name === field && typeof value === 'string' && ['pattern', 'format'].includes(violation.keyword)) {
    // Browsers ignore tabs, newlines and leading spaces in a URL: look past them for the scheme.
    if (value.trim() === '' || UNSAFE_SCHEME.test(value.replace(/[\u0000-\u0020]/g, ''))) return false;
    // The pages decide by the same rule, so the sentence is true exactly when they will not redirect there.
    // The rule takes in no value the document's HttpUrl refuses; were the document changed to, it stays refused.
    if (isRedirectTarget(value)) return false;
    return `${name}: not an absolute http(s) URL, kept as sent and never redirected to`;
  }
  if (field === 'productId' && typeof value === 'string' && value !== '' && /must be integer$/.test(violation.message)) {
    return `${name}: a string, the spec sends an integer here`;
  }
  return undefined;
}

/** A number's exact text as the string the spec expects, or undefined when it cannot be one. */
function asString(field: string, text: string): string | undefined {
  if (AMOUNT_FIELDS.has(field)) return AMOUNT_TEXT.test(text) ? text : undefined;
  const digits = DIGITS_TEXT.exec(integerText(text))?.[1];
  if (digits === undefined) return undefined;
  // The spec's expiry month is two digits: a client that sends 5 means "05".
  return field === 'expiryMonth' ? digits.padStart(2, '0') : digits;
}

// A whole number in exponent form as its digits ("8.033456599E9" is "8033456599"), as the provider's
// own examples send a mobileNumber (external-api.yml, TokenizeaCardRequest); any other text as it is.
function integerText(text: string): string {
  const parts = /^([0-9]+)(?:\.([0-9]+))?[eE]\+?([0-9]{1,2})$/.exec(text);
  if (!parts) return text;
  const [, whole, fraction = '', exponent] = parts;
  const shift = Number(exponent);
  return fraction.length > shift ? text : `${whole}${fraction}${'0'.repeat(shift - fraction.length)}`;
}

// Only top-level fields and the fields of order items are relaxed.
function inScope(path: string[]): boolean {
  return path.length === 2 || (path.length === 4 && path[1] === 'orders' && /^[0-9]+$/.test(path[2]!));
}

function valueAt(root: unknown, path: string[]): unknown {
  let node = root;
  for (const key of path) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function parentOf(root: unknown, path: string[]): unknown {
  return valueAt(root, path.slice(0, -1));
}

// A copy deep enough to change top-level fields and order items without touching what was sent.
function copyOf(body: unknown): Record<string, unknown> {
  const copy = { ...(body as Record<string, unknown>) };
  if (Array.isArray(copy.orders)) {
    copy.orders = copy.orders.map((item: unknown) => (typeof item === 'object' && item !== null && !Array.isArray(item) ? { ...item } : item));
  }
  return copy;
}

function safeParse(raw: Buffer): unknown {
  try {
    return lossless().parse(raw.toString('utf8'));
  } catch {
    return null;
  }
}
