import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import {
  ApiClient, accountPayment, cardPayment, momoPayment, sandboxWithMerchant, transferPayment, type TestMerchant,
} from '../../support/sandbox.js';

let sandbox: Sandbox;
let api: ApiClient;
let merchant: TestMerchant;

beforeAll(async () => {
  ({ sandbox, api, merchant } = await sandboxWithMerchant());
});
afterAll(() => sandbox.close());

const initiate = (body: Record<string, unknown>) => api.as(merchant, 'POST', '/payments/initiates', body);
const validate = (linkingReference: string, otp: string) => api.as(merchant, 'POST', '/payments/validate', { linkingReference, otp });
const stored = (reference: unknown) => sandbox.store.payment(merchant.publicKey, String(reference))!;

describe('POST /payments/initiates', () => {
  it('CARD answers S20 with a linkingReference and a redirectUrl on the sandbox itself', async () => {
    const body = cardPayment();
    const response = await initiate(body);
    expect(response.status).toBe(200);
    expect(response.headers['x-sandbox-scenario']).toBe('card-succeeds-after-authentication');
    expect(response.body.data).toMatchObject({ code: 'S20', message: 'Transaction is pending' });
    const { linkingReference, redirectUrl, paymentReference } = response.body.data.payments;
    expect(paymentReference).toBe(body.paymentReference);
    expect(redirectUrl).toBe(`${sandbox.publicUrl}/pages/authenticate/${linkingReference}`);
    expect(stored(body.paymentReference)).toMatchObject({ status: 'PENDING', method: 'CARD', card: { bin: '512345', last4: '0008' } });
  });

  it('ACCOUNT answers 20 Transaction is pending', async () => {
    const response = await initiate(accountPayment());
    expect(response.body.data).toMatchObject({ code: '20', message: 'Transaction is pending' });
    expect(Object.keys(response.body.data.payments).sort()).toEqual(['linkingReference', 'paymentReference']);
  });

  it('MOMO answers NIP, with mobileNumber as a number or a string', async () => {
    for (const mobileNumber of [233241234567, '233241234567']) {
      const response = await initiate(momoPayment({ mobileNumber }));
      expect(response.body.data.code).toBe('NIP');
      expect(response.body.data.payments.linkingReference).toMatch(/^SBLNK_[0-9a-f]{20}$/);
    }
  });

  it('a transfer (CARD with pocket fields) answers 00 ACCOUNT OPENED SUCCESSFULLY with the account to pay into', async () => {
    const response = await initiate(transferPayment({ fullName: 'Ada Obi' }));
    expect(response.body.data).toMatchObject({ code: '00', message: 'ACCOUNT OPENED SUCCESSFULLY' });
    expect(response.body.data.payments).toMatchObject({ amount: 3000, walletName: 'Ada Obi / Sandbox Pay', bankName: 'Sandbox Bank' });
    expect(response.body.data.payments.accountNumber).toMatch(/^[0-9]{10}$/);
  });

  it('an account payment below 100.00 answers S7 with empty payments and stores nothing', async () => {
    const body = accountPayment({ amount: '99.99' });
    const response = await initiate(body);
    expect(response.body.data).toEqual({ code: 'S7', message: 'Cant process at this moment, please try again Invalid Amount = Amount cannot be less than 100.0', payments: {} });
    expect(sandbox.store.payment(merchant.publicKey, String(body.paymentReference))).toBeUndefined();
    expect((await initiate(accountPayment({ amount: '100' }))).body.data.code).toBe('20');
  });

  it('card, MOMO and transfer payments take any positive amount (the minimum is the account payment\'s)', async () => {
    expect((await initiate(cardPayment({ amount: '10.00' }))).body.data.code).toBe('S20');
    expect((await initiate(momoPayment({ amount: '1.00' }))).body.data.code).toBe('NIP');
    expect((await initiate(transferPayment({ amount: '20.00' }))).body.data.code).toBe('00');
  });

  it('a repeated paymentReference answers S18 and leaves the first payment as it was', async () => {
    const body = cardPayment();
    await initiate(body);
    const repeat = await initiate(accountPayment({ paymentReference: body.paymentReference }));
    expect(repeat.body.data).toEqual({ code: 'S18', message: 'Transaction reference must be unique', payments: {} });
    expect(stored(body.paymentReference).method).toBe('CARD');
  });

  it('a rule forced by header or override cannot replace a payment already made: S18, and the payment stays as it was', async () => {
    const body = accountPayment();
    const initiated = await initiate(body);
    await validate(initiated.body.data.payments.linkingReference, '123456');
    expect(stored(body.paymentReference).status).toBe('SUCCESSFUL');
    const forced = await api.send('POST', '/payments/initiates', { publicKey: merchant.publicKey, ...body }, `Bearer ${merchant.token}`, undefined, { headers: { 'X-Sandbox-Scenario': 'account-pending' } });
    expect(forced.body.data).toEqual({ code: 'S18', message: 'Transaction reference must be unique', payments: {} });
    expect(forced.headers['x-sandbox-scenario']).toBe('duplicate-reference');
    expect(stored(body.paymentReference)).toMatchObject({ status: 'SUCCESSFUL', code: '00' });
    const lost = await api.send('POST', '/payments/initiates', { publicKey: merchant.publicKey, ...body }, `Bearer ${merchant.token}`, undefined, { headers: { 'X-Sandbox-Scenario': 'lose-response' } });
    expect(lost.status).toBe(0);
    expect(stored(body.paymentReference)).toMatchObject({ status: 'SUCCESSFUL', code: '00' });
  });

  it('the same paymentReference is free for another merchant', async () => {
    const body = cardPayment();
    await initiate(body);
    const other = await api.merchant();
    const response = await api.as(other, 'POST', '/payments/initiates', body);
    expect(response.body.data.code).toBe('S20');
  });

  it('card 4000000000000002 is declined (S12) and the failed payment keeps its reference', async () => {
    const body = cardPayment({ cardNumber: '4000000000000002' });
    const response = await initiate(body);
    expect(response.body.data).toEqual({ code: 'S12', message: 'Transaction Failed', payments: {} });
    expect(stored(body.paymentReference).status).toBe('FAILED');
    expect((await initiate(body)).body.data.code).toBe('S18');
  });

  it('answers 400 Payment Type cannot be null without paymentType, or with it null', async () => {
    for (const paymentType of [undefined, null]) {
      const response = await initiate({ ...accountPayment(), paymentType });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ message: 'Payment Type cannot be null', error: 'INPUT' });
    }
  });

  it('answers 400 INPUT naming every offending field, and stores nothing', async () => {
    const body = cardPayment({ amount: 'abc', cvv: undefined, redirectUrl: 'javascript:alert(1)' });
    const response = await initiate(body);
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('INPUT');
    expect(response.body.message).toContain('amount must match pattern');
    expect(response.body.message).toContain('cvv is required');
    expect(response.body.message).toContain('redirectUrl');
    expect(sandbox.store.payment(merchant.publicKey, String(body.paymentReference))).toBeUndefined();
  });

  it('accepts fee as a string or a number', async () => {
    expect((await initiate(accountPayment({ fee: '10.50' }))).status).toBe(200);
    expect((await initiate(accountPayment({ fee: 10.5 }))).status).toBe(200);
  });

  it('answers 400 Bad Request for a body that is not JSON', async () => {
    const response = await api.send('POST', '/payments/initiates', undefined, `Bearer ${merchant.token}`, '{"paymentType": ');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ message: 'Bad Request', error: 'There has been a problem with reading or understanding the request.' });
    expect(response.headers['x-sandbox-detail']).toMatch(/JSON/);
  });
});

