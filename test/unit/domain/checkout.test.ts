import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ACCEPTED_HASH_FORMS, checkoutHash, computeHash, createCheckoutLink, hashFormWarning } from '../../../src/domain/checkout.js';
import { linkingReferenceOf } from '../../../src/domain/merchants.js';
import { ENV, MERCHANT, NOW, factsFor, newStore, onePayment, payment, scenario, selection, summary, thrown, untouched } from './fixtures.js';

/** The hosted checkout link and its hash (spec, endpoints 2 and 4; docs/decisions.md#d10-checkout-hash), without HTTP. */

const REF = 'SBREF-CHK-1';
const CALLBACK = 'https://merchant.example.com/callback?x=1&y=2';
/** The body as the client sent it: fields not in name order, the amount a number, a null. */
const SENT = {
  paymentReference: REF, publicKey: MERCHANT.publicKey, amount: 2500.5, currency: 'NGN', country: 'NG', callbackUrl: CALLBACK,
  email: 'ada@example.com', productDescription: null as null,
};
/** The same body once validated: the amount read as text, the null left out. */
const { productDescription: _null, ...VALID } = { ...SENT, amount: '2500.50' };

/** The checkout hash computed here by the rule of docs/decisions.md#d10-checkout-hash, not by checkoutHash. */
const byTheRule = (fields: Array<[string, unknown]>): string =>
  createHash('sha256').update(fields.map(([name, value]) => `${name}=${String(value)}`).join('&') + MERCHANT.secretKey).digest('hex');

const SORTED = byTheRule([
  ['amount', 2500.5], ['callbackUrl', CALLBACK], ['country', 'NG'], ['currency', 'NGN'], ['email', 'ada@example.com'],
  ['paymentReference', REF], ['productDescription', null], ['publicKey', MERCHANT.publicKey],
]);
const AS_SENT = byTheRule([
  ['paymentReference', REF], ['publicKey', MERCHANT.publicKey], ['amount', 2500.5], ['currency', 'NGN'], ['country', 'NG'],
  ['callbackUrl', CALLBACK], ['email', 'ada@example.com'], ['productDescription', null],
]);

/** The facts of a link request whose body as sent carries `hash`. */
const linkFacts = async (hash: string | undefined) => {
  const store = await newStore();
  const sent = hash === undefined ? SENT : { ...SENT, hash };
  const body = hash === undefined ? VALID : { ...VALID, hash };
  return { store, facts: factsFor(store, 'createCheckoutLink', body, { sent }) };
};

describe('checkoutHash', () => {
  it('is SHA-256 of the hashed fields as sent, sorted by name, joined with &, the secret key appended', () => {
    expect(checkoutHash(SENT, MERCHANT.secretKey)).toBe(SORTED);
    expect(checkoutHash(SENT, MERCHANT.secretKey, { fields: 'all', order: 'as-sent', values: 'javascript' })).toBe(AS_SENT);
    // Fields outside the rule (hash itself, anything else) do not count.
    expect(checkoutHash({ ...SENT, hash: 'abc', pocketReference: 'P-1' }, MERCHANT.secretKey)).toBe(SORTED);
  });
});

