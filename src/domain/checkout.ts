import { createHash, timingSafeEqual } from 'node:crypto';
import { processingError } from '../errors.js';
import type { Selection } from '../scenarios/selector.js';
import { answerWith, type Answer, type OperationEnv } from './answer.js';
import type { FactsOf } from './operation.js';
import { newPaymentFields, type NewPaymentFacts } from './payment-fields.js';
import { answerCreating, newPayment } from './payments.js';
import { stringOf, type Body, type RequestFacts } from './request.js';

/**
 * Hosted checkout (spec, endpoints 2 and 4): the payload hash and the payment
 * link. The spec does not say what is hashed; docs/decisions.md#d10-checkout-hash gives the rule implemented here.
 */

/** The payload fields that enter the hash, in the order they are joined (sorted by name). */
export const HASHED_FIELDS = [
  'amount', 'callbackUrl', 'country', 'currency', 'email', 'paymentReference', 'productDescription', 'productId', 'publicKey',
] as const;

/** A hosted checkout link's paymentStatus while the customer has not paid (the spec's one example value). */
export const LINK_PAYMENT_STATUS = '08';

/**
 * The hosted checkout hash of a payload as the client sent it: the
 * HASHED_FIELDS present in the body, sorted by name, joined as `name=value`
 * with `&` (values as JavaScript prints them: raw, not URL-encoded, a null as
 * `null`), the merchant's secret key appended with no separator; SHA-256,
 * lower-case hex (docs/decisions.md#d10-checkout-hash; the provider's example
 * hash verifies with it).
 * @param order `sorted`: the rule; `as-sent`: the fields in the body's own order, only to explain a mismatch
 */
export function checkoutHash(body: Body, secretKey: string, order: 'sorted' | 'as-sent' = 'sorted'): string {
  const hashed: readonly string[] = HASHED_FIELDS;
  const fields = order === 'sorted' ? HASHED_FIELDS.filter((field) => body[field] !== undefined) : Object.keys(body).filter((field) => hashed.includes(field));
  const joined = fields.map((field) => `${field}=${String(body[field])}`).join('&');
  return createHash('sha256').update(joined + secretKey).digest('hex');
}

/** POST /encrypt/hashs: `data.hash.hash` is the checkout hash of the body as sent. */
export function computeHash(facts: RequestFacts, selection: Selection): Answer {
  return answerWith(selection.rule, () => ({ hash: checkoutHash(facts.sent, facts.merchant.secretKey) }), 'hash');
}

/** What POST /payments says beyond its new payment: the hash sent, if any. */
export interface CheckoutLinkFacts extends NewPaymentFacts {
  /** the hash sent, lower case */
  hash?: string;
}

/** The facts of POST /payments: its payment, and its hash in lower case. */
export const checkoutLinkFacts: FactsOf<CheckoutLinkFacts> = ({ body }) => {
  const facts: CheckoutLinkFacts = { newPayment: newPaymentFields(body, false) };
  const hash = stringOf(body, 'hash');
  if (hash !== undefined) facts.hash = hash.toLowerCase();
  return facts;
};

/**
 * POST /payments: a hosted checkout link. When `hash` is present it must be
 * the checkout hash of the body as sent.
 * @throws ApiError 500 INVALID HASH / PROCESSING when it is not; when the hash
 *   is that of the fields in the order they were sent (as the provider's Node
 *   SDK computes it), X-Sandbox-Detail says so.
 */
export function createCheckoutLink(facts: RequestFacts & CheckoutLinkFacts, selection: Selection, env: OperationEnv): Answer {
  const given = facts.hash;
  if (given !== undefined) {
    if (!sameHash(checkoutHash(facts.sent, facts.merchant.secretKey), given)) {
      const refusal = processingError('INVALID HASH', 'invalid-hash');
      const why = sameHash(checkoutHash(facts.sent, facts.merchant.secretKey, 'as-sent'), given)
        ? 'the hash joins the fields in the order they were sent; the checkout hash joins them sorted by name'
        : 'the hash is not SHA-256 of the fields sorted by name, joined as name=value with &, followed by the secret key';
      refusal.headers['X-Sandbox-Detail'] = why;
      throw refusal;
    }
  }
  return answerCreating(facts, selection, newPayment(facts, facts.newPayment, 'CHECKOUT', env.now()), (payment) => ({
    redirectLink: env.links.checkout(payment.linkingReference),
    paymentStatus: LINK_PAYMENT_STATUS,
  }));
}

function sameHash(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

