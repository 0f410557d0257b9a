import { send, type PaymentsApi } from '../campaign/support/api.js';

/**
 * Subscriptions over real HTTP, for tests that run the sandbox as a process
 * (README, "Subscriptions: charged on the merchant's clock"; docs/decisions.md#d59-subscriptions):
 * a subscription started and paid, the merchant's clock read and advanced
 * over the control API, the stored charges and their `transaction.recurrent`
 * deliveries, and how many charges a subscription of a fixed cycle owes by
 * a time on the clock, reckoned without the sandbox's own billing code.
 */

/** The length of the fixed billing cycles, in ms. */
export const CYCLE_MS = { HOURLY: 3_600_000, DAILY: 86_400_000, WEEKLY: 7 * 86_400_000 } as const;

/** A billing cycle of a fixed length. */
export type FixedCycle = keyof typeof CYCLE_MS;

/** The `yyyy-MM-dd HH:mm:ss` form (UTC) of whole seconds since the epoch, as a subscription's `startDate` is sent. */
export const startDateText = (ms: number): string => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

/**
 * A body of POST /recurring/subscribes with a card the catalogue approves,
 * as the provider's example sends it; fields may be replaced.
 */
export const subscribesBody = (fields: Record<string, unknown> = {}): Record<string, unknown> => ({
  amount: '1000.00',
  currency: 'NGN',
  country: 'NG',
  cardNumber: '5123450000000008',
  cvv: '100',
  expiryMonth: '05',
  expiryYear: '30',
  cardName: 'Kolade Samuel',
  email: 'kolade@example.com',
  productDescription: 'Campaign subscription',
  billingCycle: 'DAILY',
  billingPeriod: '1',
  customerId: 'CUST-CAMPAIGN',
  ...fields,
});

/**
 * Starts a subscription (POST /recurring/subscribes, S20) and pays its
 * first payment with the OTP (POST /payments/validate, 00), which makes it ACTIVE.
 * @param body a subscribes body with its paymentReference, the billingId
 * @throws Error when either answer is not the one the README shows
 */
export async function paidSubscription(api: PaymentsApi, body: Record<string, unknown>): Promise<void> {
  const started = await api.call('POST', '/recurring/subscribes', body);
  const linkingReference = started.body?.data?.payments?.linkingReference;
  if (started.status !== 200 || started.body?.data?.code !== 'S20' || typeof linkingReference !== 'string') {
    throw new Error(`subscribes ${String(body.paymentReference)} answered ${started.status} ${JSON.stringify(started.body)}`);
  }
  const paid = await api.validate(linkingReference);
  if (paid.status !== 200 || paid.body?.data?.code !== '00') throw new Error(`validate of subscription ${String(body.paymentReference)} answered ${paid.status} ${JSON.stringify(paid.body)}`);
}

/**
 * How many charges a subscription of a fixed cycle owes once the merchant's
 * clock reads `nowMs`: its charge times are startDate plus whole periods, the
 * first strictly after its first payment was paid (docs/decisions.md#d59-subscriptions).
 * @param startMs  its startDate, epoch ms
 * @param periodMs the cycle's length times billingPeriod
 * @param paidMs   when its first payment was paid, on the merchant's clock
 */
export function chargesOwed(startMs: number, periodMs: number, paidMs: number, nowMs: number): number {
  const passed = (ms: number) => (ms < startMs ? -1 : Math.floor((ms - startMs) / periodMs));
  return Math.max(0, passed(nowMs) - passed(paidMs));
}

/** What the clock endpoints answer (openapi/control-api.yaml, ClockView and AdvanceResult). */
export interface ClockAnswer {
  now: string;
  pending: Array<{ at: string; kind: string; paymentReference: string }>;
  /** what an advance carried out, in order */
  fired?: Array<{ at: string; kind: string; paymentReference: string }>;
}

/**
 * GET /__sandbox/clock/{publicKey}.
 * @throws Error when it does not answer 200
 */
export async function clockOf(api: PaymentsApi): Promise<ClockAnswer> {
  const answer = await send(api.origin, 'GET', `/__sandbox/clock/${encodeURIComponent(api.merchant.publicKey)}`);
  if (answer.status !== 200) throw new Error(`GET /__sandbox/clock answered ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/**
 * POST /__sandbox/clock/{publicKey}/advance `to` a time (ISO 8601 UTC).
 * Status 0 when the connection closed without an answer (a killed sandbox).
 */
export async function advanceTo(api: PaymentsApi, to: string, timeoutMs: number): Promise<{ status: number; body?: ClockAnswer }> {
  const answer = await send(api.origin, 'POST', `/__sandbox/clock/${encodeURIComponent(api.merchant.publicKey)}/advance`, { body: { to }, timeoutMs });
  return { status: answer.status, body: answer.body };
}

/** One delivery of a notification as the control API lists it (openapi/control-api.yaml, Delivery). */
export interface DeliveryRow {
  id: string;
  paymentReference: string;
  state: string;
  event: { eventType: string; eventId: string; data: Record<string, unknown> };
}

/**
 * The merchant's deliveries of `transaction.recurrent` events, every page
 * of GET /__sandbox/webhooks/deliveries.
 * @throws Error when a page does not answer 200
 */
export async function recurrentDeliveries(api: PaymentsApi): Promise<DeliveryRow[]> {
  const rows: DeliveryRow[] = [];
  let cursor: string | undefined;
  do {
    const target = `/__sandbox/webhooks/deliveries?publicKey=${encodeURIComponent(api.merchant.publicKey)}&eventType=transaction.recurrent&limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const answer = await send(api.origin, 'GET', target);
    if (answer.status !== 200) throw new Error(`GET /__sandbox/webhooks/deliveries answered ${answer.status} ${JSON.stringify(answer.body)}`);
    rows.push(...answer.body.deliveries);
    cursor = answer.body.next;
  } while (cursor);
  return rows;
}
