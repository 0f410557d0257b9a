import { describe, expect, it } from 'vitest';
import { completePayment } from '../../../src/domain/completions.js';
import { initiatePayment, settleDue, settleExternally } from '../../../src/domain/payments.js';
import { eventsOf } from '../../../src/domain/notification-events.js';
import { linkingReferenceOf } from '../../../src/domain/merchants.js';
import { answer, rule } from '../scenarios/rules.js';
import { ENGINE, ENV, MERCHANT, NOW, factsFor, newStore, onePayment, payment, scenario, selection, summary, thrown, untouched } from './fixtures.js';

/** POST /payments/initiates and the OTP completions (spec, endpoints 3, 8, 9), and the control API's settle, without HTTP. */

const REF = 'SBREF-INIT-1';
const ACCOUNT = { paymentType: 'ACCOUNT', paymentReference: REF, amount: '150', currency: 'NGN', country: 'NG', accountNumber: '0123456789', bankCode: '058', fullName: 'Ada Obi', email: 'ada@example.com' };
const CARD = { paymentType: 'CARD', paymentReference: REF, amount: '1500.00', currency: 'NGN', country: 'NG', cardNumber: '5123450000000008', cvv: '321', expiryMonth: '09', expiryYear: '30', pin: '9876' };
const TRANSFER = { paymentType: 'CARD', paymentReference: REF, amount: '3000.5', currency: 'NGN', country: 'NG', walletDaysActive: '3', fullName: 'Ada Obi' };

