import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalogue, type Sandbox } from '../../../src/index.js';
import { ControlClient } from '../../support/control.js';
import {
  accountPayment,
  ApiClient,
  cardPayment,
  momoPayment,
  order,
  sandboxForTest,
  transferPayment,
  type TestMerchant,
} from '../../support/sandbox.js';

/**
 * Every endpoint of the control API under /__sandbox, on a real sandbox over
 * loopback, and what its overrides, journal and state views do to and show of
 * the Payments API. Every control answer is checked against
 * openapi/control-api.yaml, every Payments API answer against
 * openapi/payments-api.yaml.
 */

let sandbox: Sandbox;
let api: ApiClient;
let control: ControlClient;

beforeAll(async () => {
  sandbox = await sandboxForTest({ seed: 'control-api' });
  api = await ApiClient.for(sandbox);
  control = await ControlClient.for(sandbox);
});
afterAll(() => sandbox.close());
afterEach(async () => {
  expect((await control.deleteOverrides()).status).toBe(204);
});

const initiate = (merchant: TestMerchant, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  api.send('POST', '/payments/initiates', { publicKey: merchant.publicKey, ...body }, `Bearer ${merchant.token}`, undefined, { headers, timeoutMs: 5000 });

const listOrders = (merchant: TestMerchant) => api.as(merchant, 'GET', `/products/orders/publicKey/${merchant.publicKey}`);

describe('health and readiness', () => {
  it('GET /health answers ok and GET /ready names every check', async () => {
    const health = await control.health();
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });

    const ready = await control.ready();
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { documents: true, catalogue: true, store: true } });
  });

  it('answers 404 NOT_FOUND for a path the control API does not have', async () => {
    const response = await control.send('GET', '/no-such-thing');
    expect(response.status).toBe(404);
    expect(response.body.error).toBe('NOT_FOUND');
  });
});

describe('GET /scenarios', () => {
  it('lists the shipped catalogue in the order it is tried, with what each applies to', async () => {
    const shipped = await loadCatalogue();
    const response = await control.scenarios();
    expect(response.status).toBe(200);
    const listed = response.body.scenarios as Array<{ name: string; explicit: boolean; operations: string[] }>;
    expect(listed.map((scenario) => scenario.name)).toEqual(shipped.map((scenario) => scenario.name));
    const byName = new Map(listed.map((scenario) => [scenario.name, scenario]));
    expect(byName.get('account-pending')).toMatchObject({ explicit: false, operations: ['initiatePayment'] });
    expect(byName.get('otp-correct')).toMatchObject({ explicit: false, operations: ['validatePayment', 'completeMomoPayment', 'completeCardOtp'] });
    expect(byName.get('hang')).toMatchObject({ explicit: true });
    expect(byName.get('transaction-failed')!.operations).toEqual(['initiatePayment', 'validatePayment', 'completeMomoPayment', 'refundPayment', 'cancelPayment', 'queryPayment', 'authorisePayment', 'authorisePayment3ds', 'capturePayment', 'chargeCard', 'tokenizeCard', 'completeCardOtp', 'queryPaymentV3', 'createCardToken', 'chargeToken', 'createSubscription', 'updateSubscription', 'chargeSubscription']);
  });
});

