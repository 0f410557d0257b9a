import { createHash } from 'node:crypto';
import { inputError, ordersNotFound } from '../errors.js';
import type { Selection } from '../scenarios/selector.js';
import { answerWith, type Answer, type OperationEnv } from './answer.js';
import { LINK_PAYMENT_STATUS } from './checkout.js';
import { normaliseAmount, toNumber } from '../model/money.js';
import { answerCreating, newPayment } from './payments.js';
import type { Order, OrderItem, Payment } from '../model/records.js';
import type { FactsOf } from './operation.js';
import { newPaymentFields, type NewPaymentFacts } from './payment-fields.js';
import { stringOf, textOf, type Body, type RequestFacts } from './request.js';

/**
 * Orders (spec, endpoints 5-7): created before payment, their items updated,
 * and listed. An order's payment is paid on the hosted checkout page.
 */

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

/** One item of an order request (spec, endpoints 5 and 6). */
export interface OrderItemFields {
  /** empty when the request sends none (an order after payment: the sandbox gives one) */
  orderId: string;
  currency: string;
  /** normalised to two decimals */
  amount: string;
  productId: string;
  productDescription: string;
}

/** What an order request (POST /payments/order, PUT /products/orders, POST /products/orders) says of its order. */
export interface OrderFields {
  items: OrderItemFields[];
  /** required on creation (the document's schema) */
  callbackUrl?: string;
  email?: string;
  fullName?: string;
  mobileNumber?: string;
  orderType?: string;
}

/** The facts of POST /payments/order: its payment and its order. */
export interface CreateOrderFacts extends NewPaymentFacts {
  order: OrderFields;
}

/** The facts of an order's update or of an order after payment: the items sent, and the order stored with that paymentReference. */
export interface OrderChangeFacts {
  order: OrderFields;
  storedOrder?: Order;
}

/** The facts of the order look-ups: the merchant's orders, oldest first (and the orderId of the path, when it names one). */
export interface StoredOrdersFacts {
  storedOrders: Order[];
  orderId?: string;
}

/** The facts of POST /payments/order. */
export const createOrderFacts: FactsOf<CreateOrderFacts> = ({ body }) => ({ newPayment: newPaymentFields(body, false), order: orderFields(body) });

/** The facts of PUT /products/orders and POST /products/orders. */
export const orderChangeFacts: FactsOf<OrderChangeFacts> = ({ body }, { publicKey, paymentReference }, store) => {
  const facts: OrderChangeFacts = { order: orderFields(body) };
  const stored = paymentReference === undefined ? undefined : store.order(publicKey, paymentReference);
  if (stored) facts.storedOrder = stored;
  return facts;
};

/** The facts of GET .../paymentReference/{paymentReference}: the order stored with it. */
export const storedOrderFacts: FactsOf<{ storedOrder?: Order }> = (_parts, { publicKey, paymentReference }, store) => {
  const stored = paymentReference === undefined ? undefined : store.order(publicKey, paymentReference);
  return stored ? { storedOrder: stored } : {};
};

/** The facts of GET /products/orders/publicKey/{publicKey} and of the look-up by orderId. */
export const storedOrdersFacts: FactsOf<StoredOrdersFacts> = ({ params }, { publicKey }, store) => {
  const facts: StoredOrdersFacts = { storedOrders: store.orders(publicKey) };
  if (params.orderId !== undefined) facts.orderId = params.orderId;
  return facts;
};

function orderFields(body: Body): OrderFields {
  const items = Array.isArray(body.orders) ? (body.orders as Body[]) : [];
  const fields: OrderFields = {
    items: items.map((item) => ({
      // An order after payment sends no orderId: the sandbox gives one (orderIdOf).
      orderId: item.orderId === undefined ? '' : textOf(item, 'orderId'),
      currency: textOf(item, 'currency'),
      amount: normaliseAmount(textOf(item, 'amount')),
      productId: textOf(item, 'productId'),
      productDescription: stringOf(item, 'productDescription') ?? '',
    })),
  };
  for (const field of ['callbackUrl', 'email', 'fullName', 'mobileNumber', 'orderType'] as const) {
    const value = stringOf(body, field);
    if (value !== undefined) fields[field] = value;
  }
  return fields;
}

/**
 * POST /payments/order: stores the order and its pending payment, through the
 * state machine; answers the checkout link. A reused reference creates
 * neither (the catalogue's answer, 500 Transaction with reference exists).
 */
export function createOrder(facts: RequestFacts & CreateOrderFacts, selection: Selection, env: OperationEnv): Answer {
  const record = newPayment(facts, facts.newPayment, 'ORDER', env.now());
  const answer = answerCreating(facts, selection, record, (payment) => ({
    amount: toNumber(payment.amount),
    paymentReference: payment.paymentReference,
    paymentStatus: LINK_PAYMENT_STATUS,
    redirectLink: env.links.checkout(payment.linkingReference),
  }));
  // The order exists exactly when its payment was created by this request.
  if (answer.writes.length === 0) return answer;
  return { ...answer, writes: [...answer.writes, { kind: 'order', order: newOrder(facts.order, record) }] };
}

function newOrder(fields: OrderFields, payment: Payment): Order {
  const now = payment.createdAt;
  const order: Order = {
    publicKey: payment.publicKey,
    paymentReference: payment.paymentReference,
    callbackUrl: fields.callbackUrl ?? '',
    country: payment.country,
    currency: payment.currency,
    amount: payment.amount,
    items: fields.items.map((item) => ({ ...item, createdAt: now, updatedAt: now })),
    createdAt: now,
    updatedAt: now,
  };
  for (const field of ['email', 'fullName', 'mobileNumber', 'orderType'] as const) {
    if (fields[field] !== undefined) order[field] = fields[field];
  }
  return order;
}

