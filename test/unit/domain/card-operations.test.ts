import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import {
  authorisePayment, authorisePayment3ds, capturePayment, chargeCard, passesLuhnCheck, TEST_CARDS_FAILING_LUHN, tokenizeCard,
} from '../../../src/domain/card-operations.js';
import { cancelPayment, refundPayment } from '../../../src/domain/payments.js';
import { transition } from '../../../src/domain/state-machine.js';
import { CATALOGUE, ENV, NOW, OTHER, factsFor, newStore, onePayment, payment, scenario, selection, summary, thrown, untouched } from './fixtures.js';

/**
 * Card pre-authorisation, direct charge and tokenisation (docs/decisions.md#d48-card-operations;
 * external-api.yml: Authorise, 3DSAuthorise, Capture, ChargeCard,
 * TokenizeaCard), without HTTP: each operation's answer, what it stores, and
 * what the state machine refuses.
 */

const REF = 'SBREF-PREAUTH-UNIT-1';
const card = (fields: Record<string, unknown> = {}) => ({
  paymentReference: REF, amount: '100.00', currency: 'NGN', country: 'NG',
  cardNumber: '5123450000000008', cvv: '100', expiryMonth: '05', expiryYear: '30', ...fields,
});
const capture = (amount: string, paymentReference = REF) => ({ paymentReference, amount, currency: 'NGN', country: 'NG', productDescription: 'unit' });
const S12 = { code: 'S12', message: 'Transaction Failed' };

describe('authorisePayment', () => {
  it('authorises a card: 201, 00 APPROVED, AUTHORIZED with nothing captured, and the card\'s BIN, last four and token', async () => {
    const store = await newStore();
    const done = untouched(store, () => authorisePayment(factsFor(store, 'authorisePayment', card()), selection(scenario('preauth-authorised')), ENV));
    expect(done.status).toBe(201);
    const stored = onePayment(done);
    expect(stored).toMatchObject({ paymentReference: REF, status: 'AUTHORIZED', amount: '100.00', capturedAmount: '0.00', refundedAmount: '0.00', method: 'CARD', code: '00', createdAt: NOW });
    expect(stored.card).toEqual({ bin: '512345', last4: '0008', token: expect.stringMatching(/^SBCTK_[0-9a-f]{24}$/) });
    expect(done.body.data).toEqual({
      code: '00', message: 'APPROVED',
      payments: { paymentReference: REF, linkingReference: stored.linkingReference, status: 'AUTHORIZED', card: stored.card },
    });
    expect(JSON.stringify(stored)).not.toContain('5123450000000008');
  });

  it('with a cardToken of the merchant: the token\'s card, and the card\'s own test outcome (a declining card\'s token declines)', async () => {
    const store = await newStore();
    const declining = payment({ paymentReference: 'SBREF-TOKEN-SOURCE', status: 'TOKENIZED', card: { bin: '400000', last4: '0002', token: 'SBCTK_declining0000000001' } }, store);
    const facts = factsFor(store, 'authorisePayment', { paymentReference: REF, amount: '5.00', currency: 'NGN', country: 'NG', cardToken: declining.card!.token });
    expect(facts.card).toEqual({ bin: '400000', last4: '0002' });
    const rule = scenario('card-operation-declined');
    expect(rule.match.card).toBeDefined();
    const done = authorisePayment(facts, selection(rule), ENV);
    expect(onePayment(done)).toMatchObject({ status: 'FAILED', code: 'S12', card: declining.card });
  });

  it('refuses, in the provider\'s body and storing nothing: a reused reference, no card, a token of another merchant, a number without its expiry', async () => {
    const store = await newStore();
    payment({ paymentReference: REF, status: 'AUTHORIZED', capturedAmount: '0.00' }, store);
    const other = await newStore();
    const theirs = payment({ paymentReference: 'SBREF-THEIRS', status: 'TOKENIZED', publicKey: OTHER.publicKey, card: { bin: '512345', last4: '0008', token: 'SBCTK_othermerchant000001' } }, other);
    const cases: Array<[Record<string, unknown>, string]> = [
      [card(), 'Duplicate transaction reference'],
      [{ paymentReference: 'SBREF-NOCARD', amount: '1.00', currency: 'NGN', country: 'NG' }, 'Missing Card details'],
      [{ paymentReference: 'SBREF-THEIR-TOKEN', amount: '1.00', currency: 'NGN', country: 'NG', cardToken: theirs.card!.token }, 'Missing Card details'],
      [{ paymentReference: 'SBREF-NOEXPIRY', amount: '1.00', currency: 'NGN', country: 'NG', cardNumber: '5123450000000008' }, 'Incomplete Card details'],
    ];
    for (const [body, message] of cases) {
      const error = untouched(store, () => thrown(() => authorisePayment(factsFor(store, 'authorisePayment', body), selection(scenario('preauth-authorised')), ENV)));
      expect(error.status, message).toBe(400);
      expect(error.body, message).toEqual({ status: 'ERROR', data: { code: 'S12', message } });
    }
    const reused = thrown(() => authorisePayment(factsFor(store, 'authorisePayment', card()), selection(scenario('preauth-authorised')), ENV));
    expect(reused.headers['X-Sandbox-Reason']).toBe(`paymentReference ${REF} is already used by a AUTHORIZED payment of this merchant`);
  });
});