describe('OTP completion', () => {
  it('OTP 123456 completes an account payment; a second completion answers RR, as the provider does', async () => {
    const initiated = await initiate(accountPayment());
    const { linkingReference, paymentReference } = initiated.body.data.payments;
    const done = await validate(linkingReference, '123456');
    expect(done.body.data).toEqual({ code: '00', message: 'Successful', payments: { paymentReference, linkingReference, authoption: [] } });
    expect(stored(paymentReference).status).toBe('SUCCESSFUL');
    const again = await validate(linkingReference, '123456');
    expect(again.body.data).toEqual({ code: 'RR', message: 'Sorry payment already processed', payments: { paymentReference, linkingReference, authoption: [] } });
    expect(again.headers['x-sandbox-scenario']).toBe('payment-already-processed');
    expect(stored(paymentReference).status).toBe('SUCCESSFUL');
  });

  it('another OTP fails the payment (S12)', async () => {
    const initiated = await initiate(accountPayment());
    const response = await validate(initiated.body.data.payments.linkingReference, '654321');
    expect(response.body.data.code).toBe('S12');
    expect(stored(initiated.body.data.payments.paymentReference).status).toBe('FAILED');
  });

  it('validate completes a card payment; card 4000000000000119 stays pending (20)', async () => {
    const ok = await initiate(cardPayment());
    expect((await validate(ok.body.data.payments.linkingReference, '123456')).body.data.code).toBe('00');
    const pending = await initiate(cardPayment({ cardNumber: '4000000000000119' }));
    const response = await validate(pending.body.data.payments.linkingReference, '123456');
    expect(response.body.data).toMatchObject({ code: '20', message: 'Transaction is pending' });
    expect(stored(pending.body.data.payments.paymentReference).status).toBe('PENDING');
  });

  it('POST /payments/momo/otp completes a MOMO payment; validate refuses it with 400 naming the right endpoint', async () => {
    const initiated = await initiate(momoPayment());
    const { linkingReference } = initiated.body.data.payments;
    const wrongEndpoint = await validate(linkingReference, '123456');
    expect(wrongEndpoint.status).toBe(400);
    expect(wrongEndpoint.body.message).toContain('POST /payments/momo/otp');
    const done = await api.as(merchant, 'POST', '/payments/momo/otp', { linkingReference, otp: '123456' });
    expect(done.body.data.code).toBe('00');
  });

  it('an unknown linkingReference answers 404', async () => {
    const response = await validate('SBLNK_00000000000000000000', '123456');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ message: 'Not Found', error: 'The server can not find the requested resource' });
    expect(response.headers['x-sandbox-detail']).toBe('No payment with linkingReference SBLNK_00000000000000000000');
  });

  it('another merchant cannot complete the payment', async () => {
    const initiated = await initiate(accountPayment());
    const other = await api.merchant();
    const response = await api.as(other, 'POST', '/payments/validate', { linkingReference: initiated.body.data.payments.linkingReference, otp: '123456' });
    expect(response.status).toBe(404);
    expect(stored(initiated.body.data.payments.paymentReference).status).toBe('PENDING');
  });
});

