import { describe, expect, it } from 'vitest';
import { cancelPayment, refundPayment } from '../../../src/domain/payments.js';
import { ENV, NOW, factsFor, newStore, onePayment, payment, scenario, selection, summary, thrown, untouched } from './fixtures.js';

/** POST /payments/refund and POST /payments/cancel (spec, endpoints 10 and 11; docs/decisions.md#d12-payment-states), without HTTP. */

const REF = 'SBREF-RFD-1';
const CARD = { bin: '512345', last4: '0008', token: 'SBCTK_unitdomaintoken0001' };
const refund = (amount: string, currency = 'NGN') => ({ paymentReference: REF, amount, currency, country: 'NG' });
const S12 = { code: 'S12', message: 'Transaction Failed' };

describe('refundPayment', () => {
  it('a partial refund, then the rest: SUCCESSFUL with what was refunded, then REFUNDED', async () => {
    const store = await newStore();
    const paid = payment({ paymentReference: REF, status: 'SUCCESSFUL', amount: '1500.00', code: '00', message: 'Successful' }, store);
    const first = untouched(store, () => refundPayment(factsFor(store, 'refundPayment', refund('500')), selection(scenario('refund-approved')), ENV));
    expect(first.body).toEqual({
      status: 'SUCCESS',
      data: { code: '00', message: 'APPROVED', payments: { paymentReference: REF, status: 'REFUNDED', card: CARD } },
    });
    const partly = onePayment(first);
    const history = [{ at: NOW, status: 'SUCCESSFUL', code: '00', message: 'APPROVED', scenario: 'refund-approved', event: 'refund' }];
    expect(partly).toEqual({ ...paid, status: 'SUCCESSFUL', refundedAmount: '500.00', code: '00', message: 'APPROVED', scenario: 'refund-approved', updatedAt: NOW, history });

    store.putPayment(partly);
    const second = untouched(store, () => refundPayment(factsFor(store, 'refundPayment', refund('1000.00')), selection(scenario('refund-approved')), ENV));
    expect(summary(second)).toMatchObject({ code: '00', message: 'APPROVED', scenario: 'refund-approved', reason: undefined });
    expect(onePayment(second)).toMatchObject({ status: 'REFUNDED', refundedAmount: '1500.00', history: [...history, { ...history[0], status: 'REFUNDED' }] });
  });

  it('more than is left: S12 refused with why, and nothing written', async () => {
    const store = await newStore();
    payment({ paymentReference: REF, status: 'SUCCESSFUL', amount: '1500.00', refundedAmount: '1000.00' }, store);
    const done = untouched(store, () => refundPayment(factsFor(store, 'refundPayment', refund('500.01')), selection(scenario('refund-approved')), ENV));
    expect(summary(done)).toEqual({
      ...S12, scenario: 'refund-exceeds-amount', reason: `a refund of 500.01 is more than the 500.00 NGN left of payment ${REF}`, writes: 0,
    });
    expect(done.body.data.payments).toEqual({});
  });

  it('a payment refunded in full: S12 refund-not-allowed, nothing written', async () => {
    const store = await newStore();
    payment({ paymentReference: REF, status: 'REFUNDED', amount: '1500.00', refundedAmount: '1500.00' }, store);
    const done = untouched(store, () => refundPayment(factsFor(store, 'refundPayment', refund('1.00')), selection(scenario('refund-approved')), ENV));
    expect(summary(done)).toEqual({ ...S12, scenario: 'refund-not-allowed', reason: `payment ${REF} is already refunded in full (1500.00 NGN)`, writes: 0 });
  });

  it('a payment never paid: ApiError 400 with the provider\'s body, and why in X-Sandbox-Reason', async () => {
    const store = await newStore();
    payment({ paymentReference: REF, status: 'PENDING' }, store);
    const error = untouched(store, () => thrown(() => refundPayment(factsFor(store, 'refundPayment', refund('100.00')), selection(scenario('refund-approved')), ENV)));
    expect(error.status).toBe(400);
    expect(error.body).toEqual({ status: 'ERROR', data: { code: 'S12', message: 'No authorised transaction found for this reference' } });
    expect(error.scenario).toBe('no-authorised-transaction');
    expect(error.headers['X-Sandbox-Reason']).toBe(`payment ${REF} is PENDING; only a SUCCESSFUL, CAPTURED or PARTIALLY_CAPTURED payment can be refunded`);
  });

  it('an unknown reference: the same ApiError 400', async () => {
    const store = await newStore();
    const error = thrown(() => refundPayment(factsFor(store, 'refundPayment', refund('100.00')), selection(scenario('refund-approved')), ENV));
    expect([error.status, error.body]).toEqual([400, { status: 'ERROR', data: { code: 'S12', message: 'No authorised transaction found for this reference' } }]);
  });

  it('a currency other than the payment\'s: ApiError 400 INPUT', async () => {
    const store = await newStore();
    payment({ paymentReference: REF, status: 'SUCCESSFUL' }, store);
    const error = untouched(store, () => thrown(() => refundPayment(factsFor(store, 'refundPayment', refund('100.00', 'GHS')), selection(scenario('refund-approved')), ENV)));
    expect([error.status, error.body]).toEqual([400, { message: `currency GHS is not the currency of payment ${REF} (NGN)`, error: 'INPUT' }]);
  });

  it('a forced rule without a state (transaction-failed): S12 with empty payments, nothing written', async () => {
    const store = await newStore();
    payment({ paymentReference: REF, status: 'SUCCESSFUL' }, store);
    const done = refundPayment(factsFor(store, 'refundPayment', refund('100.00')), selection(scenario('transaction-failed'), { forced: true }), ENV);
    expect(summary(done)).toEqual({ ...S12, scenario: 'transaction-failed', reason: undefined, writes: 0 });
    expect(done.body.data.payments).toEqual({});
  });

  it('a refund the payment does not allow is refused whatever rule was forced', async () => {
    const store = await newStore();
    payment({ paymentReference: REF, status: 'SUCCESSFUL', amount: '100.00' }, store);
    const done = refundPayment(factsFor(store, 'refundPayment', refund('100.01')), selection(scenario('transaction-failed'), { forced: true }), ENV);
    expect(summary(done)).toMatchObject({ ...S12, scenario: 'refund-exceeds-amount', writes: 0 });
  });
});