describe('initiatePayment', () => {
  it('ACCOUNT: answers 20 with the linkingReference, and writes one PENDING payment', async () => {
    const store = await newStore();
    const done = untouched(store, () => initiatePayment(factsFor(store, 'initiatePayment', ACCOUNT), selection(scenario('account-pending')), ENV));
    expect(summary(done)).toEqual({ code: '20', message: 'Transaction is pending', scenario: 'account-pending', reason: undefined, writes: 1 });
    const linkingReference = linkingReferenceOf(MERCHANT, REF);
    expect(linkingReference).toMatch(/^SBLNK_[0-9a-f]{20}$/);
    expect(done.body).toEqual({ status: 'SUCCESS', data: { code: '20', message: 'Transaction is pending', payments: { paymentReference: REF, linkingReference } } });
    expect(onePayment(done)).toEqual({
      publicKey: MERCHANT.publicKey, paymentReference: REF, linkingReference, method: 'ACCOUNT', status: 'PENDING',
      code: '20', message: 'Transaction is pending', scenario: 'account-pending',
      amount: '150.00', refundedAmount: '0.00', currency: 'NGN', country: 'NG', fullName: 'Ada Obi', email: 'ada@example.com',
      due: { at: '2026-01-01T00:30:00.000Z', event: 'expire' }, createdAt: NOW, updatedAt: NOW,
      history: [{ at: NOW, status: 'PENDING', code: '20', message: 'Transaction is pending', scenario: 'account-pending', event: 'create' }],
    });
  });

  it('CARD: answers S20 with the authentication page, and keeps of the card only its BIN, last four and a token', async () => {
    const store = await newStore();
    const done = untouched(store, () => initiatePayment(factsFor(store, 'initiatePayment', CARD), selection(scenario('card-succeeds-after-authentication')), ENV));
    const stored = onePayment(done);
    expect(summary(done)).toMatchObject({ code: 'S20', message: 'Transaction is pending', scenario: 'card-succeeds-after-authentication' });
    expect(done.body.data.payments).toEqual({
      paymentReference: REF, linkingReference: stored.linkingReference, redirectUrl: `http://sb/pages/authenticate/${stored.linkingReference}`,
    });
    expect(stored).toMatchObject({ method: 'CARD', status: 'PENDING', code: 'S20', amount: '1500.00' });
    expect(stored.card).toEqual({ bin: '512345', last4: '0008', token: expect.stringMatching(/^SBCTK_[0-9a-f]{24}$/) });
    // Neither the full number, nor the CVV, expiry or PIN, anywhere in what is stored or answered.
    for (const text of [JSON.stringify(done.writes), JSON.stringify(done.body)]) {
      expect(text).not.toContain(CARD.cardNumber);
      expect(text).not.toMatch(/"(cardNumber|cvv|expiryMonth|expiryYear|pin)"/);
    }
  });

  it.each([
    ['a CARD body with walletDaysActive', TRANSFER],
    ['paymentType TRANSFER', { ...TRANSFER, paymentType: 'TRANSFER', walletDaysActive: undefined }],
  ])('TRANSFER (%s): answers 00 with the account to pay into, and writes a PENDING transfer payment', async (_name, body) => {
    const store = await newStore();
    const facts = factsFor(store, 'initiatePayment', body);
    expect(facts.variant).toBe('TRANSFER');
    const done = untouched(store, () => initiatePayment(facts, selection(scenario('transfer-account-opened')), ENV));
    const stored = onePayment(done);
    expect(summary(done)).toMatchObject({ code: '00', message: 'ACCOUNT OPENED SUCCESSFULLY', scenario: 'transfer-account-opened' });
    expect(stored).toMatchObject({ method: 'TRANSFER', status: 'PENDING', amount: '3000.50' });
    expect(stored.transfer).toEqual({
      walletName: 'Ada Obi / Sandbox Pay', wallet: `SBWALLET_${stored.linkingReference.slice(6, 18)}`, bankName: 'Sandbox Bank', accountNumber: expect.stringMatching(/^[0-9]{10}$/),
    });
    expect(done.body.data.payments).toEqual({ paymentReference: REF, amount: 3000.5, ...stored.transfer });
  });

  it('a reused reference: the catalogue\'s S18 duplicate-reference, and nothing is written', async () => {
    const store = await newStore();
    payment({ paymentReference: REF, status: 'PENDING' }, store);
    const done = untouched(store, () => initiatePayment(factsFor(store, 'initiatePayment', ACCOUNT), selection(scenario('duplicate-reference')), ENV));
    expect(done.body).toEqual({ status: 'SUCCESS', data: { code: 'S18', message: 'Transaction reference must be unique', payments: {} } });
    expect(summary(done)).toMatchObject({ scenario: 'duplicate-reference', writes: 0 });
  });

  it('a reused reference with a creating rule forced: still S18, no write, and the reason says the reference is used', async () => {
    const store = await newStore();
    payment({ paymentReference: REF, status: 'SUCCESSFUL' }, store);
    const forced = selection(scenario('card-succeeds-after-authentication'), { forced: true, byValues: scenario('duplicate-reference') });
    const done = untouched(store, () => initiatePayment(factsFor(store, 'initiatePayment', CARD), forced, ENV));
    expect(summary(done)).toEqual({
      code: 'S18', message: 'Transaction reference must be unique', scenario: 'duplicate-reference',
      reason: `paymentReference ${REF} is already used by a SUCCESSFUL payment of this merchant`, writes: 0,
    });
    expect(done.body.data.payments).toEqual({});
  });

  it('the same reference of another merchant is not reused', async () => {
    const store = await newStore();
    payment({ paymentReference: REF, publicKey: 'SBTESTPUBK_unitdomain02' }, store);
    const done = initiatePayment(factsFor(store, 'initiatePayment', ACCOUNT), selection(scenario('account-pending')), ENV);
    expect(onePayment(done).publicKey).toBe(MERCHANT.publicKey);
  });

  it('a rule that creates nothing (S7) answers its code with empty payments and writes nothing', async () => {
    const store = await newStore();
    const done = initiatePayment(factsFor(store, 'initiatePayment', { ...ACCOUNT, amount: '99.99' }), selection(scenario('amount-below-minimum')), ENV);
    expect(summary(done)).toMatchObject({ code: 'S7', scenario: 'amount-below-minimum', writes: 0 });
    expect(done.body.data.payments).toEqual({});
  });

  it('a rule with an HTTP outcome throws its ApiError and writes nothing', async () => {
    const store = await newStore();
    const facts = factsFor(store, 'initiatePayment', ACCOUNT);
    const error = untouched(store, () => thrown(() => initiatePayment(facts, selection(scenario('internal-error'), { forced: true }), ENV)));
    expect([error.status, error.body, error.scenario]).toEqual([500, { message: 'Internal Server Error', error: 'PROCESSING' }, 'internal-error']);
    const teapot = rule('made-up', { operation: 'initiatePayment' }, { http: { status: 403, message: 'No', error: 'PERMISSION' } });
    expect(thrown(() => initiatePayment(facts, selection(teapot), ENV))).toMatchObject({ status: 403, body: { message: 'No', error: 'PERMISSION' }, scenario: 'made-up' });
  });
});

