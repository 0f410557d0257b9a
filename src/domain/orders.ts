import { ordersNotFound } from '../errors.js';
import { answerWith, type Answer, type OperationContext } from './answer.js';
import { LINK_PAYMENT_STATUS } from './checkout.js';
import { linkingReferenceOf } from './merchants.js';
import { normaliseAmount, toNumber } from '../model/money.js';
import { answerCreating, newPayment } from './payments.js';
import type { Order, OrderItem, Payment } from '../model/records.js';

/**
 * Orders (spec, endpoints 5-7): created before payment, their items updated,
 * and listed. An order's payment is paid on the hosted checkout page.
 */

type Body = Record<string, unknown>;

/**
 * An order item as the spec's order record shows it (spec, Order record):
 * amount a number, productId an integer when it is all digits (else as sent).
 * List answers carry the timestamps; update answers do not (spec, endpoint 6).
 */
export interface OrderRecord {
  amount: number;
  currency: string;
  productId: number | string;
  productDescription: string;
  paymentReference: string;
  orderId: string;
  createdAt?: string;
  updatedAt?: string;
}

/**
 * POST /payments/order: stores the order and its pending payment, through the
 * state machine; answers the checkout link. A reused reference creates
 * neither (the catalogue's answer, 500 Transaction with reference exists).
 */
export function createOrder(ctx: OperationContext, body: Body): Answer {
  const paymentReference = String(body.paymentReference);
  const linkingReference = linkingReferenceOf(ctx.merchant, paymentReference);
  const record = newPayment(ctx, body, 'ORDER', linkingReference);
  return answerCreating(ctx, record, (payment, created) => {
    // The order exists exactly when its payment was created by this request.
    if (created) ctx.store.putOrder(newOrder(ctx, body, payment));
    return {
      amount: toNumber(payment.amount),
      paymentReference,
      paymentStatus: LINK_PAYMENT_STATUS,
      redirectLink: ctx.links.checkout(linkingReference),
    };
  });
}

function newOrder(ctx: OperationContext, body: Body, payment: Payment): Order {
  const now = payment.createdAt;
  const order: Order = {
    publicKey: ctx.merchant.publicKey,
    paymentReference: payment.paymentReference,
    callbackUrl: String(body.callbackUrl),
    country: String(body.country),
    currency: String(body.currency),
    amount: payment.amount,
    items: (body.orders as Body[]).map((item) => orderItem(item, now, now)),
    createdAt: now,
    updatedAt: now,
  };
  for (const field of ['email', 'fullName', 'mobileNumber', 'orderType'] as const) {
    if (typeof body[field] === 'string') order[field] = body[field];
  }
  return order;
}

/**
 * PUT /products/orders: items are matched by orderId; a known one is
 * replaced (keeping its createdAt), a new one is added (README decision).
 * Answers the updated records, without timestamps (spec, endpoint 6).
 * @throws ApiError 404 Transaction Not Found / NOT_FOUND when the merchant has
 *   no order with that paymentReference (external-api.yml, Order404Response1).
 */
export function updateOrders(ctx: OperationContext, body: Body): Answer {
  const paymentReference = String(body.paymentReference);
  const order = ctx.store.order(ctx.merchant.publicKey, paymentReference);
  if (!order) throw ordersNotFound('Transaction Not Found', 'order-not-found');
  return answerWith(
    ctx.selection.rule,
    () => {
      const now = ctx.now();
      // A new list of items: the stored order is never changed in place.
      const items = [...order.items];
      const updated = (body.orders as Body[]).map((item) => {
        const at = items.findIndex((candidate) => candidate.orderId === item.orderId);
        const next = orderItem(item, at >= 0 ? items[at]!.createdAt : now, now);
        if (at >= 0) items[at] = next;
        else items.push(next);
        return next;
      });
      ctx.store.putOrder({ ...order, items, updatedAt: now });
      return updated.map((item) => {
        const { createdAt: _created, updatedAt: _updated, ...record } = orderRecord(order, item);
        return record;
      });
    },
    'products',
  );
}

/**
 * GET /products/orders/publicKey/{publicKey}: every item of every order of the merchant, oldest order first.
 * @throws ApiError 404 Orders Not Found / NOT_FOUND when the merchant has none
 *   (external-api.yml, Order404Response2).
 */
export function listOrders(ctx: OperationContext): Answer {
  const orders = ctx.store.orders(ctx.merchant.publicKey);
  if (orders.length === 0) throw ordersNotFound('Orders Not Found', 'orders-not-found');
  return answerWith(ctx.selection.rule, () => orders.flatMap((order) => order.items.map((item) => orderRecord(order, item))), 'products');
}

function orderItem(item: Body, createdAt: string, updatedAt: string): OrderItem {
  return {
    orderId: String(item.orderId),
    currency: String(item.currency),
    amount: normaliseAmount(String(item.amount)),
    productId: String(item.productId),
    productDescription: typeof item.productDescription === 'string' ? item.productDescription : '',
    createdAt,
    updatedAt,
  };
}

const orderRecord = (order: Order, item: OrderItem): OrderRecord => ({
  amount: toNumber(item.amount),
  currency: item.currency,
  productId: /^[0-9]{1,15}$/.test(item.productId) ? Number(item.productId) : item.productId,
  productDescription: item.productDescription,
  paymentReference: order.paymentReference,
  orderId: item.orderId,
  createdAt: item.createdAt,
  updatedAt: item.updatedAt,
});
