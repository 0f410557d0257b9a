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
 * How the fields a client hashed were chosen, ordered and written
 * (docs/decisions.md#d66-checkout-hash-forms):
 * - `fields`: `checkout`, the HASHED_FIELDS present; `all`, every field sent but `hash` and `hashType`;
 * - `order`: `sorted` by name, or `as-sent`, the body's own key order;
 * - `values`: as JavaScript prints them (`true`, `null`), or as PHP does (`1` for true, an empty string for false and null).
 */
export interface HashForm {
  fields: 'checkout' | 'all';
  order: 'sorted' | 'as-sent';
  values: 'javascript' | 'php';
}

/** The checkout hash's own form, the one `POST /encrypt/hashs` answers (docs/decisions.md#d10-checkout-hash). */
export const CHECKOUT_HASH_FORM: HashForm = { fields: 'checkout', order: 'sorted', values: 'javascript' };

/**
 * The other forms a link's hash is accepted in, with a warning, in the order
 * they are tried: every field sent, sorted or in the order sent, as the
 * provider's Node and PHP SDKs hash their payloads (docs/decisions.md#d66-checkout-hash-forms).
 */
export const ACCEPTED_HASH_FORMS: readonly HashForm[] = (['as-sent', 'sorted'] as const).flatMap((order) =>
  (['javascript', 'php'] as const).map((values): HashForm => ({ fields: 'all', order, values })),
);

/** Fields a client sends beside what it hashed: the hash and its algorithm. */
const NOT_HASHED: ReadonlySet<string> = new Set(['hash', 'hashType']);

/**
 * The hosted checkout hash of a payload as the client sent it: by default
 * the HASHED_FIELDS present in the body, sorted by name, joined as
 * `name=value` with `&` (values as JavaScript prints them: raw, not
 * URL-encoded, a null as `null`), the merchant's secret key appended with no
 * separator; SHA-256, lower-case hex (docs/decisions.md#d10-checkout-hash; the
 * provider's example hash verifies with it).
 * @param body the body as sent: its key order is the JSON text's (JSON.parse keeps it for every name that is not an array index)
 * @param form another way to choose, order and write the fields (HashForm)
 */
export function checkoutHash(body: Body, secretKey: string, form: HashForm = CHECKOUT_HASH_FORM): string {
  const hashed: readonly string[] = HASHED_FIELDS;
  const sent = Object.keys(body).filter((field) => (form.fields === 'checkout' ? hashed.includes(field) : !NOT_HASHED.has(field)));
  const fields = form.order === 'sorted' ? sent.sort() : sent;
  const joined = fields.map((field) => `${field}=${form.values === 'php' ? phpText(body[field]) : String(body[field])}`).join('&');
  return createHash('sha256').update(joined + secretKey).digest('hex');
}

// A value as PHP's string concatenation writes it: true 1, false and null nothing; arrays and objects are no checkout field's.
const phpText = (value: unknown): string => (value === true ? '1' : value === false || value === null ? '' : String(value));

/** The warning of a hash accepted in another form than the checkout hash's, naming both (README, "Accepted beyond the spec"). */
export function hashFormWarning(form: HashForm): string {
  const order = form.order === 'sorted' ? 'sorted by name' : 'in the order sent';
  const values = form.values === 'php' ? ', true written 1 and null empty (as PHP writes them)' : '';
  return `hash: over every field sent but hash and hashType, ${order}${values}; the checkout hash is over ${HASHED_FIELDS.join(', ')} (those sent), sorted by name`;
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
 * the checkout hash of the body as sent, or the hash of the fields sent in
 * one of ACCEPTED_HASH_FORMS, which the answer's warning names
 * (docs/decisions.md#d66-checkout-hash-forms).
 * @throws ApiError 500 INVALID HASH / PROCESSING when it is neither, with
 *   X-Sandbox-Detail saying what the hash should be.
 */
export function createCheckoutLink(facts: RequestFacts & CheckoutLinkFacts, selection: Selection, env: OperationEnv): Answer {
  const given = facts.hash;
  let warnings: string[] | undefined;
  if (given !== undefined && !sameHash(checkoutHash(facts.sent, facts.merchant.secretKey), given)) {
    const form = ACCEPTED_HASH_FORMS.find((candidate) => sameHash(checkoutHash(facts.sent, facts.merchant.secretKey, candidate), given));
    if (!form) {
      const refusal = processingError('INVALID HASH', 'invalid-hash');
      refusal.headers['X-Sandbox-Detail'] =
        "the hash is not SHA-256 of the fields sorted by name, joined as name=value with &, followed by the merchant's secret key, nor of every field sent but hash and hashType, sorted or in the order sent";
      throw refusal;
    }
    warnings = [hashFormWarning(form)];
  }
  const answer = answerCreating(facts, selection, newPayment(facts, facts.newPayment, 'CHECKOUT', env.now()), (payment) => ({
    redirectLink: env.links.checkout(payment.linkingReference),
    paymentStatus: LINK_PAYMENT_STATUS,
  }));
  return warnings ? { ...answer, warnings } : answer;
}

function sameHash(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

