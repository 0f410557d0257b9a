import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { ApiClient, checkoutLink, order, sandboxWithMerchant, type TestMerchant } from '../../support/sandbox.js';

let sandbox: Sandbox;
let api: ApiClient;
let merchant: TestMerchant;

beforeAll(async () => {
  ({ sandbox, api, merchant } = await sandboxWithMerchant());
});
afterAll(() => sandbox.close());

// The rule of docs/decisions.md#d10-checkout-hash, written out independently of src/.
function expectedHash(body: Record<string, unknown>, secretKey: string): string {
  const fields = ['amount', 'callbackUrl', 'country', 'currency', 'email', 'paymentReference', 'productDescription', 'productId', 'publicKey'];
  const joined = fields.filter((name) => body[name] !== undefined).map((name) => `${name}=${body[name]}`).join('&');
  return createHash('sha256').update(`${joined}${secretKey}`).digest('hex');
}

describe('POST /encrypt/hashs', () => {
  it('answers the hosted checkout hash at data.hash.hash', async () => {
    const body = { ...checkoutLink(), publicKey: merchant.publicKey, callbackUrl: 'https://merchant.example.com/cb?a=1&b=two%20words' };
    const response = await api.as(merchant, 'POST', '/encrypt/hashs', body);
    expect(response.body.data).toMatchObject({ code: '00', message: 'Successful' });
    expect(response.body.data.hash.hash).toBe(expectedHash(body, merchant.secretKey));
  });
});

describe('POST /encrypt/hashs without a token (the provider gives it no security)', () => {
  it('finds the merchant by the body\'s publicKey', async () => {
    const body = { ...checkoutLink(), publicKey: merchant.publicKey };
    const response = await api.send('POST', '/encrypt/hashs', body);
    expect(response.status).toBe(200);
    expect(response.body.data.hash.hash).toBe(expectedHash(body, merchant.secretKey));
  });

  it('answers the provider\'s 400 Bad credentials = invalid public key for a key it has not seen, and 403 for a live one', async () => {
    const unknown = await api.send('POST', '/encrypt/hashs', checkoutLink({ publicKey: 'SBTESTPUBK_neverseen0000' }));
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ status: 'ERROR', data: { code: 'S12', message: 'Bad credentials = invalid public key' } });
    const live = await api.send('POST', '/encrypt/hashs', checkoutLink({ publicKey: 'SBPUBK_r5Tg2Hn8Vb1Yc6Ke' }));
    expect(live.status).toBe(403);
    expect(live.body).toEqual({ message: 'Confirm Merchant Environment', error: 'PERMISSION' });
  });

  it('still checks a token that is sent', async () => {
    const other = await api.merchant();
    const response = await api.send('POST', '/encrypt/hashs', { ...checkoutLink(), publicKey: merchant.publicKey }, `Bearer ${other.token}`);
    expect(response.status).toBe(401);
  });
});