describe('overrides: create, list, delete', () => {
  it('creates one, lists it (for its merchant only with ?publicKey=), deletes it, then answers 404 for its id', async () => {
    const a = await api.merchant();
    const b = await api.merchant();
    const mine = await control.override({ scenario: 'card-declined', publicKey: a.publicKey, times: 2 });
    expect(mine).toMatchObject({ scenario: 'card-declined', publicKey: a.publicKey, times: 2 });
    expect(mine.id).not.toBe('');
    const everyone = await control.override({ delay: { ms: 1 } });

    const all = await control.overrides();
    expect(all.body.overrides.map((override: { id: string }) => override.id)).toEqual([mine.id, everyone.id]);
    expect((await control.overrides(a.publicKey)).body.overrides.map((override: { id: string }) => override.id)).toEqual([mine.id]);
    expect((await control.overrides(b.publicKey)).body.overrides).toEqual([]);

    expect((await control.deleteOverride(mine.id)).status).toBe(204);
    expect((await control.overrides()).body.overrides.map((override: { id: string }) => override.id)).toEqual([everyone.id]);
    const again = await control.deleteOverride(mine.id);
    expect(again.status).toBe(404);
    expect(again.body.error).toBe('NOT_FOUND');
    expect(again.body.message).toContain(mine.id);
  });

  it('DELETE /overrides?publicKey= removes that merchant\'s only; DELETE /overrides removes every one, sandbox-wide included', async () => {
    const a = await api.merchant();
    const b = await api.merchant();
    await control.override({ scenario: 'transaction-failed', publicKey: a.publicKey });
    const kept = await control.override({ scenario: 'transaction-failed', publicKey: b.publicKey });
    const global = await control.override({ delay: { ms: 1 } });

    expect((await control.deleteOverrides(a.publicKey)).status).toBe(204);
    expect((await control.overrides()).body.overrides.map((override: { id: string }) => override.id)).toEqual([kept.id, global.id]);

    expect((await control.deleteOverrides()).status).toBe(204);
    expect((await control.overrides()).body.overrides).toEqual([]);
    // Nothing forced any more: the values decide.
    expect((await initiate(a, accountPayment())).body.data.code).toBe('20');
  });

  it('answers 400 INPUT naming an unknown scenario, and creates nothing', async () => {
    const response = await control.createOverride({ scenario: 'no-such-rule' });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('INPUT');
    expect(response.body.message).toContain('no-such-rule');
    expect((await control.overrides()).body.overrides).toEqual([]);
  });

  it('answers 400 INPUT for a body with neither scenario, delay nor fault, and creates nothing', async () => {
    const merchant = await api.merchant();
    for (const body of [{ publicKey: merchant.publicKey }, { publicKey: merchant.publicKey, times: 2 }, {}]) {
      const response = await control.createOverride(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error).toBe('INPUT');
    }
    expect((await control.overrides()).body.overrides).toEqual([]);
  });

  it('answers 400 INPUT for a body that is not JSON', async () => {
    const response = await control.send('POST', '/overrides', { raw: '{"scenario": ' });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('INPUT');
  });
});

