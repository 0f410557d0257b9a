import { createHash, timingSafeEqual } from 'node:crypto';
import { processingError } from '../errors.js';
import { answerWith, type Answer, type OperationContext } from './answer.js';
import { linkingReferenceOf } from './merchants.js';
import { newPayment } from './payments.js';

/**
 * Hosted checkout (spec, endpoints 2 and 4): the payload hash and the payment
 * link. The spec does not say what is hashed; README "Where the spec is
 * silent" gives the rule implemented here.
 */

type Body = Record<string, unknown>;

/** The payload fields that enter the hash, in the order they are joined (sorted by name). */
export const HASHED_FIELDS = [
  'amount', 'callbackUrl', 'country', 'currency', 'email', 'paymentReference', 'productDescription', 'productId', 'publicKey',
] as const;

/** A hosted checkout link's paymentStatus while the customer has not paid (the spec's one example value). */
export const LINK_PAYMENT_STATUS = '08';

/**
 * The hosted checkout hash of a payload: the HASHED_FIELDS present in the
 * body, sorted by name, joined as `name=value` with `&` (values raw, not
 * URL-encoded), the merchant's secret key appended with no separator;
 * SHA-256, lower-case hex.
 */
export function checkoutHash(body: Body, secretKey: string): string {
  const joined = HASHED_FIELDS.filter((field) => body[field] !== undefined && body[field] !== null)
    .map((field) => `${field}=${String(body[field])}`)
    .join('&');
  return createHash('sha256').update(joined + secretKey).digest('hex');
}

/** POST /encrypt/hashs: `data.hash.hash` is the checkout hash of the body. */
export function computeHash(ctx: OperationContext, body: Body): Answer {
  const scenario = ctx.decide({ operation: 'computeHash', body });
  return answerWith(scenario, () => ({ hash: checkoutHash(body, ctx.merchant.secretKey) }), 'hash');
}

/**
 * POST /payments: a hosted checkout link. When `hash` is present it must be
 * the checkout hash of the body.
 * @throws ApiError 500 INVALID HASH / PROCESSING when it is not.
 */
export function createCheckoutLink(ctx: OperationContext, body: Body): Answer {
  if (typeof body.hash === 'string') {
    const expected = Buffer.from(checkoutHash(body, ctx.merchant.secretKey));
    const given = Buffer.from(body.hash.toLowerCase());
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
      throw processingError('INVALID HASH', 'invalid-hash');
    }
  }
  const paymentReference = String(body.paymentReference);
  const existing = ctx.store.payment(ctx.merchant.publicKey, paymentReference);
  const scenario = ctx.decide({ operation: 'createCheckoutLink', body, payment: existing });
  const linkingReference = linkingReferenceOf(ctx.merchant.publicKey, paymentReference);
  return answerWith(scenario, (outcome) => {
    if (outcome.state) {
      const payment = newPayment(ctx, body, 'CHECKOUT', linkingReference);
      Object.assign(payment, { status: outcome.state, code: outcome.code, message: outcome.message, scenario: scenario.name });
      ctx.store.putPayment(payment);
    }
    return { redirectLink: ctx.links.checkout(linkingReference), paymentStatus: LINK_PAYMENT_STATUS };
  });
}