describe('POST /payments (hosted checkout link)', () => {
  it('with the right hash answers a redirectLink on the sandbox and a paymentStatus, and stores a pending payment', async () => {
    const body: Record<string, unknown> = { ...checkoutLink(), publicKey: merchant.publicKey };
    const response = await api.as(merchant, 'POST', '/payments', { ...body, hash: expectedHash(body, merchant.secretKey), hashType: 'sha256' });
    expect(response.body.data).toMatchObject({ code: '00', message: 'Successful', payments: { paymentStatus: '08' } });
    expect(response.body.data.payments.redirectLink).toMatch(new RegExp(`^${sandbox.publicUrl}/pages/checkout/SBLNK_[0-9a-f]{20}$`));
    expect(sandbox.store.payment(merchant.publicKey, String(body.paymentReference))).toMatchObject({ status: 'PENDING', method: 'CHECKOUT' });
  });

  it('with a wrong hash answers 500 INVALID HASH and stores nothing', async () => {
    const body = checkoutLink({ hash: '0'.repeat(64), hashType: 'sha256' });
    const response = await api.as(merchant, 'POST', '/payments', body);
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ message: 'INVALID HASH', error: 'PROCESSING' });
    expect(sandbox.store.payment(merchant.publicKey, String(body.paymentReference))).toBeUndefined();
  });

  it('without a hash is accepted; a repeated reference answers 500 Transaction with reference exists', async () => {
    const body = checkoutLink();
    expect((await api.as(merchant, 'POST', '/payments', body)).status).toBe(200);
    const again = await api.as(merchant, 'POST', '/payments', body);
    expect(again.status).toBe(500);
    expect(again.body).toEqual({ message: 'Transaction with reference exists', error: 'PROCESSING' });
    expect(again.headers['x-sandbox-scenario']).toBe('duplicate-reference-link');
  });

  it('refuses a callbackUrl that is not http or https with 400', async () => {
    const response = await api.as(merchant, 'POST', '/payments', checkoutLink({ callbackUrl: 'javascript:alert(1)' }));
    expect(response.status).toBe(400);
    expect(response.body.message).toContain('callbackUrl');
  });
});

