import { durationMs, later } from '../model/durations.js';
import type { PaymentDue, PaymentMethod } from '../model/records.js';
import type { Scenario } from '../scenarios/scenario.js';

/**
 * What falls due for a payment left PENDING (README, "Time"): the settlement
 * its rule promises (`settle` in the catalogue), or else the end of its
 * lifetime; and for a pre-authorisation left AUTHORIZED, its expiry. The spec
 * names no lifetime; these are decided in docs/decisions.md#d40-pending-lifetimes.
 */

/**
 * How long a payment of each method may stay PENDING, as ISO 8601
 * durations: the customer has half an hour to enter an OTP or authenticate
 * a card, and a day to pay a hosted checkout, an order or a transfer (a
 * transfer's `walletDaysActive` days when it says so).
 */
export const PENDING_LIFETIMES: Readonly<Record<PaymentMethod, string>> = {
  CARD: 'PT30M',
  ACCOUNT: 'PT30M',
  MOMO: 'PT30M',
  TRANSFER: 'P1D',
  USSD: 'PT30M',
  CHECKOUT: 'P1D',
  ORDER: 'P1D',
};

/**
 * How long a card pre-authorisation stays AUTHORIZED with nothing captured,
 * as an ISO 8601 duration: the provider's document says only "valid for a
 * limited period of time"; seven days is the hold most card issuers keep
 * (docs/decisions.md#d48-card-operations).
 */
export const AUTHORISATION_LIFETIME = 'P7D';

/**
 * The expiry of a pre-authorisation authorised at `now` (ISO 8601 UTC on the
 * merchant's clock): AUTHORISATION_LIFETIME later.
 */
export function authorisationDue(now: string): PaymentDue {
  return { at: later(now, durationMs(AUTHORISATION_LIFETIME)), event: 'expire' };
}

/**
 * What falls due for a payment that `rule` leaves PENDING at `now`: its
 * `settle`, or the method's lifetime (a transfer's `walletDaysActive` days
 * when given).
 * @param now ISO 8601 UTC on the merchant's clock
 * @param walletDaysActive a transfer's whole days, when its request gave them
 */
export function dueOf(rule: Scenario, method: PaymentMethod, now: string, walletDaysActive?: number): PaymentDue {
  const settle = rule.then.settle;
  if (settle) return { at: later(now, durationMs(settle.after)), event: 'settle', outcome: settle.outcome };
  const lifetime = method === 'TRANSFER' && walletDaysActive !== undefined ? walletDaysActive * 86_400_000 : durationMs(PENDING_LIFETIMES[method]);
  return { at: later(now, lifetime), event: 'expire' };
}

/**
 * The whole days of a transfer's `walletDaysActive` (sent as a string, or a
 * number by some clients), when it is a positive whole number; else
 * undefined and the transfer's lifetime is the default.
 */
export function walletDaysOf(value: unknown): number | undefined {
  const days = typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,4}$/.test(value.trim()) ? Number(value.trim()) : NaN;
  return Number.isInteger(days) && days > 0 ? days : undefined;
}