describe('overrides: whom and how often they apply', () => {
  it('an override for one merchant does not touch another merchant', async () => {
    const a = await api.merchant();
    const b = await api.merchant();
    await control.override({ scenario: 'transaction-failed', publicKey: a.publicKey });

    const forA = await initiate(a, accountPayment());
    expect(forA.body.data.code).toBe('S12');
    expect(forA.headers['x-sandbox-scenario']).toBe('transaction-failed');
    const forB = await initiate(b, accountPayment());
    expect(forB.body.data.code).toBe('20');
    expect(forB.headers['x-sandbox-scenario']).toBe('account-pending');
  });

  it('a sandbox-wide override applies to every merchant', async () => {
    const a = await api.merchant();
    const b = await api.merchant();
    await control.override({ scenario: 'transaction-failed' });
    for (const merchant of [a, b]) {
      const response = await initiate(merchant, accountPayment());
      expect(response.body.data.code).toBe('S12');
      expect(response.headers['x-sandbox-scenario']).toBe('transaction-failed');
    }
  });

  it('`times: 2` is used by exactly two requests, counts down, and then is gone', async () => {
    const merchant = await api.merchant();
    const created = await control.override({ scenario: 'transaction-failed', publicKey: merchant.publicKey, times: 2 });

    expect((await initiate(merchant, accountPayment())).body.data.code).toBe('S12');
    expect((await control.overrides(merchant.publicKey)).body.overrides).toEqual([expect.objectContaining({ id: created.id, times: 1 })]);
    expect((await initiate(merchant, accountPayment())).body.data.code).toBe('S12');
    expect((await control.overrides(merchant.publicKey)).body.overrides).toEqual([]);
    const third = await initiate(merchant, accountPayment());
    expect(third.body.data.code).toBe('20');
    expect(third.headers['x-sandbox-scenario']).toBe('account-pending');
    expect((await control.deleteOverride(created.id)).status).toBe(404);
  });

  it('a sticky override (no `times`) keeps applying and stays listed', async () => {
    const merchant = await api.merchant();
    const created = await control.override({ scenario: 'transaction-failed', publicKey: merchant.publicKey });
    for (let n = 0; n < 4; n += 1) expect((await initiate(merchant, accountPayment())).body.data.code).toBe('S12');
    const listed = (await control.overrides(merchant.publicKey)).body.overrides;
    expect(listed).toHaveLength(1);
    expect(listed[0].id).toBe(created.id);
    expect(listed[0]).not.toHaveProperty('times');
  });

  it('precedence: the X-Sandbox-Scenario header, then the override, then the values of the request', async () => {
    const merchant = await api.merchant();
    await control.override({ scenario: 'transaction-failed', publicKey: merchant.publicKey, times: 1 });

    // The header wins, and the override is not used up by that request.
    const byHeader = await initiate(merchant, accountPayment(), { 'X-Sandbox-Scenario': 'reference-not-unique' });
    expect(byHeader.body.data.code).toBe('S12');
    expect(byHeader.body.data.message).toBe('Cant process at this moment, please try again Transaction reference must be unique');
    expect(byHeader.headers['x-sandbox-scenario']).toBe('reference-not-unique');
    expect((await control.overrides(merchant.publicKey)).body.overrides).toHaveLength(1);

    const byOverride = await initiate(merchant, accountPayment());
    expect(byOverride.body.data).toMatchObject({ code: 'S12', message: 'Transaction Failed' });
    expect(byOverride.headers['x-sandbox-scenario']).toBe('transaction-failed');

    const byValues = await initiate(merchant, accountPayment());
    expect(byValues.body.data.code).toBe('20');
    expect(byValues.headers['x-sandbox-scenario']).toBe('account-pending');
  });

  it('an override whose scenario does not apply to an operation is left for a request it applies to', async () => {
    const merchant = await api.merchant();
    const created = await control.override({ scenario: 'card-declined', publicKey: merchant.publicKey, times: 1 });

    // Neither an order list nor an account payment can be declined as a card.
    expect((await listOrders(merchant)).headers['x-sandbox-scenario']).toBe('orders-not-found');
    const account = await initiate(merchant, accountPayment());
    expect(account.body.data.code).toBe('20');
    expect((await control.overrides(merchant.publicKey)).body.overrides).toEqual([expect.objectContaining({ id: created.id, times: 1 })]);

    const card = await initiate(merchant, cardPayment());
    expect(card.body.data.code).toBe('S12');
    expect(card.headers['x-sandbox-scenario']).toBe('card-declined');
    expect((await control.overrides(merchant.publicKey)).body.overrides).toEqual([]);
  });

  it('the merchant\'s own override comes before a sandbox-wide one', async () => {
    const merchant = await api.merchant();
    await control.override({ scenario: 'transaction-failed' });
    await control.override({ scenario: 'reference-not-unique', publicKey: merchant.publicKey, times: 1 });
    expect((await initiate(merchant, accountPayment())).headers['x-sandbox-scenario']).toBe('reference-not-unique');
    expect((await initiate(merchant, accountPayment())).headers['x-sandbox-scenario']).toBe('transaction-failed');
  });

  it('an unknown X-Sandbox-Scenario header answers 400 INPUT naming it, and nothing is stored', async () => {
    const merchant = await api.merchant();
    const body = accountPayment();
    const response = await initiate(merchant, body, { 'X-Sandbox-Scenario': 'no-such-rule' });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('INPUT');
    expect(response.body.message).toContain('no-such-rule');
    expect((await control.payment(String(body.paymentReference), merchant.publicKey)).status).toBe(404);
  });
});