describe('capturePayment', () => {
  it('captures in parts: PARTIALLY_CAPTURED, then CAPTURED once all is captured; beyond what is left S12 with why; then none is open to capture', async () => {
    const store = await newStore();
    const authorised = payment({ paymentReference: REF, status: 'AUTHORIZED', amount: '100.00', capturedAmount: '0.00' }, store);
    const first = untouched(store, () => capturePayment(factsFor(store, 'capturePayment', capture('40.00')), selection(scenario('preauth-captured')), ENV));
    expect(first.body.data).toEqual({ code: '00', message: 'APPROVED', payments: { paymentReference: REF, status: 'PARTIALLY_CAPTURED', card: authorised.card } });
    store.putPayment(onePayment(first));
    expect(store.payment(authorised.publicKey, REF)).toMatchObject({ status: 'PARTIALLY_CAPTURED', capturedAmount: '40.00' });

    const beyond = untouched(store, () => capturePayment(factsFor(store, 'capturePayment', capture('60.01')), selection(scenario('preauth-captured')), ENV));
    expect(summary(beyond)).toEqual({
      ...S12, scenario: 'capture-exceeds-amount', reason: `a capture of 60.01 is more than the 60.00 NGN authorised and not yet captured of payment ${REF}`, writes: 0,
    });

    const rest = capturePayment(factsFor(store, 'capturePayment', capture('60.00')), selection(scenario('preauth-captured')), ENV);
    store.putPayment(onePayment(rest));
    expect(store.payment(authorised.publicKey, REF)).toMatchObject({ status: 'CAPTURED', capturedAmount: '100.00' });

    const again = untouched(store, () => thrown(() => capturePayment(factsFor(store, 'capturePayment', capture('1.00')), selection(scenario('preauth-captured')), ENV)));
    expect(again.body).toEqual({ status: 'ERROR', data: { code: 'S12', message: 'No authorised transaction found for this reference' } });
    expect(again.headers['X-Sandbox-Reason']).toBe(`payment ${REF} is CAPTURED; only an AUTHORIZED or PARTIALLY_CAPTURED payment can be captured`);
  });

  it('of a payment that is no pre-authorisation, or of no payment: 400 No authorised transaction found', async () => {
    const store = await newStore();
    payment({ paymentReference: REF, status: 'SUCCESSFUL' }, store);
    for (const reference of [REF, 'SBREF-NONE']) {
      const error = untouched(store, () => thrown(() => capturePayment(factsFor(store, 'capturePayment', capture('1.00', reference)), selection(scenario('preauth-captured')), ENV)));
      expect(error.body, reference).toEqual({ status: 'ERROR', data: { code: 'S12', message: 'No authorised transaction found for this reference' } });
    }
  });
});

