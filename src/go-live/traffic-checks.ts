import type { GoLiveFacts } from '../model/go-live.js';
import type { Payment, PaymentMethod, PaymentStatus } from '../model/records.js';
import { redactText } from '../redaction/redact.js';
import { checkOf, type CheckResult, type Found } from './check.js';

/**
 * The report's checks of the merchant's own requests: references used
 * once, outcomes met, the token kept, the spec kept
 * (docs/decisions.md#d87-go-live-report). They read the merchant's payments
 * and the facts kept with its record (GoLiveFacts), never the journal,
 * which is bounded and in memory.
 */

/** The three outcomes an integration must handle. */
export type Outcome = 'success' | 'failure' | 'pending';

const OUTCOMES: readonly Outcome[] = ['success', 'failure', 'pending'];

/** The outcome a status stands for; undefined for those that follow one (refunded, cancelled, expired). */
export function outcomeOf(status: PaymentStatus): Outcome | undefined {
  switch (status) {
    case 'SUCCESSFUL': case 'AUTHORIZED': case 'PARTIALLY_CAPTURED': case 'CAPTURED': case 'TOKENIZED':
      return 'success';
    case 'FAILED':
      return 'failure';
    case 'PENDING':
      return 'pending';
    default:
      return undefined;
  }
}

/** A test value that produces an outcome: what to send, and the catalogue rule that answers it. */
export interface TestValue {
  /** e.g. `cardNumber 4000000000000002` */
  value: string;
  /** the catalogue rule's name */
  scenario: string;
}

/** Finds the catalogue's test value for a payment type and outcome (src/go-live/test-values.ts). */
export type TestValueOf = (method: PaymentMethod, outcome: Outcome) => TestValue | undefined;

/**
 * `unique-references` (required): no payment, link or order was refused as a
 * duplicate reference. Exercised by any payment, link or order made.
 */
export function uniqueReferencesCheck(facts: GoLiveFacts, made: number): CheckResult {
  const found: Found[] = facts.reused.map((reused) => ({
    paymentReference: redactText(reused.reference),
    requestId: reused.requestId,
    detail: `${reused.operation} refused: paymentReference ${redactText(reused.reference)} was used before`,
  }));
  if (facts.reusedTotal > 0) {
    return checkOf('unique-references', { status: 'fail', summary: `${facts.reusedTotal} requests reused a paymentReference`, found });
  }
  return checkOf('unique-references', made === 0
    ? { status: 'not-exercised', summary: 'No payment, link or order was made yet' }
    : { status: 'pass', summary: `${made} payments, links and orders, no reference used twice` });
}

/**
 * `outcomes-covered` (required): for each payment type the merchant
 * initiated, its payments met a success, a failure and a pending outcome at
 * some point of their history. Each outcome never met is evidence, with the
 * catalogue's test value that produces it.
 */
export function outcomesCheck(payments: readonly Payment[], testValueOf: TestValueOf): CheckResult {
  const met = new Map<PaymentMethod, Set<Outcome>>();
  for (const payment of payments) {
    let outcomes = met.get(payment.method);
    if (!outcomes) met.set(payment.method, (outcomes = new Set()));
    if (outcomes.size === OUTCOMES.length) continue;
    const history = payment.history;
    if (history === undefined || history.length === 0) {
      const outcome = outcomeOf(payment.status);
      if (outcome) outcomes.add(outcome);
      continue;
    }
    for (const entry of history) {
      const outcome = outcomeOf(entry.status);
      if (outcome) outcomes.add(outcome);
    }
  }
  if (met.size === 0) return checkOf('outcomes-covered', { status: 'not-exercised', summary: 'No payment was made yet' });
  const found: Found[] = [];
  for (const [method, outcomes] of met) {
    for (const outcome of OUTCOMES) {
      if (outcomes.has(outcome)) continue;
      const test = testValueOf(method, outcome);
      const how = test === undefined ? 'no test value in the catalogue: force one with an override' : `send ${test.value} (scenario ${test.scenario})`;
      found.push({ detail: `${method}: no ${outcome} met; ${how}` });
    }
  }
  const types = [...met.keys()].join(', ');
  return checkOf('outcomes-covered', found.length === 0
    ? { status: 'pass', summary: `${types}: each met a success, a failure and a pending outcome` }
    : { status: 'fail', summary: `${found.length} outcomes never met (${types})`, found });
}

/** Key exchanges an hour the token-reused rule allows (docs/decisions.md#d87-go-live-report). */
export const EXCHANGES_AN_HOUR = 3;

/**
 * `token-reused` (advisory): `warn` when keys were exchanged more than
 * EXCHANGES_AN_HOUR times for each hour (begun) since the report began. The
 * provider gives no token lifetime and the sandbox's tokens never expire
 * (docs/decisions.md#d03-bearer-tokens), so an integration needs one
 * exchange per start of its process; three an hour leaves room for restarts.
 * @param nowMs real time, milliseconds since the epoch
 */
export function tokenCheck(facts: GoLiveFacts, nowMs: number): CheckResult {
  const { count } = facts.exchanges;
  if (count === 0) return checkOf('token-reused', { status: 'not-exercised', summary: 'No key exchange yet' });
  const hours = Math.max(1, Math.ceil((nowMs - Date.parse(facts.since)) / 3_600_000));
  const allowed = EXCHANGES_AN_HOUR * hours;
  const exchanges = `${count} key exchange${count === 1 ? '' : 's'}`;
  if (count <= allowed) return checkOf('token-reused', { status: 'pass', summary: `${exchanges} in ${hours} h (at most ${allowed})` });
  return checkOf('token-reused', {
    status: 'warn',
    summary: `${exchanges} in ${hours} h, more than ${allowed}: the token is not reused`,
    found: [{ detail: `${count} exchanges, the first at ${facts.exchanges.first ?? '?'}, the last at ${facts.exchanges.last ?? '?'}` }],
  });
}

/**
 * `spec-conformant` (advisory): `warn` when requests drew X-Sandbox-Warnings
 * (what production accepts and the spec forbids), naming each.
 */
export function conformanceCheck(facts: GoLiveFacts, requests: number): CheckResult {
  if (facts.warnings.length > 0) {
    const found: Found[] = facts.warnings.map((warning) => ({ requestId: warning.requestId, detail: `${warning.warning} (${warning.count} requests)` }));
    return checkOf('spec-conformant', { status: 'warn', summary: `${facts.warnings.length} kinds of request the spec forbids`, found });
  }
  return checkOf('spec-conformant', requests === 0
    ? { status: 'not-exercised', summary: 'No request yet' }
    : { status: 'pass', summary: 'No request drew a warning' });
}
