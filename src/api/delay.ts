import type { Delay } from '../scenarios/scenario.js';

/** Milliseconds of a rule's delay (README, "Faults and latency"); a range is drawn with `random` (seeded by --seed). */
export function delayMs(delay: Delay | undefined, random: () => number): number {
  if (!delay) return 0;
  if ('ms' in delay) return delay.ms;
  return Math.round(delay.minMs + (delay.maxMs - delay.minMs) * random());
}

/** Waits `ms` milliseconds. */
export const pause = (ms: number): Promise<void> => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve());
