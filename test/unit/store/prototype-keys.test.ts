import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { PaymentsApi, send, type Origin } from '../../campaign/support/api.js';
import { PROTOTYPE_NAMES } from '../../campaign/support/fuzz-context.js';
import { fetchOf } from '../../support/in-process.js';
import { accountPayment, order, sandboxForTest } from '../../support/sandbox.js';

/**
 * Names every JavaScript object inherits (`__proto__`, `constructor`,
 * `toString`, `hasOwnProperty`, `valueOf`) are ordinary strings to a
 * merchant: a paymentReference, an order's reference, a path segment, a
 * query value. Each must go through initiate, the control API's lists,
 * validate, refund, the status query, orders and a restart on a data file
 * exactly like `SBREF-1` would, and never reach another record or crash.
 * The campaign's client sends every request, served in process by
 * `sandbox.handle()` (test/unit/store/keys.test.ts has the store's side).
 */

const TIMEOUT = 60_000;

let dir: string;
let sandboxes: Sandbox[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payments-sandbox-proto-'));
});

afterEach(async () => {
  for (const sandbox of sandboxes) await sandbox.close().catch(() => undefined);
  sandboxes = [];
  await rm(dir, { recursive: true, force: true });
});

/** A sandbox of this test, in memory or on `dataFile`, served in process: where the campaign's client sends its requests. */
async function start(dataFile?: string): Promise<Origin> {
  const sandbox = await sandboxForTest(dataFile ? { dataFile } : {});
  sandboxes.push(sandbox);
  return fetchOf(sandbox);
}

/** Every name taken through the whole life of a payment; returns what each answered, for the restart checks. */
async function payEach(api: PaymentsApi): Promise<void> {
  for (const name of PROTOTYPE_NAMES) {
    const initiated = await api.initiate(accountPayment({ paymentReference: name }));
    expect(initiated.status, `${name}: ${JSON.stringify(initiated.body)}`).toBe(200);
    expect(initiated.body.data).toMatchObject({ code: '20', payments: { paymentReference: name } });

    const listed = (await api.payments()).filter((payment) => payment.paymentReference === name);
    expect(listed, `${name} in GET /__sandbox/payments`).toHaveLength(1);
    expect(listed[0]).toMatchObject({ status: 'PENDING', amount: '150.00' });
    const one = await send(api.origin, 'GET', `/__sandbox/payments/${encodeURIComponent(name)}?publicKey=${api.merchant.publicKey}`);
    expect(one.status, `${name}: GET /__sandbox/payments/${name} ${JSON.stringify(one.body)}`).toBe(200);
    expect(one.body).toMatchObject({ paymentReference: name, status: 'PENDING' });

    const pending = await api.query(name);
    expect(pending.status, `${name}: ${JSON.stringify(pending.body)}`).toBe(200);
    expect(pending.body.data).toMatchObject({ code: '20', payments: { paymentReference: name } });

    const validated = await api.validate(initiated.body.data.payments.linkingReference);
    expect(validated.body?.data?.code, `${name}: ${JSON.stringify(validated.body)}`).toBe('00');

    const refunded = await api.refund(name, '50.00');
    expect(refunded.status, `${name}: ${JSON.stringify(refunded.body)}`).toBe(200);
    expect(refunded.body.data).toMatchObject({ code: '00', payments: { paymentReference: name, status: 'REFUNDED' } });

    const again = await api.initiate(accountPayment({ paymentReference: name }));
    expect(again.body?.data?.code, `${name} again: ${JSON.stringify(again.body)}`).toBe('S18');
  }
  const stored = await api.payments();
  for (const name of PROTOTYPE_NAMES) {
    expect(stored.filter((payment) => payment.paymentReference === name), name).toEqual([
      expect.objectContaining({ status: 'SUCCESSFUL', refundedAmount: '50.00', amount: '150.00' }),
    ]);
  }
}

