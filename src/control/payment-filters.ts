import { inputError } from '../errors.js';
import { redactText } from '../redaction/redact.js';
import type { Payment, PaymentMethod, PaymentStatus } from '../model/records.js';
import type { RowWalk } from './paging.js';

/**
 * The filters and order of `GET /__sandbox/payments` (control-api.yaml,
 * listPayments; docs/decisions.md#d82-list-filters): `status`, `method`,
 * `code`, `q`, `from`, `to`, combined with AND, and `order`. The document's
 * schemas refuse a bad value first; the checks here stand for the handler's
 * own safety, and name the parameter as the document's would.
 */

/** Every PaymentStatus, as the document's PaymentView enumerates them. */
export const PAYMENT_STATUSES: readonly PaymentStatus[] = [
  'PENDING', 'SUCCESSFUL', 'FAILED', 'CANCELLED', 'REFUNDED', 'EXPIRED', 'AUTHORIZED', 'PARTIALLY_CAPTURED', 'CAPTURED', 'TOKENIZED',
];

/** Every PaymentMethod, as stored. */
export const PAYMENT_METHODS: readonly PaymentMethod[] = ['CARD', 'ACCOUNT', 'MOMO', 'TRANSFER', 'USSD', 'CHECKOUT', 'ORDER'];

/** The longest `q` taken (characters). */
export const MAX_QUERY_TEXT = 100;

/** The filters of one request, read and checked. */
export interface PaymentFilters {
  status?: PaymentStatus;
  method?: PaymentMethod;
  /** a result code, exact */
  code?: string;
  /** lower-cased: compared without regard to case with paymentReference and linkingReference */
  q?: string;
  /** epoch ms on the merchant's clock: createdAt at or after it */
  fromMs?: number;
  /** epoch ms on the merchant's clock: createdAt before it */
  toMs?: number;
  /** `oldest` (the list's own order) or `newest` (its exact reverse) */
  order: 'oldest' | 'newest';
}

/**
 * Reads the filters from a parsed query string.
 * @throws ApiError 400 INPUT naming the parameter: a status or method not in
 *   its enum, an empty or over-long `code` or `q`, a `from` or `to` that is
 *   not an ISO 8601 time, `to` not after `from`, an `order` other than
 *   `oldest` or `newest`
 */
export function paymentFilters(query: Record<string, unknown>): PaymentFilters {
  const text = (name: string): string | undefined => {
    const value = query[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string') throw inputError(`${name} must be given once, as text`);
    return value;
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[]): T | undefined => {
    const value = text(name);
    if (value === undefined || (allowed as readonly string[]).includes(value)) return value as T | undefined;
    throw inputError(`${name} must be one of ${allowed.join(', ')}, not ${JSON.stringify(value.slice(0, 100))}`);
  };
  const bounded = (name: string, max: number): string | undefined => {
    const value = text(name);
    if (value !== undefined && (value.length < 1 || value.length > max)) throw inputError(`${name} must be 1 to ${max} characters long`);
    return value;
  };
  const time = (name: string): number | undefined => {
    const value = text(name);
    if (value === undefined) return undefined;
    // A date and a time with its offset or Z, as the document's date-time format: a bare date would be read as UTC midnight.
    const ms = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|z|[+-]\d{2}:\d{2})$/.test(value) ? Date.parse(value.replace(' ', 'T')) : Number.NaN;
    if (Number.isNaN(ms)) throw inputError(`${name} must be an ISO 8601 time with its offset (2026-11-24T10:00:00Z), not ${JSON.stringify(value.slice(0, 100))}`);
    return ms;
  };
  const filters: PaymentFilters = {
    status: oneOf('status', PAYMENT_STATUSES),
    method: oneOf('method', PAYMENT_METHODS),
    code: bounded('code', 16),
    q: bounded('q', MAX_QUERY_TEXT)?.toLowerCase(),
    fromMs: time('from'),
    toMs: time('to'),
    order: oneOf('order', ['oldest', 'newest'] as const) ?? 'oldest',
  };
  if (filters.fromMs !== undefined && filters.toMs !== undefined && filters.toMs <= filters.fromMs) {
    throw inputError(`to (${text('to')}) must be after from (${text('from')}): from is inclusive, to exclusive`);
  }
  return filters;
}

/**
 * How GET /payments walks a merchant's payments for these filters: the
 * predicate (absent without filters), the order, and the filters as text for
 * the cursor. The predicate tests the cheapest fields first.
 */
export function paymentWalk(filters: PaymentFilters): RowWalk<Payment> {
  const { status, method, code, q, fromMs, toMs, order } = filters;
  const tests: Array<(payment: Payment) => boolean> = [];
  if (status !== undefined) tests.push((payment) => payment.status === status);
  if (method !== undefined) tests.push((payment) => payment.method === method);
  if (code !== undefined) tests.push((payment) => payment.code === code);
  if (fromMs !== undefined || toMs !== undefined) {
    const from = fromMs ?? Number.NEGATIVE_INFINITY;
    const to = toMs ?? Number.POSITIVE_INFINITY;
    // The store writes createdAt as toISOString() does; those compare as text, which spares a Date.parse a row.
    const fromText = fromMs === undefined ? '' : canonical(fromMs);
    const toText = toMs === undefined ? undefined : canonical(toMs);
    tests.push((payment) => {
      const at = payment.createdAt;
      if (at.length === 24 && at.charCodeAt(23) === 90 /* Z */ && at.charCodeAt(10) === 84 /* T */) {
        return at >= fromText && (toText === undefined || at < toText);
      }
      const ms = Date.parse(at);
      return ms >= from && ms < to;
    });
  }
  // A paymentReference is found by what the list shows of it too (docs/decisions.md#d86-one-redaction-rule).
  if (q !== undefined) tests.push((payment) => payment.paymentReference.toLowerCase().includes(q) || payment.linkingReference.toLowerCase().includes(q) || (q.includes('*') && redactText(payment.paymentReference).toLowerCase().includes(q)));
  const matches = tests.length === 0 ? undefined : (payment: Payment) => tests.every((test) => test(payment));
  const filtersText = matches === undefined && order === 'oldest' ? '' : JSON.stringify([status, method, code, q, fromMs, toMs, order]);
  return { matches, newest: order === 'newest', filters: filtersText };
}

// An epoch ms as toISOString() writes it, or a bound for a year toISOString() writes otherwise (before 0 or after 9999).
function canonical(ms: number): string {
  const text = new Date(ms).toISOString();
  return text.length === 24 ? text : ms < 0 ? '' : '\uffff';
}
