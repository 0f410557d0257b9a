import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CONTROL_API_DOCUMENT, PAYMENTS_API_DOCUMENT, type Sandbox } from '../../../src/index.js';
import { fillSteps } from '../../../src/model/operations.js';
import { accountPayment, type ApiClient, cardPayment, checkoutLink, momoPayment, order, sandboxWithMerchant, type TestMerchant } from '../../support/sandbox.js';

/**
 * Every string of both OpenAPI documents has a maximum length, and a request
 * over one is refused whole, in the API's own error shape, storing nothing
 * (README, "Bounds"). Amounts to pay or refund are above zero and a
 * paymentReference is not empty (docs/decisions.md#d45-zero-amounts-empty-references).
 */

type Schema = Record<string, any>;

/** Every schema of a document whose type admits a string, with where it stands; examples left out. */
function stringSchemas(document: Schema): Array<{ at: string; schema: Schema }> {
  const found: Array<{ at: string; schema: Schema }> = [];
  const walk = (node: unknown, at: string) => {
    if (Array.isArray(node)) return node.forEach((item, index) => walk(item, `${at}/${index}`));
    if (typeof node !== 'object' || node === null) return;
    const schema = node as Schema;
    const type = schema.type;
    if (type === 'string' || (Array.isArray(type) && type.includes('string'))) found.push({ at, schema });
    for (const [key, value] of Object.entries(schema)) if (key !== 'examples' && key !== 'example') walk(value, `${at}/${key}`);
  };
  walk(document, '');
  return found;
}

describe('the documents', () => {
  for (const file of [PAYMENTS_API_DOCUMENT, CONTROL_API_DOCUMENT]) {
    it(`bound every string of ${file.split('/').pop()}: a maxLength, or an enum or const`, () => {
      // As the sandbox reads it: the control API's list of steps filled in (src/model/operations.ts, fillSteps).
      const document = parse(readFileSync(file, 'utf8')) as Schema;
      fillSteps(document);
      const strings = stringSchemas(document);
      expect(strings.length).toBeGreaterThan(60);
      const unbounded = strings.filter(({ schema }) => typeof schema.maxLength !== 'number' && schema.enum === undefined && schema.const === undefined).map(({ at }) => at);
      expect(unbounded).toEqual([]);
    });
  }

  it('bound the arrays a request carries: the items of an order', () => {
    const schemas = parse(readFileSync(PAYMENTS_API_DOCUMENT, 'utf8')).components.schemas;
    expect(schemas.CreateOrderRequest.properties.orders.maxItems).toBe(100);
    expect(schemas.UpdateOrdersRequest.properties.orders.maxItems).toBe(100);
  });
});

describe('the Payments API', () => {
  let sandbox: Sandbox;
  let api: ApiClient;
  let merchant: TestMerchant;

  beforeAll(async () => {
    ({ sandbox, api, merchant } = await sandboxWithMerchant());
  });
  afterAll(() => sandbox.close());

  const initiate = (body: Record<string, unknown>) => api.as(merchant, 'POST', '/payments/initiates', body);
  const stored = () => sandbox.store.payments(merchant.publicKey).map((payment) => payment.paymentReference);

  it('refuses a 500,000-character paymentReference with 400 INPUT naming it, and stores nothing', async () => {
    const before = stored();
    const paymentReference = 'R'.repeat(500_000);
    const response = await initiate(cardPayment({ paymentReference }));
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ message: 'paymentReference must NOT have more than 200 characters', error: 'INPUT' });
    expect(stored()).toEqual(before);
    expect(sandbox.store.payment(merchant.publicKey, paymentReference)).toBeUndefined();
  });

  it('takes a paymentReference of exactly 200 characters, and refuses one of 201', async () => {
    const longest = `MAX-${'7'.repeat(196)}`;
    expect((await initiate(accountPayment({ paymentReference: longest }))).body.data.code).toBe('20');
    expect(sandbox.store.payment(merchant.publicKey, longest)?.paymentReference).toBe(longest);
    expect((await initiate(accountPayment({ paymentReference: `${longest}8` }))).status).toBe(400);
  });

  it('refuses every over-long field of a request at once, naming each, even where a wrong value is otherwise kept with a warning', async () => {
    const response = await initiate(cardPayment({ fullName: 'N'.repeat(201), productDescription: 'D'.repeat(1001), redirectUrl: `www.shop.example/${'u'.repeat(2040)}` }));
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('INPUT');
    for (const sentence of ['fullName must NOT have more than 200 characters', 'productDescription must NOT have more than 1000 characters', 'redirectUrl must NOT have more than 2048 characters']) {
      expect(response.body.message).toContain(sentence);
    }
  });

  it('bounds the other operations alike: a link, an order, a completion, a status query', async () => {
    const link = await api.as(merchant, 'POST', '/payments', checkoutLink({ email: `${'e'.repeat(320)}@example.com` }));
    expect([link.status, link.body.message]).toEqual([400, 'email must NOT have more than 320 characters']);
    const items = Array.from({ length: 101 }, (_, n) => ({ orderId: `ORD-${n}`, currency: 'NGN', amount: '1.00', productId: '1' }));
    const tooMany = await api.as(merchant, 'POST', '/payments/order', order({ orders: items }));
    expect([tooMany.status, tooMany.body.message]).toEqual([400, 'orders must NOT have more than 100 items']);
    // A string productId on an update is kept with a warning, where the spec shows integers: bounded all the same.
    const update = await api.as(merchant, 'PUT', '/products/orders', { paymentReference: 'ANY', orders: [{ orderId: 'ORD-1', currency: 'NGN', amount: '1.00', productId: 'p'.repeat(201) }] });
    expect([update.status, update.body.message]).toEqual([400, 'orders.0.productId must NOT have more than 200 characters']);
    const otp = await api.as(merchant, 'POST', '/payments/validate', { linkingReference: 'SBLNK_00000000000000000000', otp: '1'.repeat(33) });
    expect([otp.status, otp.body.message]).toEqual([400, 'otp must NOT have more than 32 characters']);
    const query = await api.send('GET', `/payments/query/${'Q'.repeat(201)}`, undefined, `Bearer ${merchant.token}`);
    expect([query.status, query.body.error]).toEqual([400, 'INPUT']);
  });

  it("answers refund's over-long field in the provider's body", async () => {
    const response = await api.send('POST', '/payments/refund', { publicKey: merchant.publicKey, paymentReference: 'F'.repeat(201), amount: '10.00', currency: 'NGN', country: 'NG' }, merchant.basic);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ status: 'ERROR', data: { code: 'S12', message: 'Invalid/Missing parameters = paymentReference' } });
  });

  it('keeps the message of a request with hundreds of wrong fields short, counting the rest', async () => {
    const items = Array.from({ length: 100 }, (_, n) => ({ orderId: `ORD-${n}`, currency: 'NGN', amount: 'x', productId: '' }));
    const response = await api.as(merchant, 'POST', '/payments/order', order({ orders: items }));
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/; and \d+ more$/);
    expect(response.body.message.split('; ')).toHaveLength(11);
  });
});