describe('GET and DELETE /requests (the journal)', () => {
  it('lists requests newest first, with operation, status and deciding scenario', async () => {
    const merchant = await api.merchant();
    const first = accountPayment();
    const second = momoPayment();
    await initiate(merchant, first);
    await initiate(merchant, second);
    await listOrders(merchant);

    const response = await control.requests({ publicKey: merchant.publicKey });
    expect(response.status).toBe(200);
    const entries = response.body.requests;
    expect(entries.map((entry: { path: string }) => entry.path)).toEqual([
      `/products/orders/publicKey/${merchant.publicKey}`,
      '/payments/initiates',
      '/payments/initiates',
      '/encrypt/keys',
    ]);
    expect(entries.map((entry: { paymentReference?: string }) => entry.paymentReference)).toEqual([undefined, second.paymentReference, first.paymentReference, undefined]);
    expect(entries.map((entry: { scenario?: string }) => entry.scenario)).toEqual(['orders-not-found', 'momo-otp-requested', 'account-pending', 'keys-exchanged']);
    expect(entries.map((entry: { operation?: string }) => entry.operation)).toEqual(['listOrders', 'initiatePayment', 'initiatePayment', 'exchangeKeys']);
    expect(entries.map((entry: { status: number }) => entry.status)).toEqual([404, 200, 200, 200]);
    const ids = entries.map((entry: { id: number }) => entry.id);
    expect([...ids].sort((x, y) => y - x)).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(entries[1].response.body.data.code).toBe('NIP');
    expect(response.body.count).toBe(4);
  });

  it('filters by path, publicKey, paymentReference and limit, and the filters combine', async () => {
    const a = await api.merchant();
    const b = await api.merchant();
    const shared = accountPayment();
    await initiate(a, shared);
    await initiate(b, shared);
    const other = accountPayment();
    await initiate(a, other);
    await listOrders(a);

    const byPath = await control.requests({ path: '/payments/initiates', publicKey: a.publicKey });
    expect(byPath.body.requests.map((entry: { paymentReference: string }) => entry.paymentReference)).toEqual([other.paymentReference, shared.paymentReference]);
    expect(byPath.body.count).toBe(2);

    const byReference = await control.requests({ paymentReference: String(shared.paymentReference) });
    expect(byReference.body.requests.map((entry: { publicKey: string }) => entry.publicKey)).toEqual([b.publicKey, a.publicKey]);

    const byBoth = await control.requests({ paymentReference: String(shared.paymentReference), publicKey: b.publicKey });
    expect(byBoth.body.requests).toHaveLength(1);
    expect(byBoth.body.requests[0].publicKey).toBe(b.publicKey);

    const listPath = `/products/orders/publicKey/${a.publicKey}`;
    const byListPath = await control.requests({ path: listPath });
    expect(byListPath.body.requests).toHaveLength(1);
    expect(byListPath.body.requests[0].operation).toBe('listOrders');

    const limited = await control.requests({ publicKey: a.publicKey, limit: 2 });
    expect(limited.body.requests.map((entry: { path: string }) => entry.path)).toEqual([listPath, '/payments/initiates']);
    expect(limited.body.requests[1].paymentReference).toBe(other.paymentReference);
    expect(limited.body.count).toBe(2);

    const outOfRange = await control.requests({ limit: 0 });
    expect(outOfRange.status).toBe(400);
    expect(outOfRange.body.error).toBe('INPUT');
  });

  it('DELETE /requests?publicKey= forgets that merchant\'s entries only; DELETE /requests forgets all', async () => {
    const a = await api.merchant();
    const b = await api.merchant();
    await initiate(a, accountPayment());
    await initiate(b, accountPayment());

    expect((await control.clearRequests(a.publicKey)).status).toBe(204);
    expect((await control.requests({ publicKey: a.publicKey })).body.requests).toEqual([]);
    expect((await control.requests({ publicKey: b.publicKey })).body.requests).toHaveLength(2);

    expect((await control.clearRequests()).status).toBe(204);
    const after = await control.requests();
    expect(after.body.requests).toEqual([]);
    expect(after.body.count).toBe(0);
  });

  it('never holds the Authorization header, a credential, the full card number, CVV or PIN', async () => {
    const merchant = await api.merchant();
    const card = cardPayment({ cardNumber: '5123450000000008', cvv: '731', pin: '9264' });
    const initiated = await initiate(merchant, card);
    expect(initiated.body.data.code).toBe('S20');
    await api.send('POST', '/payments/validate', { linkingReference: initiated.body.data.payments.linkingReference, otp: '123456' }, `Bearer ${merchant.token}`);
    const refunded = await api.send('POST', '/payments/refund', { publicKey: merchant.publicKey, paymentReference: card.paymentReference, amount: '100.00', currency: 'NGN', country: 'NG' }, merchant.basic);
    expect(refunded.body.data.code).toBe('00');

    const journal = await control.requests({ publicKey: merchant.publicKey });
    const entries = journal.body.requests;
    expect(entries.map((entry: { operation: string }) => entry.operation)).toEqual(['refundPayment', 'validatePayment', 'initiatePayment', 'exchangeKeys']);
    for (const entry of entries.slice(0, 3)) expect(entry.request.headers.authorization).toBe('[redacted]');
    const initiateEntry = entries[2];
    expect(initiateEntry.request.body).toMatchObject({ cardNumber: '512345******0008', cvv: '***', pin: '***' });

    const text = JSON.stringify(journal.body);
    expect(text).not.toContain('5123450000000008');
    expect(text).not.toContain(merchant.token);
    expect(text).not.toContain(merchant.basic.slice('Basic '.length));
    expect(text).not.toContain(merchant.secretKey);
    expect(text).not.toMatch(/"cvv":"731"|"pin":"9264"/);
  });
});

