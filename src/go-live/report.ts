import { emptyFacts, type GoLiveCheck, type GoLiveReport, type GoLiveVerdict } from '../model/go-live.js';
import type { Delivery } from '../model/notifications.js';
import type { Order, Payment } from '../model/records.js';
import type { MerchantRecord } from '../store/tables.js';
import { shownCheck, type CheckResult } from './check.js';
import { acknowledgedCheck, duplicateCheck, unknownTypeCheck, verifiedCheck } from './notification-checks.js';
import { conformanceCheck, outcomesCheck, tokenCheck, uniqueReferencesCheck, type TestValueOf } from './traffic-checks.js';

/** What one merchant's report is made from, read once from the store by the caller. */
export interface ReportSources {
  merchant: MerchantRecord;
  /** its payments, oldest first, a go-live run's own included (they are left out here) */
  payments: readonly Payment[];
  /** its deliveries, a go-live run's included */
  deliveries: readonly Delivery[];
  /** its orders */
  orders: readonly Order[];
  /** real time now, ISO 8601 UTC */
  now: string;
  /** the merchant's clock now, ISO 8601 UTC: attempts and status queries are timed on it */
  merchantNow: string;
  testValueOf: TestValueOf;
}

/**
 * The go-live report of one merchant (GET /__sandbox/go-live/{publicKey};
 * docs/decisions.md#d87-go-live-report): each check of GO_LIVE_CHECK_IDS in
 * order, and the verdict. A go-live run's payments count in the
 * notification checks only. O(payments + deliveries).
 */
export function goLiveReport(sources: ReportSources): GoLiveReport {
  const { merchant } = sources;
  const facts = merchant.goLive ?? emptyFacts(merchant.createdAt);
  // What a reset to a baseline put back is the baseline's, not the integration's doing since; a record of the very
  // millisecond the report began is the known state's, made just before it.
  const since = facts.since;
  const own = sources.payments.filter((payment) => payment.goLiveRun === undefined && payment.createdAt > since);
  const deliveries = sources.deliveries.flatMap((delivery) => sinceThen(delivery, since));
  const made = own.length + sources.orders.filter((order) => order.createdAt > since).length + facts.reusedTotal;
  const results: CheckResult[] = [
    acknowledgedCheck(deliveries),
    duplicateCheck(deliveries),
    unknownTypeCheck(deliveries),
    verifiedCheck(deliveries, Date.parse(sources.merchantNow)),
    uniqueReferencesCheck(facts, made),
    outcomesCheck(own, sources.testValueOf),
    tokenCheck(facts, Date.parse(sources.now)),
    conformanceCheck(facts, facts.exchanges.count + made),
  ];
  const checks = results.map(shownCheck);
  return { publicKey: merchant.publicKey, since: facts.since, generatedAt: sources.now, verdict: verdictOf(checks), checks };
}

/** `not-ready` when a required check failed, `incomplete` when none did but one was not exercised, `ready` otherwise. */
export function verdictOf(checks: readonly GoLiveCheck[]): GoLiveVerdict {
  const required = checks.filter((check) => check.required);
  if (required.some((check) => check.status === 'fail')) return 'not-ready';
  if (required.some((check) => check.status === 'not-exercised')) return 'incomplete';
  return 'ready';
}


// A delivery as the report judges it: its attempts since the report began. The receiver's answers after a known
// state was loaded are the integration's, though the load made the delivery; one with no such attempt is left out.
function sinceThen(delivery: Delivery, since: string): Delivery[] {
  if (delivery.createdAt > since) return [delivery];
  const attempts = delivery.attempts.filter((attempt) => attempt.at > since);
  return attempts.length === 0 ? [] : [{ ...delivery, attempts }];
}