describe('zero amounts and empty references', () => {
  let sandbox: Sandbox;
  let api: ApiClient;
  let merchant: TestMerchant;

  beforeAll(async () => {
    ({ sandbox, api, merchant } = await sandboxWithMerchant());
  });
  afterAll(() => sandbox.close());

  const initiate = (body: Record<string, unknown>) => api.as(merchant, 'POST', '/payments/initiates', body);
  let storedBefore = 0;
  const nothingStored = () => expect(sandbox.store.payments(merchant.publicKey)).toHaveLength(storedBefore);
  beforeEach(() => {
    storedBefore = sandbox.store.payments(merchant.publicKey).length;
  });

  it('refuses a MOMO initiate of "0.00", "0" or 0 with 400 INPUT naming amount, storing nothing, and takes the smallest amounts above zero', async () => {
    for (const amount of ['0.00', '0', '0.0', 0]) {
      const response = await initiate(momoPayment({ amount }));
      expect(response.status, String(amount)).toBe(400);
      expect(response.body.error).toBe('INPUT');
      expect(response.body.message).toMatch(/^amount must match pattern/);
    }
    nothingStored();
    for (const amount of ['0.01', '0.5', '1']) expect((await initiate(momoPayment({ amount }))).body.data.code, amount).toBe('NIP');
    // A fee is no payment: zero stays a fee's value.
    expect((await initiate(momoPayment({ amount: '10.00', fee: '0.00' }))).body.data.code).toBe('NIP');
  });

  it('refuses zero for every variant, a checkout link and an order alike (an account payment too: zero is no amount, not a small one)', async () => {
    for (const body of [cardPayment({ amount: '0.00' }), accountPayment({ amount: '0.00' })]) expect((await initiate(body)).status).toBe(400);
    expect((await api.as(merchant, 'POST', '/payments', checkoutLink({ amount: '0.00' }))).status).toBe(400);
    expect((await api.as(merchant, 'POST', '/payments/order', order({ amount: '0.00' }))).status).toBe(400);
    const freeItem = order({ orders: [{ orderId: 'ORD-1', currency: 'NGN', amount: '0.00', productId: '101' }] });
    expect((await api.as(merchant, 'POST', '/payments/order', freeItem)).status).toBe(400);
    nothingStored();
  });

  it('refuses an empty paymentReference with 400 INPUT naming it, and stores nothing', async () => {
    const response = await initiate(cardPayment({ paymentReference: '' }));
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ message: 'paymentReference must NOT have fewer than 1 characters', error: 'INPUT' });
    nothingStored();
  });

  it("refuses a refund of zero in the provider's body, and leaves the payment as it was", async () => {
    const paid = await api.as(merchant, 'POST', '/payments/initiates', accountPayment({ paymentReference: 'ZERO-REFUND-1' }));
    await api.as(merchant, 'POST', '/payments/validate', { linkingReference: paid.body.data.payments.linkingReference, otp: '123456' });
    const before = sandbox.store.payment(merchant.publicKey, 'ZERO-REFUND-1');
    expect(before?.status).toBe('SUCCESSFUL');
    const response = await api.send('POST', '/payments/refund', { publicKey: merchant.publicKey, paymentReference: 'ZERO-REFUND-1', amount: '0.00', currency: 'NGN', country: 'NG' }, merchant.basic);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ status: 'ERROR', data: { code: 'S12', message: 'Invalid/Missing parameters = amount' } });
    expect(sandbox.store.payment(merchant.publicKey, 'ZERO-REFUND-1')).toEqual(before);
  });
});