describe('refund and cancel', () => {
  async function paidCard(amount = '1500.00') {
    const initiated = await initiate(cardPayment({ amount }));
    await validate(initiated.body.data.payments.linkingReference, '123456');
    return initiated.body.data.payments.paymentReference as string;
  }
  const refund = (paymentReference: string, amount: string, extra: Record<string, unknown> = {}) =>
    api.send('POST', '/payments/refund', { publicKey: merchant.publicKey, paymentReference, amount, currency: 'NGN', country: 'NG', ...extra }, merchant.basic);
  const cancel = (paymentReference: string) =>
    api.send('POST', '/payments/cancel', { publicKey: merchant.publicKey, paymentReference, country: 'NG' }, merchant.basic);

  it('refunds a successful card payment in parts, up to what was paid', async () => {
    const reference = await paidCard('1500.00');
    const first = await refund(reference, '1000.00');
    expect(first.body.data).toMatchObject({ code: '00', message: 'APPROVED', payments: { paymentReference: reference, status: 'REFUNDED' } });
    expect(first.body.data.payments.card).toMatchObject({ bin: '512345', last4: '0008' });
    expect(first.body.data.payments.card.token).toMatch(/^SBCTK_/);
    expect(stored(reference)).toMatchObject({ status: 'SUCCESSFUL', refundedAmount: '1000.00' });
    const tooMuch = await refund(reference, '500.01');
    expect(tooMuch.body.data).toEqual({ code: 'S12', message: 'Transaction Failed', payments: {} });
    expect(stored(reference).refundedAmount).toBe('1000.00');
    expect((await refund(reference, '500.00')).body.data.code).toBe('00');
    expect(stored(reference)).toMatchObject({ status: 'REFUNDED', refundedAmount: '1500.00' });
    expect((await refund(reference, '1.00')).body.data.code).toBe('S12');
  });

  it('refuses to refund a payment that is not successful, and in another currency', async () => {
    const pending = await initiate(cardPayment());
    const reference = pending.body.data.payments.paymentReference;
    const notPaid = await refund(reference, '100.00');
    expect(notPaid.status).toBe(400);
    expect(notPaid.body).toEqual({ status: 'ERROR', data: { code: 'S12', message: 'No authorised transaction found for this reference' } });
    expect(stored(reference).status).toBe('PENDING');
    const paid = await paidCard();
    const usd = await refund(paid, '100.00', { currency: 'USD' });
    expect(usd.status).toBe(400);
    expect(usd.body.error).toBe('INPUT');
    expect(stored(paid).refundedAmount).toBe('0.00');
  });

  it('cancels a pending payment with the card\'s bin and last4; refuses a successful one and leaves it', async () => {
    const pending = await initiate(cardPayment());
    const reference = pending.body.data.payments.paymentReference;
    const response = await cancel(reference);
    expect(response.body.data).toEqual({
      code: '00', message: 'APPROVED', payments: { paymentReference: reference, status: 'CANCELLED', card: { bin: '512345', last4: '0008' } },
    });
    expect(stored(reference).status).toBe('CANCELLED');
    expect((await validate(pending.body.data.payments.linkingReference, '123456')).body.data.code).toBe('RR');
    const paid = await paidCard();
    expect((await cancel(paid)).body.data.code).toBe('S12');
    expect(stored(paid).status).toBe('SUCCESSFUL');
  });

  it('answers the provider\'s 400 No authorised transaction found for an unknown paymentReference', async () => {
    const noTransaction = { status: 'ERROR', data: { code: 'S12', message: 'No authorised transaction found for this reference' } };
    const response = await refund('SBREF-NONE-0001', '100.00');
    expect(response.status).toBe(400);
    expect(response.body).toEqual(noTransaction);
    expect(response.headers['x-sandbox-scenario']).toBe('no-authorised-transaction');
    const cancelled = await cancel('SBREF-NONE-0001');
    expect(cancelled.status).toBe(400);
    expect(cancelled.body).toEqual(noTransaction);
  });

  it('answers the provider\'s Invalid/Missing parameters for a missing or wrong field, naming it', async () => {
    const reference = await paidCard();
    for (const [field, value] of [['amount', undefined], ['currency', undefined], ['country', undefined], ['amount', '1.234']] as const) {
      const response = await refund(reference, '10.00', { [field]: value });
      expect(response.status, field).toBe(400);
      expect(response.body).toEqual({ status: 'ERROR', data: { code: 'S12', message: `Invalid/Missing parameters = ${field}` } });
    }
    const noReference = await api.send('POST', '/payments/cancel', { publicKey: merchant.publicKey }, merchant.basic);
    expect(noReference.body).toEqual({ status: 'ERROR', data: { code: 'S12', message: 'Invalid/Missing parameters = paymentReference' } });
    expect(stored(reference).refundedAmount).toBe('0.00');
  });

  it('answers the provider\'s 403 Bad credentials for Basic credentials that name no merchant, or another merchant\'s key', async () => {
    const reference = await paidCard();
    const basic = (pair: string) => `Basic ${Buffer.from(pair).toString('base64')}`;
    const cases: Array<[string, string]> = [
      [basic('h'), 'Bad credentials'],
      [basic(`${merchant.publicKey}:SBTESTSECK_wrongwrongwrong`), 'Bad credentials'],
      [basic('not-a-key:SBTESTSECK_wrongwrongwrong'), 'Bad credentials = invalid public key'],
    ];
    for (const [auth, message] of cases) {
      const response = await api.send('POST', '/payments/refund', { publicKey: merchant.publicKey, paymentReference: reference, amount: '10.00', currency: 'NGN', country: 'NG' }, auth);
      expect(response.status, auth).toBe(403);
      expect(response.body).toEqual({ status: 'ERROR', data: { code: 'S12', message } });
    }
    const other = await api.merchant();
    const theirs = await api.send('POST', '/payments/cancel', { publicKey: merchant.publicKey, paymentReference: reference }, other.basic);
    expect(theirs.status).toBe(403);
    expect(theirs.body.data.message).toBe('Bad credentials = invalid public key');
    expect(stored(reference)).toMatchObject({ status: 'SUCCESSFUL', refundedAmount: '0.00' });
  });

  it('answers 405 naming POST to a refund or cancel sent as GET, as the Node SDK sends them', async () => {
    for (const path of ['/payments/refund', '/payments/cancel']) {
      const response = await api.send('GET', path, undefined, `Bearer ${merchant.token}`);
      expect(response.status).toBe(405);
      expect(response.headers.allow).toBe('POST');
      expect(response.body).toEqual({ message: 'Method Not Allowed', error: `GET is not supported by /api/v2${path}: send POST` });
    }
  });
});

