import { ordersNotFound } from '../errors.js';
import { answerWith, type Answer, type OperationContext } from './answer.js';
import { LINK_PAYMENT_STATUS } from './checkout.js';
import { linkingReferenceOf } from './merchants.js';
import { normaliseAmount, toNumber } from './money.js';
import { newPayment } from './payments.js';
import type { Order, OrderItem } from './records.js';

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

/** POST /payments/order: stores the order and its pending payment; answers the checkout link. */
export function createOrder(ctx: OperationContext, body: Body): Answer {
  const paymentReference = String(body.paymentReference);
  const existing = ctx.store.payment(ctx.merchant.publicKey, paymentReference);
  const scenario = ctx.decide({ operation: 'createOrder', body, payment: existing });
  const linkingReference = linkingReferenceOf(ctx.merchant.publicKey, paymentReference);
  return answerWith(scenario, (outcome) => {
    const amount = normaliseAmount(String(body.amount));
    if (outcome.state) {
      const now = ctx.now();
      const payment = newPayment(ctx, body, 'ORDER', linkingReference);
      Object.assign(payment, { status: outcome.state, code: outcome.code, message: outcome.message, scenario: scenario.name });
      const order: Order = {
        publicKey: ctx.merchant.publicKey,
        paymentReference,
        callbackUrl: String(body.callbackUrl),
        country: String(body.country),
        currency: String(body.currency),
        amount,
        items: (body.orders as Body[]).map((item) => orderItem(item, now, now)),
        createdAt: now,
        updatedAt: now,
      };
      for (const field of ['email', 'fullName', 'mobileNumber', 'orderType'] as const) {
        if (typeof body[field] === 'string') order[field] = body[field];
      }
      ctx.store.putPayment(payment);
      ctx.store.putOrder(order);
    }
    return {
      amount: toNumber(amount),
      paymentReference,
      paymentStatus: LINK_PAYMENT_STATUS,
      redirectLink: ctx.links.checkout(linkingReference),
    };
  });
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
  const scenario = ctx.decide({ operation: 'updateOrders', body });
  return answerWith(
    scenario,
    () => {
      const now = ctx.now();
      const updated = (body.orders as Body[]).map((item) => {
        const known = order.items.find((candidate) => candidate.orderId === item.orderId);
        const next = orderItem(item, known?.createdAt ?? now, now);
        if (known) order.items[order.items.indexOf(known)] = next;
        else order.items.push(next);
        return next;
      });
      order.updatedAt = now;
      ctx.store.putOrder(order);
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
  const scenario = ctx.decide({ operation: 'listOrders', body: {} });
  return answerWith(scenario, () => orders.flatMap((order) => order.items.map((item) => orderRecord(order, item))), 'products');
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
