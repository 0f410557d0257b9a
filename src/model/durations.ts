import { parse } from 'tinyduration';

/**
 * ISO 8601 durations of fixed length: weeks, days, hours, minutes and
 * seconds (`PT30S`, `PT2H`, `P2D`). Years and months are refused, having no
 * fixed length; a day is 24 hours, the merchants' clocks being UTC (README, "Time").
 */

// The durations read so far: the catalogue and the schedules name a handful, read at every pending payment.
const known = new Map<string, number>();
const KNOWN_AT_MOST = 1000;

/**
 * Milliseconds in `duration`.
 * @throws RangeError naming the duration when it is not ISO 8601, is negative, or uses years or months
 */
export function durationMs(duration: string): number {
  const ms = known.get(duration);
  if (ms !== undefined) return ms;
  const read = readDuration(duration);
  // Bounded: a control client may send any number of distinct durations.
  if (known.size < KNOWN_AT_MOST) known.set(duration, read);
  return read;
}

function readDuration(duration: string): number {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(duration);
  } catch {
    throw new RangeError(`${JSON.stringify(duration)} is not an ISO 8601 duration (e.g. PT30S, PT2H, P2D)`);
  }
  if (parsed.negative) throw new RangeError(`${JSON.stringify(duration)} is negative`);
  if (parsed.years || parsed.months) throw new RangeError(`${JSON.stringify(duration)} uses years or months, which have no fixed length: use days`);
  const { weeks = 0, days = 0, hours = 0, minutes = 0, seconds = 0 } = parsed;
  return Math.round((((weeks * 7 + days) * 24 + hours) * 60 + minutes) * 60_000 + seconds * 1000);
}

/** `ms` milliseconds as an ISO 8601 duration in days, hours, minutes and seconds, e.g. `P1DT2H0M0.5S` shortened to `P1DT2H0.5S`. */
export function durationOf(ms: number): string {
  if (ms === 0) return 'PT0S';
  const days = Math.floor(ms / 86_400_000);
  let rest = ms - days * 86_400_000;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  const seconds = (rest - minutes * 60_000) / 1000;
  const time = `${hours ? `${hours}H` : ''}${minutes ? `${minutes}M` : ''}${seconds ? `${seconds}S` : ''}`;
  return `P${days ? `${days}D` : ''}${time ? `T${time}` : ''}`;
}

// The last time moved and its result: the payments made within one millisecond fall due at the same time, and reading and formatting a time is not free.
let lastIso = '';
let lastMs = Number.NaN;
let lastLater = '';

/** `iso` (ISO 8601 UTC) moved by `ms` milliseconds, as ISO 8601 UTC. */
export function later(iso: string, ms: number): string {
  if (iso !== lastIso || ms !== lastMs) {
    lastLater = new Date(Date.parse(iso) + ms).toISOString();
    lastIso = iso;
    lastMs = ms;
  }
  return lastLater;
}