describe('GET /merchants', () => {
  it('lists every merchant that used the sandbox, without its secret key', async () => {
    const a = await api.merchant();
    const b = await api.merchant();
    const response = await control.merchants();
    expect(response.status).toBe(200);
    const keys = response.body.merchants.map((merchant: { publicKey: string }) => merchant.publicKey);
    expect(keys).toEqual(expect.arrayContaining([a.publicKey, b.publicKey]));
    expect(JSON.stringify(response.body)).not.toContain(a.secretKey);
  });
});

describe('GET /payments and GET /payments/{paymentReference}', () => {
  it('lists a merchant\'s payments however started, the card masked and its token never shown', async () => {
    const merchant = await api.merchant();
    const card = cardPayment();
    const account = accountPayment();
    const ordered = order();
    const initiated = await initiate(merchant, card);
    await api.send('POST', '/payments/validate', { linkingReference: initiated.body.data.payments.linkingReference, otp: '123456' }, `Bearer ${merchant.token}`);
    // The refund answer is where the card token shows; the control API must not show it.
    const refunded = await api.send('POST', '/payments/refund', { publicKey: merchant.publicKey, paymentReference: card.paymentReference, amount: '100.00', currency: 'NGN', country: 'NG' }, merchant.basic);
    const token = refunded.body.data.payments.card.token as string;
    expect(token).not.toBe('');
    await initiate(merchant, account);
    await api.as(merchant, 'POST', '/payments/order', ordered);

    const listed = await control.payments(merchant.publicKey);
    expect(listed.status).toBe(200);
    const byReference = new Map(listed.body.payments.map((payment: { paymentReference: string }) => [payment.paymentReference, payment]));
    expect([...byReference.keys()].sort()).toEqual([card.paymentReference, account.paymentReference, ordered.paymentReference].sort());
    expect(byReference.get(String(account.paymentReference))).toMatchObject({ method: 'ACCOUNT', status: 'PENDING', code: '20', amount: '150.00' });
    expect(byReference.get(String(ordered.paymentReference))).toMatchObject({ method: 'ORDER', status: 'PENDING' });

    const one = await control.payment(String(card.paymentReference), merchant.publicKey);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ method: 'CARD', status: 'SUCCESSFUL', refundedAmount: '100.00', publicKey: merchant.publicKey });
    expect(one.body.card).toEqual({ bin: '512345', last4: '0008', number: '512345******0008' });
    expect(JSON.stringify(listed.body)).not.toContain(token);
    expect(JSON.stringify(one.body)).not.toContain(token);
    expect(JSON.stringify(listed.body)).not.toContain('5123450000000008');
  });

  it('answers 404 NOT_FOUND for an unknown reference', async () => {
    const merchant = await api.merchant();
    const response = await control.payment('SBREF-NOPE-404', merchant.publicKey);
    expect(response.status).toBe(404);
    expect(response.body.error).toBe('NOT_FOUND');
    expect(response.body.message).toContain('SBREF-NOPE-404');
    expect((await control.payment('SBREF-NOPE-404')).status).toBe(404);
  });

  it('answers 400 when two merchants used the reference and no ?publicKey= names one', async () => {
    const a = await api.merchant();
    const b = await api.merchant();
    const shared = accountPayment();
    await initiate(a, shared);
    await initiate(b, { ...shared, amount: '250.00' });

    const ambiguous = await control.payment(String(shared.paymentReference));
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.body.error).toBe('INPUT');
    expect(ambiguous.body.message).toContain(String(shared.paymentReference));
    expect((await control.payment(String(shared.paymentReference), a.publicKey)).body).toMatchObject({ publicKey: a.publicKey, amount: '150.00' });
    expect((await control.payment(String(shared.paymentReference), b.publicKey)).body).toMatchObject({ publicKey: b.publicKey, amount: '250.00' });
  });
});

