import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { accountPayment, ApiClient, freshReference, sandboxWithMerchant, type TestMerchant } from '../../support/sandbox.js';

/**
 * An order after payment and the order look-ups (docs/decisions.md#d54-orders-after-payment;
 * external-api.yml, CreateOrder and the look-ups by paymentReference and orderId).
 */

let sandbox: Sandbox;
let api: ApiClient;
let merchant: TestMerchant;

beforeAll(async () => {
  ({ sandbox, api, merchant } = await sandboxWithMerchant());
});
afterAll(() => sandbox.close());

const line = (amount: string, fields: Record<string, unknown> = {}) => ({ currency: 'NGN', amount, productId: 'fruits', productDescription: 'mango', ...fields });

describe('POST /products/orders and the look-ups', () => {
  it('adds lines to a payment made, giving each an orderId, adds more to the same order, and finds them by reference and by orderId', async () => {
    const payment = accountPayment();
    await api.as(merchant, 'POST', '/payments/initiates', payment);
    const first = await api.as(merchant, 'POST', '/products/orders', { paymentReference: payment.paymentReference, orders: [line('500.00'), line('900.00', { orderId: 'MINE-1' })] });
    expect(first.status).toBe(201);
    const ids = first.body.data.products.map((item: { orderId: string }) => item.orderId);
    expect(ids[0]).toMatch(/^ord[0-9a-f]{7}$/);
    expect(ids[1]).toBe('MINE-1');
    const second = await api.as(merchant, 'POST', '/products/orders', { paymentReference: payment.paymentReference, orders: [line('100.00')] });
    expect(second.body.data.products).toHaveLength(1);
    expect(second.body.data.products[0].orderId).not.toBe(ids[0]);
    expect(sandbox.store.order(merchant.publicKey, String(payment.paymentReference))?.items).toHaveLength(3);

    const byReference = await api.send('GET', `/products/orders/publicKey/${merchant.publicKey}/paymentReference/${payment.paymentReference}`, undefined, `Bearer ${merchant.token}`);
    expect(byReference.status).toBe(200);
    expect(byReference.body.data.products.map((item: { amount: number }) => item.amount)).toEqual([500, 900, 100]);
    const byOrderId = await api.send('GET', `/products/orders/publicKey/${merchant.publicKey}/orderId/MINE-1`, undefined, `Bearer ${merchant.token}`);
    expect(byOrderId.body.data.products).toEqual([expect.objectContaining({ orderId: 'MINE-1', amount: 900, paymentReference: payment.paymentReference })]);
  });

  it('answers the provider\'s 404s: an order for a payment never made (Transaction Not Found, nothing stored), and look-ups that find none (Orders Not Found)', async () => {
    const reference = freshReference();
    const unknown = await api.as(merchant, 'POST', '/products/orders', { paymentReference: reference, orders: [line('5.00')] });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: 'Transaction Not Found', error: 'NOT_FOUND' });
    expect(sandbox.store.order(merchant.publicKey, reference)).toBeUndefined();
    for (const path of [`/products/orders/publicKey/${merchant.publicKey}/paymentReference/${reference}`, `/products/orders/publicKey/${merchant.publicKey}/orderId/NONE-1`]) {
      const none = await api.send('GET', path, undefined, `Bearer ${merchant.token}`);
      expect(none.status, path).toBe(404);
      expect(none.body, path).toEqual({ message: 'Orders Not Found', error: 'NOT_FOUND' });
    }
  });

  it('another merchant\'s order is none of this one\'s, by reference or by orderId', async () => {
    const other = await api.merchant();
    const payment = accountPayment();
    await api.as(merchant, 'POST', '/payments/initiates', payment);
    await api.as(merchant, 'POST', '/products/orders', { paymentReference: payment.paymentReference, orders: [line('5.00', { orderId: 'PRIVATE-1' })] });
    const byReference = await api.send('GET', `/products/orders/publicKey/${other.publicKey}/paymentReference/${payment.paymentReference}`, undefined, `Bearer ${other.token}`);
    expect(byReference.status).toBe(404);
    const byOrderId = await api.send('GET', `/products/orders/publicKey/${other.publicKey}/orderId/PRIVATE-1`, undefined, `Bearer ${other.token}`);
    expect(byOrderId.status).toBe(404);
    // Another merchant's public key in the path, with this merchant's token: refused as the spec's list is.
    const foreign = await api.send('GET', `/products/orders/publicKey/${merchant.publicKey}/orderId/PRIVATE-1`, undefined, `Bearer ${other.token}`);
    const list = await api.send('GET', `/products/orders/publicKey/${merchant.publicKey}`, undefined, `Bearer ${other.token}`);
    expect(foreign.status).toBeGreaterThanOrEqual(400);
    expect({ status: foreign.status, body: foreign.body }).toEqual({ status: list.status, body: list.body });
    expect(JSON.stringify(foreign.body)).not.toContain('PRIVATE-1');
  });
});
