import type { DeliveryState } from '../model/notifications.js';
import type { PaymentStatus } from '../model/records.js';
import type { MerchantRecord } from '../store/store.js';
import type { DueView } from '../agenda/agenda.js';
import { clockViewOf, type ClockView, type NotificationControls } from './notifications.js';

/**
 * The dashboard's front page in one answer (GET /__sandbox/overview,
 * control-api.yaml getOverview): for each merchant, its payments counted by
 * status, its clock and the earliest thing due on it, its notification URL,
 * and its deliveries counted by state. Every figure is one the other
 * endpoints give too, so a script can check what the page shows.
 *
 * Counts are made by a walk through the merchant's payments and deliveries
 * on each request: at 100,000 payments a walk takes a few milliseconds
 * (docs/performance.md, "The dashboard at 100,000 payments"), and a count
 * kept in the store would be one more thing a reset, a snapshot and a
 * replay must keep right.
 */

/** One merchant as the overview shows it. */
export interface MerchantOverview {
  publicKey: string;
  /** ISO 8601 UTC: when the sandbox first saw it */
  createdAt: string;
  /** its payments: how many, and how many in each status (only the statuses it has) */
  payments: { total: number; byStatus: Partial<Record<PaymentStatus, number>> };
  /** its clock, as GET /__sandbox/clock/{publicKey} answers it */
  clock: ClockView;
  /** the earliest thing due on its clock (the first of `clock.pending`); absent when nothing is */
  nextDue?: DueView;
  /** its notification URL (its own, or the sandbox-wide `--webhook-url`); absent when none is set */
  webhook?: { url: string };
  /** its deliveries by state, every state named (0 included), as GET /__sandbox/webhooks/deliveries/count counts them */
  deliveries: { byState: Record<DeliveryState, number> };
  /** deliveries not delivered whose last attempt was not acknowledged: a receiver that is failing now */
  failingDeliveries: number;
}

/** What one merchant's overview is built from. */
export type OverviewSources = Pick<NotificationControls, 'store' | 'clocks' | 'agenda' | 'outbox'>;

/** The overview of one merchant, counted now. */
export function merchantOverview(deps: OverviewSources, merchant: Pick<MerchantRecord, 'publicKey' | 'createdAt'>): MerchantOverview {
  const { store, outbox } = deps;
  const { publicKey } = merchant;
  const byStatus: Partial<Record<PaymentStatus, number>> = {};
  const payments = store.payments(publicKey);
  for (const payment of payments) byStatus[payment.status] = (byStatus[payment.status] ?? 0) + 1;
  const byState: Record<DeliveryState, number> = { scheduled: 0, held: 0, delivered: 0, undelivered: 0, withheld: 0 };
  let failingDeliveries = 0;
  for (const delivery of store.deliveries(publicKey)) {
    byState[delivery.state] += 1;
    const last = delivery.attempts.at(-1);
    if (delivery.state !== 'delivered' && last !== undefined && !last.acknowledged) failingDeliveries += 1;
  }
  const clock = clockViewOf(deps, publicKey);
  const url = outbox.endpoint(publicKey)?.url;
  return {
    publicKey,
    createdAt: merchant.createdAt,
    payments: { total: payments.length, byStatus },
    clock,
    ...(clock.pending.length > 0 ? { nextDue: clock.pending[0] } : {}),
    ...(url !== undefined ? { webhook: { url } } : {}),
    deliveries: { byState },
    failingDeliveries,
  };
}
