import type { ErrorObject } from 'ajv';
import type { Delivery } from '../model/notifications.js';
import type { Payment } from '../model/records.js';
import { paymentAmountsProblem } from './payment-amounts.js';
import type { RecordKind } from './record-schemas.js';
import { UniqueKeys, type HeldKeys } from './unique-keys.js';
import { storeValidators, type ValidateFunction } from './validators.js';

/**
 * The checks of what the store keeps (src/store/record-schemas.ts), run on
 * every record read from the snapshot or the log and on every record put:
 * a record the store could not read back must never reach the disk.
 */

const validators = await storeValidators();
const records: Record<RecordKind, ValidateFunction> = {
  merchant: validators.merchant, payment: validators.payment, order: validators.order,
  delivery: validators.delivery, webhook: validators.webhook, clock: validators.clock,
};
const snapshots: Record<number, ValidateFunction> = { 1: validators.snapshot1, 2: validators.snapshot2, 3: validators.snapshot3 };

/**
 * Checks a parsed snapshot: version 1 (records by key), 2 or 3 (records in
 * order); then its payments' amounts (payment-amounts.ts), and that no two
 * of its records share a linkingReference or delivery id (unique-keys.ts).
 * @returns the first problem, or undefined when it is fine
 */
export function snapshotProblem(value: unknown): string | undefined {
  if (!isObject(value)) return `${kind(value)} where the snapshot object is expected`;
  const check = typeof value.version === 'number' ? snapshots[value.version] : undefined;
  if (!check) return `unknown version ${JSON.stringify(value.version)} (expected 1, 2 or 3)`;
  const problem = problemOf(check, value, '');
  if (problem) return problem;
  // Version 1 keeps payments by merchant, then by reference; 2 and 3 in a list.
  const payments = value.payments as Payment[] | Record<string, Record<string, Payment>>;
  const places: Array<[string, Payment]> = Array.isArray(payments)
    ? payments.map((payment, index) => [`/payments/${index}`, payment])
    : Object.entries(payments).flatMap(([key, byReference]) => Object.entries(byReference).map(([reference, payment]): [string, Payment] => [`/payments/${key}/${reference}`, payment]));
  const keys = new UniqueKeys();
  for (const [at, payment] of places) {
    const wrong = paymentAmountsProblem(payment, at) ?? keys.payment(payment, at);
    if (wrong) return wrong;
  }
  // Only version 3 holds deliveries, in a list.
  for (const [index, delivery] of ((value.deliveries ?? []) as Delivery[]).entries()) {
    const wrong = keys.delivery(delivery, `/deliveries/${index}`);
    if (wrong) return wrong;
  }
  return undefined;
}

/**
 * Checks a change: a parsed line of the log, or one about to be logged.
 * @param held what the store holds now, for a change about to be logged: a
 *   replace of one merchant's state is checked against the other merchants'
 *   records (recordsProblem); absent for a line of the log, read in order
 * @returns the first problem (`/payment/amount must be string`), or undefined when the change and its record fit their schemas
 */