describe('POST /payments/{paymentReference}/complete', () => {
  it('success makes a pending payment SUCCESSFUL (00), and the Payments API then refunds it', async () => {
    const merchant = await api.merchant();
    const pending = cardPayment({ cardNumber: '4000000000000119' });
    expect((await initiate(merchant, pending)).body.data.code).toBe('S20');

    const completed = await control.complete(String(pending.paymentReference), { outcome: 'success' });
    expect(completed.status).toBe(200);
    expect(completed.body).toMatchObject({ paymentReference: pending.paymentReference, status: 'SUCCESSFUL', code: '00', message: 'Successful' });
    expect((await control.payment(String(pending.paymentReference), merchant.publicKey)).body.status).toBe('SUCCESSFUL');

    const refund = await api.send('POST', '/payments/refund', { publicKey: merchant.publicKey, paymentReference: pending.paymentReference, amount: '1500.00', currency: 'NGN', country: 'NG' }, merchant.basic);
    expect(refund.status).toBe(200);
    expect(refund.body.data).toMatchObject({ code: '00', message: 'APPROVED' });
    expect((await control.payment(String(pending.paymentReference), merchant.publicKey)).body.status).toBe('REFUNDED');
  });

  it('failure makes it FAILED (S12); completing it again is 409 CONFLICT and changes nothing', async () => {
    const merchant = await api.merchant();
    const pending = accountPayment();
    await initiate(merchant, pending);

    const failed = await control.complete(String(pending.paymentReference), { outcome: 'failure', publicKey: merchant.publicKey });
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ status: 'FAILED', code: 'S12', message: 'Transaction Failed' });

    const conflict = await control.complete(String(pending.paymentReference), { outcome: 'success' });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toBe('CONFLICT');
    expect(conflict.body.message).toContain('FAILED');
    expect((await control.payment(String(pending.paymentReference), merchant.publicKey)).body).toMatchObject({ status: 'FAILED', code: 'S12' });

    // The Payments API sees the failure too: the OTP can no longer complete it.
    const validate = await api.send('POST', '/payments/validate', { linkingReference: failed.body.linkingReference, otp: '123456' }, `Bearer ${merchant.token}`);
    expect(validate.body.data.code).toBe('RR');
  });

  it('settles a transfer payment when the transfer arrives', async () => {
    const merchant = await api.merchant();
    const transfer = transferPayment();
    const opened = await initiate(merchant, transfer);
    expect(opened.body.data.code).toBe('00');
    const before = await control.payment(String(transfer.paymentReference), merchant.publicKey);
    expect(before.body).toMatchObject({ method: 'TRANSFER', status: 'PENDING' });

    const completed = await control.complete(String(transfer.paymentReference), { outcome: 'success', publicKey: merchant.publicKey });
    expect(completed.status).toBe(200);
    expect(completed.body).toMatchObject({ method: 'TRANSFER', status: 'SUCCESSFUL', code: '00' });
    expect(completed.body.transfer).toEqual(before.body.transfer);
  });

  it('takes the merchant from the body when two merchants used the reference; 400 without it; 404 for an unknown one', async () => {
    const a = await api.merchant();
    const b = await api.merchant();
    const shared = accountPayment();
    await initiate(a, shared);
    await initiate(b, shared);
    const reference = String(shared.paymentReference);

    const ambiguous = await control.complete(reference, { outcome: 'success' });
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.body.error).toBe('INPUT');

    const forB = await control.complete(reference, { outcome: 'success', publicKey: b.publicKey });
    expect(forB.status).toBe(200);
    expect(forB.body).toMatchObject({ publicKey: b.publicKey, status: 'SUCCESSFUL' });
    expect((await control.payment(reference, a.publicKey)).body.status).toBe('PENDING');

    const unknown = await control.complete('SBREF-NOPE-COMPLETE', { outcome: 'success' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('NOT_FOUND');
  });

  it('answers 400 INPUT for an outcome that is neither success nor failure', async () => {
    const merchant = await api.merchant();
    const pending = accountPayment();
    await initiate(merchant, pending);
    const response = await control.send('POST', `/payments/${String(pending.paymentReference)}/complete`, { body: { outcome: 'maybe' } });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('INPUT');
    expect((await control.payment(String(pending.paymentReference), merchant.publicKey)).body.status).toBe('PENDING');
  });
});