describe('what no client should send', () => {
  it('a body over 1 MB answers 413 in the spec\'s error body', async () => {
    const response = await api.send('POST', '/payments/initiates', undefined, `Bearer ${merchant.token}`, JSON.stringify({ pad: 'x'.repeat(1_100_000) }));
    expect(response.status).toBe(413);
    expect(response.body).toEqual({ message: 'Payload Too Large', error: 'The request body is larger than 1048576 bytes' });
  });

  it('a stranger\'s body is not read: 403 before the body, and the key exchange reads no more than 64 KB', async () => {
    const big = JSON.stringify({ pad: 'x'.repeat(900_000) });
    const stranger = await api.send('POST', '/payments/initiates', undefined, undefined, big);
    expect(stranger.status).toBe(403);
    const [entry] = sandbox.journal.query({ path: '/payments/initiates', limit: 1 });
    expect(entry!.status).toBe(403);
    expect(entry!.request.body).toBeUndefined();
    const exchange = await api.send('POST', '/encrypt/keys', undefined, undefined, big);
    expect(exchange.status).toBe(413);
    expect(exchange.body).toEqual({ message: 'Payload Too Large', error: 'The request body is larger than 65536 bytes' });
  });

  it('a token that claims __proto__, constructor or toString as its key answers 401, not 500', async () => {
    for (const claimed of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const token = `SBTOKEN_${Buffer.from(claimed).toString('base64url')}.x`;
      const response = await api.send('POST', '/payments/initiates', accountPayment({ publicKey: merchant.publicKey }), `Bearer ${token}`);
      expect(response.status, claimed).toBe(401);
      expect(response.body).toEqual({ message: 'Invalid Authentication Token', error: 'INPUT' });
    }
  });
});

describe('unknown resources', () => {
  it('answers 404 Not Found in the spec\'s error body', async () => {
    const response = await api.send('GET', '/payments/nothing-here');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ message: 'Not Found', error: 'The server can not find the requested resource' });
    expect(response.headers['x-sandbox-detail']).toBe('No resource at GET /api/v2/payments/nothing-here');
  });
});