/** Every name as an order's paymentReference: create, update, list. */
async function orderEach(api: PaymentsApi): Promise<void> {
  for (const name of PROTOTYPE_NAMES) {
    const created = await api.call('POST', '/payments/order', order({ paymentReference: name }));
    expect(created.status, `${name}: ${JSON.stringify(created.body)}`).toBe(200);
    expect(created.body.data).toMatchObject({ code: '00' });
    const updated = await api.call('PUT', '/products/orders', {
      paymentReference: name,
      orders: [{ orderId: 'ORD-2', currency: 'NGN', amount: '1750.00', productId: 102, productDescription: 'Socks' }],
    });
    expect(updated.status, `${name}: ${JSON.stringify(updated.body)}`).toBe(200);
    expect(updated.body.data.code).toBe('00');
  }
  const listed = await api.call('GET', `/products/orders/publicKey/${api.merchant.publicKey}`);
  expect(listed.status, JSON.stringify(listed.body)).toBe(200);
  for (const name of PROTOTYPE_NAMES) {
    const items = (listed.body.data.products as Array<{ paymentReference: string; orderId: string; amount: unknown }>).filter((item) => item.paymentReference === name);
    expect(items.map((item) => item.orderId).sort(), name).toEqual(['ORD-1', 'ORD-2']);
  }
  const stored = await api.orders();
  for (const name of PROTOTYPE_NAMES) expect(stored.filter((one) => one.paymentReference === name), name).toHaveLength(1);
}

/** What a restarted sandbox must still know of the payments and orders made by payEach and orderEach. */
async function expectKept(origin: Origin, payer: PaymentsApi, orderer: PaymentsApi): Promise<void> {
  const payments = new PaymentsApi(origin, payer.merchant);
  const stored = await payments.payments();
  for (const name of PROTOTYPE_NAMES) {
    expect(stored.filter((payment) => payment.paymentReference === name), name).toEqual([expect.objectContaining({ status: 'SUCCESSFUL', refundedAmount: '50.00' })]);
    const queried = await payments.query(name);
    expect(queried.status, `${name}: ${JSON.stringify(queried.body)}`).toBe(200);
    expect(queried.body.data.payments.paymentReference).toBe(name);
    expect((await payments.initiate(accountPayment({ paymentReference: name }))).body?.data?.code).toBe('S18');
  }
  const orders = await new PaymentsApi(origin, orderer.merchant).orders();
  expect(orders.map((one) => one.paymentReference).sort()).toEqual([...PROTOTYPE_NAMES].sort());
}

