import { paymentWrite } from '../domain/answer.js';
import { putWrites } from '../domain/commit.js';
import { settleExternally } from '../domain/payments.js';
import { ApiError } from '../errors.js';
import type { Payment } from '../model/records.js';
import type { ControlContext } from './context.js';
import { json, queryText, type ControlRun } from './operation.js';
import { merchantOverview } from './overview.js';
import { pageAnswer, pageOfList, pageOfRows, pageRequest } from './paging.js';
import { paymentFilters, paymentWalk } from './payment-filters.js';
import { paymentStory } from './story.js';
import { paymentView, shown } from './views.js';

// The runs of the stored state (openapi/control-api.yaml, tags State and Payments).

/** GET /overview: paged over merchants as GET /merchants is; only the page's merchants are counted. */
export const getOverview: ControlRun = (input, { store, notifications }) => {
  const request = pageRequest(input.query);
  const page = pageOfList('overview', store.merchants(), (merchant) => merchant.publicKey, request, (merchant) => JSON.stringify(merchantOverview(notifications, merchant)));
  return pageAnswer({ total: page.total, limit: request.limit, next: page.next }, 'merchants', page.texts);
};

/** GET /merchants: every merchant, or those whose publicKey contains the text given. */
export const listMerchants: ControlRun = (input, { store }) => {
  const request = pageRequest(input.query);
  const contains = queryText(input, 'publicKeyContains')?.toLowerCase();
  const all = store.merchants();
  const merchants = contains === undefined ? all : all.filter((merchant) => merchant.publicKey.toLowerCase().includes(contains));
  const page = pageOfList('merchants', merchants, (merchant) => merchant.publicKey, request, ({ publicKey, createdAt }) => JSON.stringify({ publicKey, createdAt }));
  return pageAnswer({ total: page.total, limit: request.limit, next: page.next }, 'merchants', page.texts);
};

/**
 * GET /payments: the filters are tested on the stored rows as the page is
 * walked (docs/decisions.md#d82-list-filters), and views are made of the
 * page's rows only: each view copies its record.
 */
export const listPayments: ControlRun = (input, { store, merchantsOf, merchantOf }) => {
  const request = pageRequest(input.query);
  const walk = paymentWalk(paymentFilters(input.query));
  const page = pageOfRows('payments', merchantsOf(merchantOf(input)), (key) => store.payments(key), request, (payment) => JSON.stringify(paymentView(payment)), walk);
  return pageAnswer({ total: page.total, limit: request.limit, next: page.next }, 'payments', page.texts);
};

/** GET /payments/{paymentReference}. */
export const getPayment: ControlRun = (input, context) => json(paymentView(context.onePayment(input)));

/** GET /payments/{paymentReference}/story. */
export const getPaymentStory: ControlRun = (input, context) => {
  const { store, journal, notifications } = context;
  return json(paymentStory({ store, journal, agenda: notifications.agenda, clocks: notifications.clocks }, context.onePayment(input)));
};

/** POST /payments/{paymentReference}/complete: the body's publicKey names the merchant when several used the reference. */
export const completePayment: ControlRun = (input, context) => {
  const { outcome, publicKey } = input.body as { outcome: 'success' | 'failure'; publicKey?: string };
  return settle(context, () => context.onePayment(input, publicKey ?? context.merchantOf(input)), outcome);
};

/** POST /payments/complete: the reference travels in the body, as `.` and `..` cannot be a path segment (every URL parser resolves them away). */
export const completeNamedPayment: ControlRun = (input, context) => {
  const { outcome, publicKey, paymentReference } = input.body as { outcome: 'success' | 'failure'; publicKey?: string; paymentReference: string };
  return settle(context, () => context.onePayment(input, publicKey, paymentReference, 'name one with publicKey in the body'), outcome);
};

/** GET /orders. */
export const listOrders: ControlRun = (input, { store, merchantsOf, merchantOf }) => {
  const request = pageRequest(input.query);
  const page = pageOfRows('orders', merchantsOf(merchantOf(input)), (key) => store.orders(key), request, (order) => JSON.stringify(shown(order)));
  return pageAnswer({ total: page.total, limit: request.limit, next: page.next }, 'orders', page.texts);
};

// Settles a PENDING payment as the outside world would (control-api.yaml, completePayment); 409 for any other.
// The payment is read in the settling unit: on a shared store another replica may have settled it a moment ago.
async function settle({ store, selector, notifications }: ControlContext, find: () => Payment, outcome: 'success' | 'failure') {
  const settled = await store.transaction(() => {
    const payment = find();
    const done = settleExternally(selector.engine, payment, outcome, notifications.clocks.now(payment.publicKey));
    if (done.refused) throw new ApiError(409, { message: `Payment ${payment.paymentReference} is ${payment.status}, not PENDING`, error: 'CONFLICT' });
    putWrites(store, [paymentWrite(done.payment, payment)], notifications.outbox);
    return done.payment;
  });
  return json(paymentView(settled));
}
