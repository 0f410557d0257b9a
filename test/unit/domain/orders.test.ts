import { describe, expect, it } from 'vitest';
import { createOrder, listOrders, updateOrders } from '../../../src/domain/orders.js';
import { linkingReferenceOf } from '../../../src/domain/merchants.js';
import type { Write } from '../../../src/domain/answer.js';
import type { Order } from '../../../src/model/records.js';
import { BEFORE, ENV, MERCHANT, NOW, OTHER, factsFor, newStore, order, payment, scenario, selection, summary, thrown, untouched } from './fixtures.js';

/** Orders (spec, endpoints 5-7): created with their payment, their items updated, and listed, without HTTP. */

const REF = 'SBREF-ORD-1';
const CREATE = {
  paymentReference: REF, amount: '4500', currency: 'NGN', country: 'NG', callbackUrl: 'https://merchant.example.com/callback',
  email: 'ada@example.com', fullName: 'Ada Obi', orderType: 'BULK_BULK',
  orders: [
    { orderId: 'ORD-1', currency: 'NGN', amount: '4000', productId: '101', productDescription: 'Shoes' },
    { orderId: 'ORD-2', currency: 'NGN', amount: '500.5', productId: 'SKU-9' },
  ],
};

const orderOf = (writes: readonly Write[]): Order => (writes.find((write) => write.kind === 'order') as Extract<Write, { kind: 'order' }>).order;

describe('createOrder', () => {
  it('writes the ORDER payment and the order with its items, amounts normalised; answers the checkout link', async () => {
    const store = await newStore();
    const done = untouched(store, () => createOrder(factsFor(store, 'createOrder', CREATE), selection(scenario('order-created')), ENV));
    const linkingReference = linkingReferenceOf(MERCHANT, REF);
    expect(done.body).toEqual({
      status: 'SUCCESS',
      data: { code: '00', message: 'Successful', payments: { amount: 4500, paymentReference: REF, paymentStatus: '08', redirectLink: `http://sb/pages/checkout/${linkingReference}` } },
    });
    expect(done.scenario).toBe('order-created');
    expect(done.writes.map((write) => write.kind)).toEqual(['payment', 'order']);
    expect(done.writes[0]).toMatchObject({
      payment: { paymentReference: REF, linkingReference, method: 'ORDER', status: 'PENDING', code: '00', amount: '4500.00', callbackUrl: CREATE.callbackUrl, scenario: 'order-created' },
    });
    expect(orderOf(done.writes)).toEqual({
      publicKey: MERCHANT.publicKey, paymentReference: REF, callbackUrl: CREATE.callbackUrl, country: 'NG', currency: 'NGN', amount: '4500.00',
      email: 'ada@example.com', fullName: 'Ada Obi', orderType: 'BULK_BULK',
      items: [
        { orderId: 'ORD-1', currency: 'NGN', amount: '4000.00', productId: '101', productDescription: 'Shoes', createdAt: NOW, updatedAt: NOW },
        { orderId: 'ORD-2', currency: 'NGN', amount: '500.50', productId: 'SKU-9', productDescription: '', createdAt: NOW, updatedAt: NOW },
      ],
      createdAt: NOW, updatedAt: NOW,
    });
  });

  it('a reused reference: the catalogue\'s 500 Transaction with reference exists, and neither payment nor order is written', async () => {
    const store = await newStore();
    payment({ paymentReference: REF, status: 'PENDING' }, store);
    const facts = factsFor(store, 'createOrder', CREATE);
    for (const chosen of [
      selection(scenario('duplicate-reference-link'), { reused: 'duplicate-reference-link' }),
      selection(scenario('order-created'), { forced: true, byValues: scenario('duplicate-reference-link'), reused: 'duplicate-reference-link' }),
    ]) {
      const error = untouched(store, () => thrown(() => createOrder(facts, chosen, ENV)));
      expect([error.status, error.body, error.scenario]).toEqual([500, { message: 'Transaction with reference exists', error: 'PROCESSING' }, 'duplicate-reference-link']);
    }
  });

  it('a rule that creates nothing (S7) writes neither payment nor order', async () => {
    const store = await newStore();
    const done = createOrder(factsFor(store, 'createOrder', CREATE), selection(scenario('amount-below-minimum'), { forced: true }), ENV);
    expect(summary(done)).toMatchObject({ code: 'S7', scenario: 'amount-below-minimum', writes: 0 });
  });
});