describe('a pre-authorisation through cancel and refund', () => {
  it('cancel voids an AUTHORIZED one; refund gives back up to what was captured, not what was authorised', async () => {
    const store = await newStore();
    payment({ paymentReference: 'SBREF-VOID', status: 'AUTHORIZED', amount: '100.00', capturedAmount: '0.00' }, store);
    const voided = cancelPayment(factsFor(store, 'cancelPayment', { paymentReference: 'SBREF-VOID' }), selection(scenario('cancel-approved')), ENV);
    expect(onePayment(voided)).toMatchObject({ status: 'CANCELLED' });

    payment({ paymentReference: REF, status: 'PARTIALLY_CAPTURED', amount: '100.00', capturedAmount: '40.00' }, store);
    const refund = (amount: string) => ({ paymentReference: REF, amount, currency: 'NGN', country: 'NG' });
    const beyond = untouched(store, () => refundPayment(factsFor(store, 'refundPayment', refund('40.01')), selection(scenario('refund-approved')), ENV));
    expect(summary(beyond)).toMatchObject({ ...S12, reason: `a refund of 40.01 is more than the 40.00 NGN left of payment ${REF}` });
    const all = refundPayment(factsFor(store, 'refundPayment', refund('40.00')), selection(scenario('refund-approved')), ENV);
    expect(onePayment(all)).toMatchObject({ status: 'REFUNDED', refundedAmount: '40.00', capturedAmount: '40.00' });
  });

  it('a refund of an AUTHORIZED one (nothing captured) is the provider\'s 400; a cancel of a CAPTURED one S12 with why', async () => {
    const store = await newStore();
    payment({ paymentReference: REF, status: 'AUTHORIZED', capturedAmount: '0.00' }, store);
    const error = thrown(() => refundPayment(factsFor(store, 'refundPayment', { paymentReference: REF, amount: '1.00', currency: 'NGN', country: 'NG' }), selection(scenario('refund-approved')), ENV));
    expect(error.body).toEqual({ status: 'ERROR', data: { code: 'S12', message: 'No authorised transaction found for this reference' } });
    payment({ paymentReference: 'SBREF-CAPTURED', status: 'CAPTURED', capturedAmount: '100.00' }, store);
    const cancel = cancelPayment(factsFor(store, 'cancelPayment', { paymentReference: 'SBREF-CAPTURED' }), selection(scenario('cancel-approved')), ENV);
    expect(summary(cancel)).toMatchObject({ ...S12, scenario: 'cancel-not-allowed', reason: 'payment SBREF-CAPTURED is CAPTURED; only a PENDING or AUTHORIZED payment can be cancelled', writes: 0 });
  });
});