describe('GET /orders', () => {
  it('lists a merchant\'s orders with their items, as created and updated over the Payments API', async () => {
    const merchant = await api.merchant();
    const other = await api.merchant();
    const created = order();
    expect((await api.as(merchant, 'POST', '/payments/order', created)).body.data.code).toBe('00');
    await api.as(other, 'POST', '/payments/order', order());
    const updated = await api.as(merchant, 'PUT', '/products/orders', {
      paymentReference: created.paymentReference,
      orders: [{ orderId: 'ORD-2', currency: 'NGN', amount: '1750.00', productId: 102, productDescription: 'Socks' }],
    });
    expect(updated.body.data.code).toBe('00');

    const response = await control.orders(merchant.publicKey);
    expect(response.status).toBe(200);
    expect(response.body.orders).toHaveLength(1);
    const [stored] = response.body.orders;
    expect(stored).toMatchObject({ publicKey: merchant.publicKey, paymentReference: created.paymentReference, amount: '4500.00', orderType: 'BULK_BULK' });
    // Kept as sent: a string on create, an integer on update (stored as its digits).
    expect(stored.items.map((item: { orderId: string; amount: string; productId: string }) => [item.orderId, item.amount, item.productId])).toEqual([
      ['ORD-1', '3000.00', '101'],
      ['ORD-2', '1750.00', '102'],
    ]);
    const everyone = await control.orders();
    expect(everyone.body.orders.map((entry: { publicKey: string }) => entry.publicKey)).toEqual(expect.arrayContaining([merchant.publicKey, other.publicKey]));
  });
});

describe('POST /reset', () => {
  it('?publicKey= forgets that merchant\'s payments, orders, overrides and journal; the other keeps all of it', async () => {
    const a = await api.merchant();
    const b = await api.merchant();
    for (const merchant of [a, b]) {
      await initiate(merchant, accountPayment());
      await api.as(merchant, 'POST', '/payments/order', order());
      await control.override({ delay: { ms: 0 }, publicKey: merchant.publicKey });
    }

    const reset = await control.reset(a.publicKey);
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({ reset: a.publicKey, to: 'empty' });

    expect((await control.payments(a.publicKey)).body.payments).toEqual([]);
    expect((await control.orders(a.publicKey)).body.orders).toEqual([]);
    expect((await control.overrides(a.publicKey)).body.overrides).toEqual([]);
    expect((await control.requests({ publicKey: a.publicKey })).body.requests).toEqual([]);
    expect((await control.payments(b.publicKey)).body.payments).toHaveLength(2);
    expect((await control.orders(b.publicKey)).body.orders).toHaveLength(1);
    expect((await control.overrides(b.publicKey)).body.overrides).toHaveLength(1);
    expect((await control.requests({ publicKey: b.publicKey })).body.requests).toHaveLength(3);

    // The merchant stays: its token still works (no order is left: the provider's 404), and its references are free again.
    const again = await listOrders(a);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ message: 'Orders Not Found', error: 'NOT_FOUND' });
  });

  it('without publicKey forgets everyone\'s state and every override; merchants stay', async () => {
    const a = await api.merchant();
    const b = await api.merchant();
    const reused = accountPayment();
    await initiate(a, reused);
    await api.as(b, 'POST', '/payments/order', order());
    await control.override({ scenario: 'transaction-failed' });

    const reset = await control.reset();
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({ reset: 'all', to: 'empty' });
    expect((await control.payments()).body.payments).toEqual([]);
    expect((await control.orders()).body.orders).toEqual([]);
    expect((await control.overrides()).body.overrides).toEqual([]);
    expect((await control.requests()).body.count).toBe(0);
    expect((await control.merchants()).body.merchants.map((merchant: { publicKey: string }) => merchant.publicKey)).toEqual(expect.arrayContaining([a.publicKey, b.publicKey]));

    // The reference is free again, and nothing is forced any more.
    const repeated = await initiate(a, reused);
    expect(repeated.body.data.code).toBe('20');
  });
});