describe('updateOrders', () => {
  const UPDATE = {
    paymentReference: REF,
    orders: [
      { orderId: 'ORD-1', currency: 'NGN', amount: '3900', productId: '101', productDescription: 'Shoes, size 42' },
      { orderId: 'ORD-3', currency: 'NGN', amount: '100.1', productId: '303', productDescription: 'Laces' },
    ],
  };

  it('replaces a known item keeping its createdAt, adds a new one; one order write; the answer has no timestamps', async () => {
    const store = await newStore();
    const stored = order(store, REF, [
      { orderId: 'ORD-1', amount: '4000.00', productId: '101' },
      { orderId: 'ORD-2', amount: '500.00', productId: 'SKU-9' },
    ]);
    const done = untouched(store, () => updateOrders(factsFor(store, 'updateOrders', UPDATE), selection(scenario('orders-updated')), ENV));
    expect(done.body).toEqual({
      status: 'SUCCESS',
      data: {
        code: '00', message: 'Successful',
        products: [
          { amount: 3900, currency: 'NGN', productId: 101, productDescription: 'Shoes, size 42', paymentReference: REF, orderId: 'ORD-1' },
          { amount: 100.1, currency: 'NGN', productId: 303, productDescription: 'Laces', paymentReference: REF, orderId: 'ORD-3' },
        ],
      },
    });
    expect(done.writes.map((write) => write.kind)).toEqual(['order']);
    expect(orderOf(done.writes)).toEqual({
      ...stored,
      items: [
        { orderId: 'ORD-1', currency: 'NGN', amount: '3900.00', productId: '101', productDescription: 'Shoes, size 42', createdAt: BEFORE, updatedAt: NOW },
        stored.items[1],
        { orderId: 'ORD-3', currency: 'NGN', amount: '100.10', productId: '303', productDescription: 'Laces', createdAt: NOW, updatedAt: NOW },
      ],
      updatedAt: NOW,
    });
  });

  it('an order the merchant does not have: ApiError 404 Transaction Not Found', async () => {
    const store = await newStore();
    const error = untouched(store, () => thrown(() => updateOrders(factsFor(store, 'updateOrders', UPDATE), selection(scenario('orders-updated')), ENV)));
    expect([error.status, error.body, error.scenario]).toEqual([404, { message: 'Transaction Not Found', error: 'NOT_FOUND' }, 'order-not-found']);
  });
});

describe('listOrders', () => {
  it('every item of every order of the merchant, oldest order first, with timestamps; writes nothing', async () => {
    const store = await newStore();
    order(store, 'SBREF-ORD-A', [{ orderId: 'A-1', amount: '10.00', productId: '7' }, { orderId: 'A-2', amount: '20.50', productId: 'X7' }]);
    order(store, 'SBREF-ORD-B', [{ orderId: 'B-1', amount: '30.00', productId: '8' }]);
    order(store, 'SBREF-ORD-C', [{ orderId: 'C-1', amount: '1.00', productId: '9' }], OTHER.publicKey);
    const facts = factsFor(store, 'listOrders', {}, { params: { publicKey: MERCHANT.publicKey } });
    const done = untouched(store, () => listOrders(facts, selection(scenario('orders-listed'))));
    expect(summary(done)).toMatchObject({ code: '00', message: 'Successful', scenario: 'orders-listed', writes: 0 });
    const at = { createdAt: BEFORE, updatedAt: BEFORE };
    // productId: an integer when it is all digits, else as sent (docs/decisions.md#d19-order-updates); OTHER's order is not
    // listed.
    expect(done.body.data.products).toEqual([
      { amount: 10, currency: 'NGN', productId: 7, productDescription: 'item A-1', paymentReference: 'SBREF-ORD-A', orderId: 'A-1', ...at },
      { amount: 20.5, currency: 'NGN', productId: 'X7', productDescription: 'item A-2', paymentReference: 'SBREF-ORD-A', orderId: 'A-2', ...at },
      { amount: 30, currency: 'NGN', productId: 8, productDescription: 'item B-1', paymentReference: 'SBREF-ORD-B', orderId: 'B-1', ...at },
    ]);
    const theirs = listOrders(factsFor(store, 'listOrders', {}, { merchant: OTHER }), selection(scenario('orders-listed')));
    expect(theirs.body.data.products).toEqual([expect.objectContaining({ orderId: 'C-1', paymentReference: 'SBREF-ORD-C' })]);
  });

  it('a merchant with no order: ApiError 404 Orders Not Found', async () => {
    const store = await newStore();
    const error = untouched(store, () => thrown(() => listOrders(factsFor(store, 'listOrders', {}), selection(scenario('orders-listed')))));
    expect([error.status, error.body, error.scenario]).toEqual([404, { message: 'Orders Not Found', error: 'NOT_FOUND' }, 'orders-not-found']);
  });
});