describe('inherited names as references', () => {
  it('each is a paymentReference like any other: initiate, list, validate, refund, status query', { timeout: TIMEOUT }, async () => {
    const served = await start();
    await payEach(await PaymentsApi.as(served));
  });

  it("each is an order's paymentReference like any other: create, update, list", { timeout: TIMEOUT }, async () => {
    const served = await start();
    await orderEach(await PaymentsApi.as(served));
  });

  it('a status query of each, never used, is the documented 500 No transaction found', async () => {
    const served = await start();
    const api = await PaymentsApi.as(served);
    for (const name of PROTOTYPE_NAMES) {
      const answer = await api.query(name);
      expect({ name, status: answer.status, body: answer.body }).toEqual({ name, status: 500, body: { message: 'No transaction found', error: 'PROCESSING' } });
    }
  });

  it('refund, cancel, validate and an order update of each, never used, are refused as for any unknown reference', async () => {
    const served = await start();
    const api = await PaymentsApi.as(served);
    for (const name of PROTOTYPE_NAMES) {
      const refund = await api.refund(name, '10.00');
      expect({ name, status: refund.status, body: refund.body }).toEqual({ name, status: 400, body: { status: 'ERROR', data: { code: 'S12', message: 'No authorised transaction found for this reference' } } });
      const cancel = await api.cancel(name);
      expect({ name, status: cancel.status, body: cancel.body }).toEqual({ name, status: 400, body: { status: 'ERROR', data: { code: 'S12', message: 'No authorised transaction found for this reference' } } });
      const validate = await api.validate(name);
      expect({ name, status: validate.status }).toEqual({ name, status: 404 });
      const update = await api.call('PUT', '/products/orders', { paymentReference: name, orders: [{ orderId: 'ORD-1', currency: 'NGN', amount: '10.00', productId: 1 }] });
      expect({ name, status: update.status, body: update.body }).toEqual({ name, status: 404, body: { message: 'Transaction Not Found', error: 'NOT_FOUND' } });
    }
    expect(await api.payments()).toEqual([]);
    expect(await api.orders()).toEqual([]);
  });

  it('each as a token, a Basic pair, a path publicKey or a control API filter is refused or empty, never another record', async () => {
    const served = await start();
    const api = await PaymentsApi.as(served);
    await api.initiate(accountPayment({ paymentReference: 'SBREF-KEEP' }));
    const before = await send(served, 'GET', '/__sandbox/payments');
    for (const name of PROTOTYPE_NAMES) {
      const token = `Bearer SBTOKEN_${Buffer.from(name).toString('base64url')}.x`;
      const byToken = await api.call('GET', `/products/orders/publicKey/${api.merchant.publicKey}`, undefined, { authorization: token });
      expect({ name, status: byToken.status, body: byToken.body }).toEqual({ name, status: 401, body: { message: 'Invalid Authentication Token', error: 'INPUT' } });
      const byBasic = await api.call('POST', '/payments/refund', { paymentReference: 'SBREF-KEEP', amount: '1.00', currency: 'NGN', country: 'NG' }, {
        authorization: `Basic ${Buffer.from(`${name}:${api.merchant.secretKey}`).toString('base64')}`,
      });
      expect({ name, status: byBasic.status }).toEqual({ name, status: 403 });
      const byPath = await api.call('GET', `/products/orders/publicKey/${encodeURIComponent(name)}`);
      expect({ name, status: byPath.status }).toEqual({ name, status: 401 });
      for (const path of ['/payments', '/orders', '/overrides', '/requests']) {
        const filtered = await send(served, 'GET', `/__sandbox${path}?publicKey=${encodeURIComponent(name)}`);
        expect({ name, path, status: filtered.status }).toEqual({ name, path, status: 200 });
        const list = filtered.body.payments ?? filtered.body.orders ?? filtered.body.overrides ?? filtered.body.requests;
        expect({ name, path, list }).toEqual({ name, path, list: [] });
      }
      const unknown = await send(served, 'GET', `/__sandbox/payments/${encodeURIComponent(name)}`);
      expect({ name, status: unknown.status }).toEqual({ name, status: 404 });
      const reset = await send(served, 'POST', `/__sandbox/reset?publicKey=${encodeURIComponent(name)}`);
      expect({ name, status: reset.status }).toEqual({ name, status: 200 });
    }
    expect(await send(served, 'GET', '/__sandbox/payments')).toMatchObject({ status: 200, body: before.body });
  });
});

describe('inherited names across a restart on a data file', () => {
  it('payments and orders named so are all there after close() and a new start', { timeout: TIMEOUT }, async () => {
    const dataFile = join(dir, 'sandbox.json');
    const first = await start(dataFile);
    const payer = await PaymentsApi.as(first);
    const orderer = await PaymentsApi.as(first);
    await payEach(payer);
    await orderEach(orderer);
    await sandboxes.pop()!.close();

    const second = await start(dataFile);
    await expectKept(second, payer, orderer);
  });

  it('payments and orders named so are all there after a crash (the files as they were, never closed)', { timeout: TIMEOUT }, async () => {
    const dataFile = join(dir, 'sandbox.json');
    const first = await start(dataFile);
    const payer = await PaymentsApi.as(first);
    const orderer = await PaymentsApi.as(first);
    await payEach(payer);
    await orderEach(orderer);

    // A copy of the store's files taken while the sandbox runs is what a crash leaves behind.
    const crashed = join(dir, 'crashed');
    await mkdir(crashed);
    for (const suffix of ['', '.wal']) {
      if (existsSync(`${dataFile}${suffix}`)) await copyFile(`${dataFile}${suffix}`, join(crashed, `sandbox.json${suffix}`));
    }
    const second = await start(join(crashed, 'sandbox.json'));
    await expectKept(second, payer, orderer);
  });
});