describe('authorisePayment3ds, chargeCard, tokenizeCard', () => {
  it('3-D Secure: PENDING, answered AUTHORISATION PENDING with the authentication page; settled successfully it is AUTHORIZED, not SUCCESSFUL', async () => {
    const store = await newStore();
    const done = authorisePayment3ds(factsFor(store, 'authorisePayment3ds', card()), selection(scenario('preauth-authentication-pending')), ENV);
    const pending = onePayment(done);
    expect(pending).toMatchObject({ status: 'PENDING', capturedAmount: '0.00' });
    expect(done.body.data).toMatchObject({ code: '00', message: 'Transaction is pending', payments: { status: 'AUTHORISATION PENDING', redirectLink: ENV.links.authenticate(pending.linkingReference) } });
    const settled = transition(pending, { type: 'settle', status: 'SUCCESSFUL' }, { code: '00', message: 'Successful', scenario: 'otp-correct', now: NOW });
    expect(settled.payment?.status).toBe('AUTHORIZED');
  });

  it('charge: 201, CAPTURED at once, the card beside payments; the issuer-timeout card S12-91 FAILED', async () => {
    const store = await newStore();
    const done = chargeCard(factsFor(store, 'chargeCard', card({ cvv: undefined })), selection(scenario('card-charged')), ENV);
    expect(done.status).toBe(201);
    const stored = onePayment(done);
    expect(stored).toMatchObject({ status: 'CAPTURED' });
    expect(stored.capturedAmount).toBeUndefined();
    expect(done.body.data).toEqual({ code: '00', message: 'APPROVED', payments: { paymentReference: REF, linkingReference: stored.linkingReference, status: 'CAPTURED' }, card: stored.card });
    const timeout = chargeCard(factsFor(store, 'chargeCard', card({ paymentReference: 'SBREF-TIMEOUT', cardNumber: '4000000000000091' })), selection(scenario('card-issuer-timeout')), ENV);
    expect(summary(timeout)).toMatchObject({ code: 'S12-91', message: 'FAILURE = TIMED_OUT (Issuer or switch inoperative)' });
    expect(onePayment(timeout).status).toBe('FAILED');
  });

  it('tokenize: 201, S20 Card token generated, TOKENIZED, of 0.00; the token then finds its card for this merchant only', async () => {
    const store = await newStore();
    const done = tokenizeCard(factsFor(store, 'tokenizeCard', card({ amount: '0.00' })), selection(scenario('card-tokenized')), ENV);
    expect(done.status).toBe(201);
    const stored = onePayment(done);
    expect(stored).toMatchObject({ status: 'TOKENIZED', amount: '0.00', code: 'S20', message: 'Card token generated' });
    store.putPayment(stored);
    expect(store.cardOfToken(stored.publicKey, stored.card!.token)).toEqual(stored.card);
    expect(store.cardOfToken(OTHER.publicKey, stored.card!.token)).toBeUndefined();
  });

  it('tokenize without an amount, as the provider\'s SDKs send it: a payment of 0.00, TOKENIZED', async () => {
    const store = await newStore();
    const { amount: _amount, ...withoutAmount } = card();
    const done = tokenizeCard(factsFor(store, 'tokenizeCard', withoutAmount), selection(scenario('card-tokenized')), ENV);
    expect(done.status).toBe(201);
    expect(onePayment(done)).toMatchObject({ status: 'TOKENIZED', amount: '0.00', code: 'S20' });
  });

  it('tokenize refuses a card number that fails the Luhn check with the provider\'s 400 Invalid Card Number, storing nothing', async () => {
    const store = await newStore();
    const error = untouched(store, () => thrown(() => tokenizeCard(factsFor(store, 'tokenizeCard', card({ cardNumber: '5123450000000009' })), selection(scenario('card-tokenized')), ENV)));
    expect(error).toMatchObject({ status: 400, body: { status: 'ERROR', data: { code: 'S12', message: 'Invalid Card Number' } }, scenario: 'invalid-card-number' });
    expect(error.headers['X-Sandbox-Reason']).toBe('cardNumber 512345******0009 fails the Luhn check (its last digit is not the check digit of the others)');
    // The same number is still authorised and charged: the provider documents the refusal for tokenize alone.
    expect(authorisePayment(factsFor(store, 'authorisePayment', card({ cardNumber: '5123450000000009' })), selection(scenario('preauth-authorised')), ENV).body.data.code).toBe('00');
  });

  it('tokenize takes every test card, its check digit right or not, so that each can be used by its token', async () => {
    const numbers = new Set<string>();
    // Every card number the catalogue and the README's test values name.
    for (const text of [JSON.stringify(CATALOGUE), readFileSync(new URL('../../../README.md', import.meta.url), 'utf8')]) {
      for (const found of text.matchAll(/\b(?:4000|4111|5123|5399)\d{12}\b/g)) numbers.add(found[0]);
    }
    expect(numbers).toContain('4000000000000091');
    for (const number of numbers) {
      const store = await newStore();
      const facts = factsFor(store, 'tokenizeCard', card({ cardNumber: number }));
      const done = tokenizeCard(facts, selection(scenario('card-tokenized')), ENV);
      expect(done.body.data.code, number).toBe('S20');
    }
    expect([...TEST_CARDS_FAILING_LUHN].every((number) => !passesLuhnCheck(number))).toBe(true);
  });

  it('passesLuhnCheck: the check digit of ISO/IEC 7812-1', () => {
    expect(['5123450000000008', '4111111111111111', '4000000000000002', '79927398713'].map(passesLuhnCheck)).toEqual([true, true, true, true]);
    expect(['5123450000000009', '4000000000000091', '79927398710', ''].map(passesLuhnCheck)).toEqual([false, false, false, false]);
  });
});