describe('orders', () => {
  it('holds at most 1000 items whatever updates add: one more is 400 INPUT and the order stays as it was', async () => {
    const body = order();
    await api.as(merchant, 'POST', '/payments/order', body);
    const items = (from: number) =>
      Array.from({ length: 100 }, (_, n) => ({ orderId: `BOUND-${from + n}`, currency: 'NGN', amount: '1.00', productId: 1, productDescription: 'Bead' }));
    // 2 items at creation, then 998 added: exactly the bound.
    for (let from = 0; from < 900; from += 100) {
      expect((await api.as(merchant, 'PUT', '/products/orders', { paymentReference: body.paymentReference, orders: items(from) })).status).toBe(200);
    }
    expect((await api.as(merchant, 'PUT', '/products/orders', { paymentReference: body.paymentReference, orders: items(900).slice(0, 98) })).status).toBe(200);
    const refused = await api.as(merchant, 'PUT', '/products/orders', { paymentReference: body.paymentReference, orders: [{ orderId: 'ONE-MORE', currency: 'NGN', amount: '1.00', productId: 1, productDescription: 'Bead' }] });
    expect([refused.status, refused.body]).toEqual([400, { message: 'orders: an order holds at most 1000 items, and this update would make it 1001', error: 'INPUT' }]);
    const listed = await api.as(merchant, 'GET', `/products/orders/publicKey/${merchant.publicKey}`);
    expect(listed.body.data.products.filter((item: { paymentReference: string }) => item.paymentReference === body.paymentReference)).toHaveLength(1000);
  });

  it('creates an order, updates an item, lists the items with integer productId and UTC timestamps', async () => {
    const body = order();
    const created = await api.as(merchant, 'POST', '/payments/order', body);
    expect(created.body.data).toMatchObject({ code: '00', message: 'Successful', payments: { amount: 4500, paymentReference: body.paymentReference, paymentStatus: '08' } });
    expect(created.body.data.payments.redirectLink).toContain('/pages/checkout/SBLNK_');

    const updated = await api.as(merchant, 'PUT', '/products/orders', {
      paymentReference: body.paymentReference,
      orders: [{ orderId: 'ORD-2', currency: 'NGN', amount: '1750.00', productId: 102, productDescription: 'Socks, wool' }],
    });
    expect(updated.body.data).toMatchObject({ code: '00', message: 'Successful' });
    expect(updated.body.data.products).toEqual([
      expect.objectContaining({ orderId: 'ORD-2', amount: 1750, productId: 102, productDescription: 'Socks, wool', paymentReference: body.paymentReference }),
    ]);

    const listed = await api.as(merchant, 'GET', `/products/orders/publicKey/${merchant.publicKey}`);
    const items = listed.body.data.products.filter((item: { paymentReference: string }) => item.paymentReference === body.paymentReference);
    expect(items.map((item: { orderId: string; amount: number; productId: number }) => [item.orderId, item.amount, item.productId])).toEqual([
      ['ORD-1', 3000, 101],
      ['ORD-2', 1750, 102],
    ]);
    for (const item of items) {
      expect(item.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(item.updatedAt >= item.createdAt).toBe(true);
    }
  });

  it('a repeated reference answers 500 Transaction with reference exists', async () => {
    const body = order();
    await api.as(merchant, 'POST', '/payments/order', body);
    const again = await api.as(merchant, 'POST', '/payments/order', body);
    expect(again.status).toBe(500);
    expect(again.body).toEqual({ message: 'Transaction with reference exists', error: 'PROCESSING' });
  });

  it('takes a productId name on create, and on update with a warning; answers digits as integers and names as sent', async () => {
    const body = order({ orders: [{ orderId: 'X', currency: 'NGN', amount: '200.00', productId: 'fruits', productDescription: 'mango' }] });
    const created = await api.as(merchant, 'POST', '/payments/order', body);
    expect(created.status).toBe(200);
    expect(created.headers['x-sandbox-warnings']).toBeUndefined();
    const update = await api.as(merchant, 'PUT', '/products/orders', {
      paymentReference: body.paymentReference,
      orders: [{ orderId: 'Y', currency: 'NGN', amount: '10.00', productId: 'veg' }, { orderId: 'Z', currency: 'NGN', amount: '5.00', productId: '0042' }],
    });
    expect(update.status).toBe(200);
    expect(update.headers['x-sandbox-warnings']).toBe('orders.0.productId: a string, the spec sends an integer here; orders.1.productId: a string, the spec sends an integer here');
    expect(update.body.data.products.map((item: { productId: unknown }) => item.productId)).toEqual(['veg', 42]);
    const listed = await api.as(merchant, 'GET', `/products/orders/publicKey/${merchant.publicKey}`);
    const mine = listed.body.data.products.filter((item: { paymentReference: string }) => item.paymentReference === body.paymentReference);
    expect(mine.map((item: { orderId: string; productId: unknown }) => [item.orderId, item.productId])).toEqual([['X', 'fruits'], ['Y', 'veg'], ['Z', 42]]);
  });

  it('still refuses an empty productId (400 INPUT naming it)', async () => {
    const create = await api.as(merchant, 'POST', '/payments/order', order({ orders: [{ orderId: 'X', currency: 'NGN', amount: '200.00', productId: '' }] }));
    expect(create.status).toBe(400);
    expect(create.body.message).toContain('orders.0.productId');
  });

  it('answers the provider\'s 404 Transaction Not Found when updating an order that does not exist', async () => {
    const response = await api.as(merchant, 'PUT', '/products/orders', {
      paymentReference: 'SBREF-ORD-9999',
      orders: [{ orderId: 'ORD-1', currency: 'NGN', amount: '10.00', productId: 1 }],
    });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ message: 'Transaction Not Found', error: 'NOT_FOUND' });
  });

  it('answers the provider\'s 404 Orders Not Found to a merchant with no order', async () => {
    const fresh = await api.merchant();
    const response = await api.as(fresh, 'GET', `/products/orders/publicKey/${fresh.publicKey}`);
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ message: 'Orders Not Found', error: 'NOT_FOUND' });
    expect(response.headers['x-sandbox-scenario']).toBe('orders-not-found');
  });

  it('never lists another merchant\'s orders', async () => {
    const other = await api.merchant();
    await api.as(other, 'POST', '/payments/order', order());
    const listed = await api.as(merchant, 'GET', `/products/orders/publicKey/${merchant.publicKey}`);
    const otherListed = await api.as(other, 'GET', `/products/orders/publicKey/${other.publicKey}`);
    expect(otherListed.body.data.products).toHaveLength(2);
    expect(listed.body.data.products.every((item: { paymentReference: string }) => sandbox.store.order(merchant.publicKey, item.paymentReference))).toBe(true);
  });
});