/** The most items an order holds, whatever updates add (README, "Bounds"). */
export const MAX_ORDER_ITEMS = 1000;

/**
 * PUT /products/orders: items are matched by orderId; a known one is
 * replaced (keeping its createdAt), a new one is added (docs/decisions.md#d19-order-updates).
 * Answers the updated records, without timestamps (spec, endpoint 6).
 * @throws ApiError 404 Transaction Not Found / NOT_FOUND when the merchant has
 *   no order with that paymentReference (external-api.yml, Order404Response1);
 *   400 INPUT when the order would hold more than MAX_ORDER_ITEMS items (nothing changed).
 */
export function updateOrders(facts: RequestFacts & OrderChangeFacts, selection: Selection, env: OperationEnv): Answer {
  const order = facts.storedOrder;
  if (!order) throw ordersNotFound('Transaction Not Found', 'order-not-found');
  const now = env.now();
  // A new list of items: the stored order is never changed in place.
  const items = [...order.items];
  const updated = facts.order.items.map((item: OrderItemFields) => {
    const at = items.findIndex((candidate) => candidate.orderId === item.orderId);
    const next: OrderItem = { ...item, createdAt: at >= 0 ? items[at]!.createdAt : now, updatedAt: now };
    if (at >= 0) items[at] = next;
    else items.push(next);
    return next;
  });
  // A request holds at most 100 items (the document); updates could still add them without end.
  if (items.length > MAX_ORDER_ITEMS) throw inputError(`orders: an order holds at most ${MAX_ORDER_ITEMS} items, and this update would make it ${items.length}`);
  const records = () =>
    updated.map((item) => {
      const { createdAt: _created, updatedAt: _updated, ...record } = orderRecord(order, item);
      return record;
    });
  return answerWith(selection.rule, records, 'products', [{ kind: 'order', order: { ...order, items, updatedAt: now } }]);
}

/**
 * GET /products/orders/publicKey/{publicKey}: every item of every order of the merchant, oldest order first.
 * @throws ApiError 404 Orders Not Found / NOT_FOUND when the merchant has none
 *   (external-api.yml, Order404Response2).
 */
export function listOrders(facts: RequestFacts & StoredOrdersFacts, selection: Selection): Answer {
  const orders = facts.storedOrders;
  if (orders.length === 0) throw ordersNotFound('Orders Not Found', 'orders-not-found');
  return answerWith(selection.rule, () => orders.flatMap((order) => order.items.map((item) => orderRecord(order, item))), 'products');
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

/**
 * POST /products/orders, an order after payment (external-api.yml,
 * CreateOrder): the items are added to the order of a payment the merchant
 * made, each given an `orderId` of its own, derived from the payment and the
 * item's place so that the same request answers the same ids; the order is
 * created when the payment has none. Answered 201 with the new items and
 * their times, as the provider's example shows them.
 * @throws ApiError 404 Transaction Not Found / NOT_FOUND when the merchant has
 *   no payment with that paymentReference; 400 INPUT beyond MAX_ORDER_ITEMS items
 */
export function createOrderAfterPayment(facts: RequestFacts & OrderChangeFacts, selection: Selection, env: OperationEnv): Answer {
  const payment = facts.payment;
  if (!payment) throw ordersNotFound('Transaction Not Found', 'order-not-found');
  const now = env.now();
  const order = facts.storedOrder ?? { ...newOrder({ items: [] }, payment), createdAt: now, updatedAt: now };
  const added = facts.order.items.map((item, index): OrderItem => ({
    ...item,
    orderId: item.orderId || orderIdOf(payment, order.items.length + index),
    createdAt: now,
    updatedAt: now,
  }));
  const items = [...order.items, ...added];
  if (items.length > MAX_ORDER_ITEMS) throw inputError(`orders: an order holds at most ${MAX_ORDER_ITEMS} items, and this one would hold ${items.length}`);
  const stored: Order = { ...order, items, updatedAt: now };
  const answer = answerWith(selection.rule, () => added.map((item) => orderRecord(stored, item)), 'products', [{ kind: 'order', order: stored }]);
  return { ...answer, status: 201 };
}

/**
 * GET /products/orders/publicKey/{publicKey}/paymentReference/{paymentReference}:
 * the items of one order, with their times.
 * @throws ApiError 404 Orders Not Found / NOT_FOUND when the merchant has no order with that reference
 */
export function getOrderByReference(facts: RequestFacts & { storedOrder?: Order }, selection: Selection): Answer {
  const order = facts.storedOrder;
  if (!order) throw ordersNotFound('Orders Not Found', 'orders-not-found');
  return answerWith(selection.rule, () => order.items.map((item) => orderRecord(order, item)), 'products');
}

/**
 * GET /products/orders/publicKey/{publicKey}/orderId/{orderId}: the items of
 * the merchant's orders with that orderId, with their times.
 * @throws ApiError 404 Orders Not Found / NOT_FOUND when no item has it
 */
export function getOrderByOrderId(facts: RequestFacts & StoredOrdersFacts, selection: Selection): Answer {
  const orderId = facts.orderId;
  const found = facts.storedOrders.flatMap((order) => order.items.filter((item) => item.orderId === orderId).map((item) => orderRecord(order, item)));
  if (found.length === 0) throw ordersNotFound('Orders Not Found', 'orders-not-found');
  return answerWith(selection.rule, () => found, 'products');
}

// The orderId the sandbox gives an item sent without one: the provider's look (10 characters), stable for the payment and place.
const orderIdOf = (payment: Payment, place: number): string => `ord${createHash('sha256').update(`${payment.linkingReference}:${place}`).digest('hex').slice(0, 7)}`;