describe('completePayment (validatePayment, completeMomoPayment)', () => {
  const validate = (linkingReference: string, otp = '123456') => ({ linkingReference, otp });

  it('otp-correct: answers 00 with the payment\'s references, and writes it SUCCESSFUL', async () => {
    const store = await newStore();
    const pending = payment({ method: 'ACCOUNT', status: 'PENDING', code: '20' }, store);
    const done = untouched(store, () => completePayment(factsFor(store, 'validatePayment', validate(pending.linkingReference)), selection(scenario('otp-correct')), ENV));
    expect(done.body).toEqual({
      status: 'SUCCESS',
      data: { code: '00', message: 'Successful', payments: { paymentReference: pending.paymentReference, linkingReference: pending.linkingReference, authoption: [] } },
    });
    // The fixture's record has no history, as one written before it was kept: the history starts here.
    const history = [{ at: NOW, status: 'SUCCESSFUL', code: '00', message: 'Successful', scenario: 'otp-correct', event: 'settle' }];
    expect(onePayment(done)).toEqual({ ...pending, status: 'SUCCESSFUL', code: '00', message: 'Successful', scenario: 'otp-correct', updatedAt: NOW, history });
  });

  it('otp-wrong on a MOMO payment: S12 with empty payments, and writes it FAILED', async () => {
    const store = await newStore();
    const pending = payment({ method: 'MOMO', status: 'PENDING', card: undefined }, store);
    const done = completePayment(factsFor(store, 'completeMomoPayment', validate(pending.linkingReference, '000000')), selection(scenario('otp-wrong')), ENV);
    expect(summary(done)).toMatchObject({ code: 'S12', message: 'Transaction Failed', scenario: 'otp-wrong' });
    expect(done.body.data.payments).toEqual({});
    expect(onePayment(done)).toMatchObject({ status: 'FAILED', code: 'S12', scenario: 'otp-wrong' });
  });

  it('momo-otp-pending: OTP 81015 answers S20 with the payment\'s references, as the provider\'s example; PENDING, settled ten seconds later', async () => {
    const store = await newStore();
    const pending = payment({ method: 'MOMO', status: 'PENDING', code: 'NIP', card: undefined, due: { at: '2026-01-01T00:30:00.000Z', event: 'expire' } }, store);
    const facts = factsFor(store, 'completeMomoPayment', validate(pending.linkingReference, '81015'));
    const rule = ENGINE.decide(facts);
    expect(rule.name).toBe('momo-otp-pending');
    const done = untouched(store, () => completePayment(facts, selection(rule), ENV));
    expect(done.body).toEqual({
      status: 'SUCCESS',
      data: { code: 'S20', message: 'Transaction is pending', payments: { paymentReference: pending.paymentReference, linkingReference: pending.linkingReference } },
    });
    const waiting = onePayment(done);
    // The OTP's lifetime gives way to the settlement the rule promises, on the merchant's clock.
    expect(waiting).toMatchObject({ status: 'PENDING', code: 'S20', scenario: 'momo-otp-pending', due: { at: '2026-01-01T00:00:10.000Z', event: 'settle', outcome: 'success' } });
    // Waiting changes nothing a merchant hears of; the settlement that falls due pays it, and that is notified.
    expect(eventsOf(pending, waiting)).toEqual([]);
    const settled = settleDue(ENGINE, waiting, '2026-01-01T00:00:10.000Z')!.payment!;
    expect(settled).toMatchObject({ status: 'SUCCESSFUL', code: '00', scenario: 'settled-later-success' });
    expect(eventsOf(waiting, settled).map((event) => event.eventType)).toEqual(['transaction']);
    // Settled over the control API first, it fails there and nothing stays due.
    expect(settleExternally(ENGINE, waiting, 'failure', NOW).payment).toMatchObject({ status: 'FAILED', code: 'S12', due: undefined });
  });

  it('the pending rule forced on validate keeps what was due and answers the spec\'s fields, authoption included', async () => {
    const store = await newStore();
    const due = { at: '2026-01-01T00:30:00.000Z', event: 'expire' as const };
    const pending = payment({ method: 'ACCOUNT', status: 'PENDING', code: '20', due }, store);
    const done = completePayment(factsFor(store, 'validatePayment', validate(pending.linkingReference)), selection(scenario('otp-card-stays-pending'), { forced: true }), ENV);
    expect(done.body.data.payments).toEqual({ paymentReference: pending.paymentReference, linkingReference: pending.linkingReference, authoption: [] });
    expect(onePayment(done)).toMatchObject({ status: 'PENDING', due });
  });

  it('a forced rule without a state (transaction-failed) answers S12 and writes nothing', async () => {
    const store = await newStore();
    const pending = payment({ status: 'PENDING' }, store);
    const done = completePayment(factsFor(store, 'validatePayment', validate(pending.linkingReference)), selection(scenario('transaction-failed'), { forced: true }), ENV);
    expect(summary(done)).toMatchObject({ code: 'S12', scenario: 'transaction-failed', writes: 0 });
  });

  it.each([
    ['validatePayment', 'SUCCESSFUL', 'CARD', 'validated'],
    ['completeMomoPayment', 'FAILED', 'MOMO', 'completed with an OTP'],
  ] as const)('%s of a %s payment: RR Sorry payment already processed, no write, and why', async (operation, status, method, doing) => {
    const store = await newStore();
    const settled = payment({ status, method }, store);
    const done = untouched(store, () => completePayment(factsFor(store, operation, validate(settled.linkingReference)), selection(scenario('otp-correct')), ENV));
    expect(summary(done)).toEqual({
      code: 'RR', message: 'Sorry payment already processed', scenario: 'payment-already-processed',
      reason: `payment ${settled.paymentReference} is ${status}; only a PENDING payment can be ${doing}`, writes: 0,
    });
    expect(done.body.data.payments).toEqual({ paymentReference: settled.paymentReference, linkingReference: settled.linkingReference, authoption: [] });
  });

  it('an unknown linkingReference, or another merchant\'s: ApiError 404', async () => {
    const store = await newStore();
    const theirs = payment({ paymentReference: 'SBREF-THEIRS', publicKey: 'SBTESTPUBK_unitdomain02', status: 'PENDING' }, store);
    for (const linkingReference of ['SBLNK_00000000000000000000', theirs.linkingReference]) {
      const error = thrown(() => completePayment(factsFor(store, 'validatePayment', validate(linkingReference)), selection(scenario('otp-correct')), ENV));
      expect(error.status).toBe(404);
      expect(error.headers['X-Sandbox-Detail']).toBe(`No payment with linkingReference ${linkingReference}`);
    }
  });

  it('a payment of the other completion endpoint: ApiError 400 INPUT naming the right one', async () => {
    const store = await newStore();
    const momo = payment({ method: 'MOMO', status: 'PENDING' }, store);
    const error = untouched(store, () => thrown(() => completePayment(factsFor(store, 'validatePayment', validate(momo.linkingReference)), selection(scenario('otp-correct')), ENV)));
    expect(error.status).toBe(400);
    expect(error.body).toEqual({ message: `linkingReference ${momo.linkingReference} is a MOMO payment: complete it with POST /payments/momo/otp`, error: 'INPUT' });
    const account = payment({ paymentReference: 'SBREF-ACCT', method: 'ACCOUNT', status: 'PENDING' }, store);
    const anyCompletion = rule('any-completion', { operation: 'completeMomoPayment' }, answer('00', { state: 'SUCCESSFUL' }));
    const other = thrown(() => completePayment(factsFor(store, 'completeMomoPayment', validate(account.linkingReference)), selection(anyCompletion), ENV));
    expect(other.body).toMatchObject({ message: expect.stringContaining('complete it with POST /payments/validate'), error: 'INPUT' });
  });
});

describe('settleExternally', () => {
  it.each([
    ['success', 'SUCCESSFUL', '00', 'Successful', 'control-complete-success'],
    ['failure', 'FAILED', 'S12', 'Transaction Failed', 'control-complete-failure'],
  ] as const)('%s: the new record, with the code and message of %s', (outcome, status, code, message, name) => {
    const pending = payment({ status: 'PENDING' });
    const done = settleExternally(ENGINE, pending, outcome, NOW);
    expect(done.refused).toBeUndefined();
    expect(done.payment).toEqual({ ...pending, status, code, message, scenario: name, updatedAt: NOW, history: [{ at: NOW, status, code, message, scenario: name, event: 'settle' }] });
  });

  it('a payment no longer pending is refused and left as it stands', () => {
    const paid = payment({ status: 'SUCCESSFUL', code: '00' });
    expect(settleExternally(ENGINE, paid, 'failure', NOW)).toEqual({ refused: 'not-pending', payment: paid });
  });
});
