import type { BillingCycle, Subscription } from '../model/records.js';

/**
 * When a subscription's charges fall (README, "Subscriptions"): at its
 * startDate plus whole billing periods (`billingPeriod` cycles), on its
 * merchant's clock. Calendar cycles count calendar months from startDate
 * each time, the day held to the month's last (a subscription of 31 January
 * is charged on 28 or 29 February, then 31 March), so a short month never
 * moves the charges after it.
 */

/** The billing cycles of a fixed length, in ms. */
const FIXED_MS: Partial<Record<BillingCycle, number>> = { HOURLY: 3_600_000, DAILY: 86_400_000, WEEKLY: 7 * 86_400_000 };
/** The calendar cycles, in months. */
const MONTHS: Partial<Record<BillingCycle, number>> = { MONTHLY: 1, ANNUALLY: 12 };
const LONGEST_MONTH_MS = 31 * 86_400_000;

/** The cycles a subscription can have, as its request names them. */
export const BILLING_CYCLES: readonly BillingCycle[] = ['HOURLY', 'DAILY', 'WEEKLY', 'MONTHLY', 'ANNUALLY'];

/**
 * The n-th charge time of a subscription, epoch ms: n = 0 is its startDate.
 * @param subscription its startDate (ISO 8601 UTC), billingCycle and billingPeriod
 */
export function chargeTimeMs(subscription: Pick<Subscription, 'startDate' | 'billingCycle' | 'billingPeriod'>, n: number): number {
  const start = Date.parse(subscription.startDate);
  const fixed = FIXED_MS[subscription.billingCycle];
  if (fixed !== undefined) return start + n * subscription.billingPeriod * fixed;
  const date = new Date(start);
  const month = date.getUTCMonth() + n * subscription.billingPeriod * MONTHS[subscription.billingCycle]!;
  const year = date.getUTCFullYear() + Math.floor(month / 12);
  const inYear = ((month % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(year, inYear + 1, 0)).getUTCDate();
  return Date.UTC(year, inYear, Math.min(date.getUTCDate(), lastDay), date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds(), date.getUTCMilliseconds());
}

/**
 * The first charge time of a subscription strictly after `after`: its
 * startDate when that is still to come, else the next whole period after it.
 * @param after ISO 8601 UTC
 * @returns ISO 8601 UTC
 */
export function nextChargeAfter(subscription: Pick<Subscription, 'startDate' | 'billingCycle' | 'billingPeriod'>, after: string): string {
  const afterMs = Date.parse(after);
  const start = Date.parse(subscription.startDate);
  if (start > afterMs) return new Date(start).toISOString();
  // An estimate that is never too far (the longest a period can be), then step by step.
  const fixed = FIXED_MS[subscription.billingCycle];
  const longest = (fixed ?? LONGEST_MONTH_MS * MONTHS[subscription.billingCycle]!) * subscription.billingPeriod;
  let n = Math.max(0, Math.floor((afterMs - start) / longest));
  while (chargeTimeMs(subscription, n) <= afterMs) n += 1;
  return new Date(chargeTimeMs(subscription, n)).toISOString();
}

/**
 * A subscription's `startDate` as the provider's example sends it
 * (`2020-02-25 00:00:00`, read as UTC), or any ISO 8601 date or time.
 * @returns ISO 8601 UTC, or undefined for text that is no date
 */
export function startDateOf(text: string): string | undefined {
  const match = /^(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?))?(Z|[+-]\d{2}:?\d{2})?$/.exec(text.trim());
  if (!match) return undefined;
  const ms = Date.parse(`${match[1]}T${match[2] ?? '00:00:00'}${match[3] ?? 'Z'}`);
  // Date.parse rolls 30 February over into March: a day the month does not have is no date.
  const [year, month, day] = match[1]!.split('-').map(Number);
  const calendar = new Date(Date.UTC(year!, month! - 1, day!));
  if (Number.isNaN(ms) || calendar.getUTCMonth() !== month! - 1 || calendar.getUTCDate() !== day) return undefined;
  return new Date(ms).toISOString();
}