describe('createCheckoutLink', () => {
  it.each([
    ['the hash of the body as sent', SORTED],
    ['the same hash in upper case', SORTED.toUpperCase()],
    ['no hash at all', undefined],
  ])('%s: answers the checkout page and writes a PENDING CHECKOUT payment', async (_name, hash) => {
    const { store, facts } = await linkFacts(hash);
    const done = untouched(store, () => createCheckoutLink(facts, selection(scenario('checkout-link-created')), ENV));
    const linkingReference = linkingReferenceOf(MERCHANT, REF);
    expect(done.body).toEqual({
      status: 'SUCCESS',
      data: { code: '00', message: 'Successful', payments: { redirectLink: `http://sb/pages/checkout/${linkingReference}`, paymentStatus: '08' } },
    });
    expect(done.scenario).toBe('checkout-link-created');
    expect(onePayment(done)).toEqual({
      publicKey: MERCHANT.publicKey, paymentReference: REF, linkingReference, method: 'CHECKOUT', status: 'PENDING', code: '00', message: 'Successful',
      amount: '2500.50', refundedAmount: '0.00', currency: 'NGN', country: 'NG', email: 'ada@example.com', callbackUrl: CALLBACK,
      scenario: 'checkout-link-created', due: { at: '2026-01-02T00:00:00.000Z', event: 'expire' }, createdAt: NOW, updatedAt: NOW,
      history: [{ at: NOW, status: 'PENDING', code: '00', message: 'Successful', scenario: 'checkout-link-created', event: 'create' }],
    });
  });

  it('the hash of the validated body rather than the one sent: ApiError 500 INVALID HASH, nothing written', async () => {
    const { store, facts } = await linkFacts(checkoutHash(VALID, MERCHANT.secretKey));
    const error = untouched(store, () => thrown(() => createCheckoutLink(facts, selection(scenario('checkout-link-created')), ENV)));
    expect([error.status, error.body, error.scenario]).toEqual([500, { message: 'INVALID HASH', error: 'PROCESSING' }, 'invalid-hash']);
    expect(error.headers['X-Sandbox-Detail']).toBe(
      "the hash is not SHA-256 of the fields sorted by name, joined as name=value with &, followed by the merchant's secret key, nor of every field sent but hash and hashType, sorted or in the order sent",
    );
  });

  it('the hash of the fields in the order sent (the Node SDK\'s): the link, with a warning naming the checkout hash\'s form', async () => {
    const { store, facts } = await linkFacts(AS_SENT);
    const done = untouched(store, () => createCheckoutLink(facts, selection(scenario('checkout-link-created')), ENV));
    expect(summary(done)).toMatchObject({ code: '00', scenario: 'checkout-link-created', writes: 1 });
    expect(done.warnings).toEqual([
      'hash: over every field sent but hash and hashType, in the order sent; the checkout hash is over amount, callbackUrl, country, currency, email, paymentReference, productDescription, productId, publicKey (those sent), sorted by name',
    ]);
  });

  it('the PHP SDK\'s checkout: every field it sends, tokenize included, in the order sent, true written 1; any other order or key is refused', async () => {
    const store = await newStore();
    // Its README payload, in its order; the SDK appends publicKey, then hash and hashType (seerbit-php-sdk, StandardService::Initialize).
    const sent = {
      amount: '1000', callbackUrl: 'http:yourwebsite.com', country: 'NG', currency: 'NGN', email: 'customer@email.com', paymentReference: REF,
      productDescription: 'product_description', productId: '64310880-2708933-427', tokenize: true, publicKey: MERCHANT.publicKey,
    };
    const php = byTheRule(Object.entries(sent).map(([name, value]) => [name, value === true ? '1' : value]));
    const link = (hash: string) => createCheckoutLink(factsFor(store, 'createCheckoutLink', { ...sent, hash, hashType: 'sha256' }), selection(scenario('checkout-link-created')), ENV);
    expect(link(php).warnings).toEqual([hashFormWarning({ fields: 'all', order: 'as-sent', values: 'php' })]);
    expect(hashFormWarning({ fields: 'all', order: 'as-sent', values: 'php' })).toContain('true written 1 and null empty (as PHP writes them)');
    // Sorted by name, tokenize as JavaScript writes it, it verifies too; the warning says sorted.
    const sortedJs = byTheRule(Object.entries(sent).sort(([a], [b]) => (a < b ? -1 : 1)));
    expect(untouched(store, () => link(sortedJs)).warnings![0]).toContain('sorted by name;');
    for (const wrong of [byTheRule(Object.entries(sent).reverse()), checkoutHash(sent, 'SBTESTSECK_unitdomain02', ACCEPTED_HASH_FORMS[1])]) {
      expect(thrown(() => link(wrong)).body).toEqual({ message: 'INVALID HASH', error: 'PROCESSING' });
    }
  });

  it('the checkout hash itself: no warning', async () => {
    const { facts } = await linkFacts(SORTED);
    expect(createCheckoutLink(facts, selection(scenario('checkout-link-created')), ENV).warnings).toBeUndefined();
  });

  it('the hash of another merchant\'s secret key is refused', async () => {
    const { facts } = await linkFacts(checkoutHash(SENT, 'SBTESTSECK_unitdomain02'));
    expect(thrown(() => createCheckoutLink(facts, selection(scenario('checkout-link-created')), ENV)).body).toEqual({ message: 'INVALID HASH', error: 'PROCESSING' });
  });

  it('a reused reference: 500 Transaction with reference exists, whatever rule was forced; nothing written', async () => {
    const { store } = await linkFacts(undefined);
    payment({ paymentReference: REF, status: 'SUCCESSFUL' }, store);
    const facts = factsFor(store, 'createCheckoutLink', VALID, { sent: SENT });
    const forced = selection(scenario('checkout-link-created'), { forced: true, byValues: scenario('duplicate-reference-link'), reused: 'duplicate-reference-link' });
    const error = untouched(store, () => thrown(() => createCheckoutLink(facts, forced, ENV)));
    expect([error.status, error.body, error.scenario]).toEqual([500, { message: 'Transaction with reference exists', error: 'PROCESSING' }, 'duplicate-reference-link']);
    // The refusal says why, as an initiate's does (docs/decisions.md#d35-refusal-reasons).
    expect(error.headers['X-Sandbox-Reason']).toBe(`paymentReference ${REF} is already used by a SUCCESSFUL payment of this merchant`);
  });
});

describe('computeHash', () => {
  it('answers the checkout hash of the body as sent under data.hash.hash, writes nothing, and the link accepts it', async () => {
    const store = await newStore();
    const done = untouched(store, () => computeHash(factsFor(store, 'computeHash', VALID, { sent: SENT }), selection(scenario('hash-computed'))));
    expect(summary(done)).toEqual({ code: '00', message: 'Successful', scenario: 'hash-computed', reason: undefined, writes: 0 });
    expect(done.body.data.hash).toEqual({ hash: SORTED });

    const answered = (done.body.data.hash as { hash: string }).hash;
    const facts = factsFor(store, 'createCheckoutLink', { ...VALID, hash: answered }, { sent: { ...SENT, hash: answered } });
    expect(onePayment(createCheckoutLink(facts, selection(scenario('checkout-link-created')), ENV)).paymentReference).toBe(REF);
  });
});