describe('cancelPayment', () => {
  it('a pending payment: 00 APPROVED with the card\'s BIN and last four (no token), and a CANCELLED write', async () => {
    const store = await newStore();
    const pending = payment({ paymentReference: REF, status: 'PENDING' }, store);
    const done = untouched(store, () => cancelPayment(factsFor(store, 'cancelPayment', { paymentReference: REF }), selection(scenario('cancel-approved')), ENV));
    expect(done.body).toEqual({
      status: 'SUCCESS',
      data: { code: '00', message: 'APPROVED', payments: { paymentReference: REF, status: 'CANCELLED', card: { bin: '512345', last4: '0008' } } },
    });
    expect(onePayment(done)).toEqual({
      ...pending, status: 'CANCELLED', code: '00', message: 'APPROVED', scenario: 'cancel-approved', updatedAt: NOW,
      history: [{ at: NOW, status: 'CANCELLED', code: '00', message: 'APPROVED', scenario: 'cancel-approved', event: 'cancel' }],
    });
  });

  it('a payment without a card answers an empty BIN and last four', async () => {
    const store = await newStore();
    payment({ paymentReference: REF, status: 'PENDING', method: 'ACCOUNT', card: undefined }, store);
    const done = cancelPayment(factsFor(store, 'cancelPayment', { paymentReference: REF }), selection(scenario('cancel-approved')), ENV);
    expect(done.body.data.payments).toEqual({ paymentReference: REF, status: 'CANCELLED', card: { bin: '', last4: '' } });
    expect(onePayment(done).status).toBe('CANCELLED');
  });

  it.each(['SUCCESSFUL', 'FAILED', 'CANCELLED', 'REFUNDED'] as const)('a %s payment: S12 refused with why, nothing written', async (status) => {
    const store = await newStore();
    payment({ paymentReference: REF, status }, store);
    const done = untouched(store, () => cancelPayment(factsFor(store, 'cancelPayment', { paymentReference: REF }), selection(scenario('cancel-approved')), ENV));
    expect(summary(done)).toEqual({
      ...S12, scenario: 'cancel-not-allowed', reason: `payment ${REF} is ${status}; only a PENDING or AUTHORIZED payment can be cancelled`, writes: 0,
    });
    expect(done.body.data.payments).toEqual({});
  });

  it('an unknown reference: ApiError 400 No authorised transaction found', async () => {
    const store = await newStore();
    const error = untouched(store, () => thrown(() => cancelPayment(factsFor(store, 'cancelPayment', { paymentReference: REF }), selection(scenario('cancel-approved')), ENV)));
    expect([error.status, error.body]).toEqual([400, { status: 'ERROR', data: { code: 'S12', message: 'No authorised transaction found for this reference' } }]);
  });
});
