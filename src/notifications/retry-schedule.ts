import { durationMs } from '../model/durations.js';
import type { DeliverySchedule } from '../model/notifications.js';

/**
 * When a delivery that was not acknowledged is tried again, as the
 * provider's webhook page says (the provider's webhook page):
 * `current` is the page served now, `legacy` its older version, which a
 * merchant can choose (README, "Notifications").
 */

/** How each schedule waits, how long an attempt may take, and what counts as acknowledged. */
export interface ScheduleRules {
  /** ISO 8601 durations after the first, second... failed attempt */
  retries: readonly string[];
  /** after the listed retries: every `repeat`, until `until` after the first attempt; absent: undelivered at once */
  repeat?: { every: string; until: string };
  /** milliseconds the receiver has to answer */
  timeoutMs: number;
  /** true: a 200 must echo the X-Expected-Ack-Reference in `{"ackReference", "status": "received"}`; false: any 200 counts */
  acknowledgement: boolean;
}

/** The two schedules (the provider's current and older webhook pages). */
export const SCHEDULES: Readonly<Record<DeliverySchedule, ScheduleRules>> = {
  current: { retries: ['PT30S', 'PT2M', 'PT10M', 'PT30M', 'PT1H'], timeoutMs: 5_000, acknowledgement: true },
  legacy: {
    retries: ['PT2M', 'PT5M', 'PT10M', 'PT15M', 'PT30M', 'PT1H', 'PT2H', 'PT4H'],
    repeat: { every: 'PT8H', until: 'P7D' },
    timeoutMs: 10_000,
    acknowledgement: false,
  },
};

/**
 * When the next attempt is due after `failed` attempts have failed, the
 * first at `firstMs`, the last at `lastMs` (epoch ms, merchant's clock).
 * @returns epoch ms, or undefined when the schedule is used up (undelivered)
 */
export function nextAttemptAt(schedule: DeliverySchedule, failed: number, firstMs: number, lastMs: number): number | undefined {
  const rules = SCHEDULES[schedule];
  const listed = rules.retries[failed - 1];
  if (listed !== undefined) return lastMs + durationMs(listed);
  if (!rules.repeat) return undefined;
  const next = lastMs + durationMs(rules.repeat.every);
  return next - firstMs <= durationMs(rules.repeat.until) ? next : undefined;
}