export function changeProblem(value: unknown, held?: HeldKeys): string | undefined {
  if (!isObject(value)) return `${kind(value)} where a change object is expected`;
  const extra = (allowed: string[]) => Object.keys(value).find((key) => !allowed.includes(key));
  switch (value.kind) {
    case 'merchant':
    case 'order':
    case 'delivery':
    case 'clock': {
      const unknown = extra(['kind', value.kind]);
      if (unknown !== undefined) return `unknown property ${JSON.stringify(unknown)} in a ${value.kind} change`;
      return problemOf(records[value.kind], value[value.kind], `/${value.kind}`);
    }
    case 'payment': {
      const unknown = extra(['kind', 'payment', 'deliveries']);
      if (unknown !== undefined) return `unknown property ${JSON.stringify(unknown)} in a payment change`;
      if (value.deliveries !== undefined && !Array.isArray(value.deliveries)) return '/deliveries must be array';
      const deliveries = (value.deliveries ?? []) as unknown[];
      for (const [index, delivery] of deliveries.entries()) {
        const problem = problemOf(records.delivery, delivery, `/deliveries/${index}`);
        if (problem) return problem;
      }
      return recordProblem('payment', value.payment, '/payment');
    }
    case 'webhook': {
      const unknown = extra(['kind', 'publicKey', 'webhook']);
      if (unknown !== undefined) return `unknown property ${JSON.stringify(unknown)} in a webhook change`;
      if (typeof value.publicKey !== 'string') return '/publicKey must be string';
      return value.webhook === null ? undefined : problemOf(records.webhook, value.webhook, '/webhook');
    }
    case 'reset': {
      const unknown = extra(['kind', 'publicKey']);
      if (unknown !== undefined) return `unknown property ${JSON.stringify(unknown)} in a reset change`;
      return value.publicKey === undefined || typeof value.publicKey === 'string' ? undefined : '/publicKey must be string';
    }
    case 'replace': {
      const unknown = extra(['kind', 'publicKey', 'records']);
      if (unknown !== undefined) return `unknown property ${JSON.stringify(unknown)} in a replace change`;
      if (value.publicKey !== undefined && typeof value.publicKey !== 'string') return '/publicKey must be string';
      return recordsProblem(value.records, value.publicKey as string | undefined, held);
    }
    default:
      return `unknown kind ${JSON.stringify(value.kind)}`;
  }
}

/** The lists of a state and the record each holds (SnapshotRecords). */
const LISTS = [['merchants', 'merchant'], ['payments', 'payment'], ['orders', 'order'], ['webhooks', 'webhook'], ['clocks', 'clock'], ['deliveries', 'delivery']] as const;

/**
 * Checks the records of a state (SnapshotRecords), the one place a state
 * being loaded is checked: each list present and each record fitting its
 * schema (a payment's amounts too); with `publicKey`, every record that
 * merchant's; no two records sharing a linkingReference or a delivery id,
 * nor, with `publicKey` and `held`, sharing one with another merchant's
 * record the store holds (unique-keys.ts). Places are JSON Pointers into the
 * lists (`/payments/3/amount`).
 * @returns the first problem, or undefined when every record fits
 */
export function recordsProblem(value: unknown, publicKey?: string, held?: HeldKeys): string | undefined {
  if (!isObject(value)) return `${kind(value)} where the records object is expected`;
  const keys = new UniqueKeys(publicKey !== undefined && held ? { keys: held, publicKey } : undefined);
  for (const [list, record] of LISTS) {
    const rows = value[list];
    if (!Array.isArray(rows)) return `/${list} must be array`;
    for (const [index, row] of rows.entries()) {
      const at = `/${list}/${index}`;
      const problem = recordProblem(record, row, at);
      if (problem) return problem;
      const owner = (row as { publicKey: string }).publicKey;
      if (publicKey !== undefined && owner !== publicKey) return `${at}/publicKey is ${JSON.stringify(owner)}, not the merchant ${JSON.stringify(publicKey)} the state is for`;
      const shared = record === 'payment' ? keys.payment(row as Payment, at) : record === 'delivery' ? keys.delivery(row as Delivery, at) : undefined;
      if (shared) return shared;
    }
  }
  return undefined;
}

/** True for a JSON object (not null, not an array). */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kind(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

// A record's schema, then, for a payment, the invariants of its amounts that no schema can say.
function recordProblem(kind: RecordKind, value: unknown, at: string): string | undefined {
  const problem = problemOf(records[kind], value, at);
  if (problem || kind !== 'payment') return problem;
  return paymentAmountsProblem(value as Payment, at);
}

function problemOf(check: ValidateFunction, value: unknown, at: string): string | undefined {
  if (check(value)) return undefined;
  const [first] = check.errors ?? [];
  return first ? `${at}${first.instancePath || (at ? '' : '/')} ${detail(first)}` : `${at || '/'} is not valid`;
}

function detail(error: ErrorObject): string {
  if (error.keyword === 'additionalProperties') return `has an unknown property ${JSON.stringify(error.params.additionalProperty)}`;
  if (error.keyword === 'enum') return `${error.message} (${(error.params.allowedValues as string[]).join(', ')})`;
  return error.message ?? 'is not valid';
}
