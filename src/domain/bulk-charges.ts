import { createHash } from 'node:crypto';
import { invalidToken, providerError, type ApiError } from '../errors.js';
import type { Payment } from '../model/records.js';
import type { Selection } from '../scenarios/selector.js';
import { httpOutcome, paymentWrite, type Answer, type OperationEnv, type PayloadEnvelope, type Write } from './answer.js';
import { cardSchemeOf } from './notification-events.js';
import { newPayment, outcomeOf } from './payments.js';
import { normaliseAmount } from '../model/money.js';
import type { FactsOf } from './operation.js';
import type { NewPaymentFields } from './payment-fields.js';
import { stringOf, textOf, type Body, type RequestFacts } from './request.js';
import { REASON_HEADER, transition } from './state-machine.js';

/**
 * The documentation's bulk token charge (its "Card Tokenise and Charge"
 * page; docs/decisions.md#d60-bulk-token-charge): a JSON array of charges by authorization code,
 * answered with a batch id in the page's own envelope, `{code, message,
 * payload}`, and looked up by that id. Each item is a payment, charged as
 * POST /payments/charge-token would charge it.
 */

/** One item of a bulk token charge (its documentation, "Bulk Charge Token"). */
export interface BulkChargeItem {
  /** the item's fields; its currency and country are those of the payment whose card it charges */
  fields: NewPaymentFields;
  /** the item's publicKey, if it sends one */
  publicKey?: string;
  authorizationCode: string;
  /** the merchant's paid payment of that authorization code, if any */
  tokenPayment?: Payment;
  /** the merchant's payment with the item's paymentReference, if one exists */
  payment?: Payment;
}

/** The facts of POST /payments/bulk-tokenize-charge: its items, in order, each with what the store knows of it. */
export const bulkChargeFacts: FactsOf<{ bulkCharges: BulkChargeItem[] }> = ({ body }, { publicKey }, store) => {
  // The batch's body is a JSON array (the document's schema).
  const items: Body[] = Array.isArray(body) ? body : [];
  return {
    bulkCharges: items.map((item) => {
      const authorizationCode = textOf(item, 'authorizationCode');
      const tokenPayment = store.paymentOfAuthorizationCode(publicKey, authorizationCode);
      const fields: NewPaymentFields = {
        paymentReference: textOf(item, 'paymentReference'),
        amount: normaliseAmount(textOf(item, 'amount')),
        currency: tokenPayment?.currency ?? 'NGN',
        country: tokenPayment?.country ?? 'NG',
        kept: {},
      };
      const charge: BulkChargeItem = { fields, authorizationCode, payment: store.payment(publicKey, fields.paymentReference) };
      if (tokenPayment) charge.tokenPayment = tokenPayment;
      const itemKey = stringOf(item, 'publicKey');
      if (itemKey !== undefined) charge.publicKey = itemKey;
      return charge;
    }),
  };
};

/** The facts of GET /payments/bulk-tokenize-charge-search: the batchId of the query, and the merchant's payments of that batch in order. */
export interface BatchSearchFacts {
  batchId: string;
  batchPayments: Payment[];
}

/** The facts of GET /payments/bulk-tokenize-charge-search. */
export const batchSearchFacts: FactsOf<BatchSearchFacts> = ({ query }, { publicKey }, store) => {
  const asked = query?.batchId;
  const batchId = typeof asked === 'string' ? asked : '';
  const batchPayments = store.payments(publicKey).filter((stored) => stored.bulk?.batchId === batchId);
  return { batchId, batchPayments: batchPayments.sort((a, b) => (a.bulk?.item ?? 0) - (b.bulk?.item ?? 0)) };
};

/**
 * POST /payments/bulk-tokenize-charge: every item checked first (the whole
 * batch is refused, and nothing stored, for one bad item), then each charged
 * at once, SUCCESSFUL or FAILED as the catalogue decides a charge-token of
 * its card (a declining test card fails its item only). The batch's rule
 * answers the envelope: `00` Successful with `payload.batchId`.
 * @throws ApiError 400 in the provider's body for an empty batch, an
 *   authorization code that is none of the merchant's paid ones
 *   (`Invalid/Missing parameters = authorizationCode`), or a paymentReference
 *   used before or twice in the batch (`Duplicate transaction reference`);
 *   401 for an item's publicKey that is not the merchant's
 */
export function chargeTokenBulk(facts: RequestFacts & { bulkCharges: BulkChargeItem[] }, selection: Selection, env: OperationEnv): Answer<PayloadEnvelope> {
  const items = facts.bulkCharges;
  if (items.length === 0) throw batchError('Invalid/Missing parameters = charges', 'the batch has no charge');
  const seen = new Set<string>();
  items.forEach((item, index) => {
    if (item.publicKey !== undefined && item.publicKey !== facts.publicKey) throw invalidToken();
    if (!item.tokenPayment?.card) {
      throw batchError('Invalid/Missing parameters = authorizationCode', `item ${index + 1}: authorizationCode ${item.authorizationCode.slice(0, 40)} is no paid card tokenisation of merchant ${facts.publicKey}`);
    }
    const reference = item.fields.paymentReference;
    if (item.payment || seen.has(reference)) throw batchError('Duplicate transaction reference', `item ${index + 1}: paymentReference ${reference.slice(0, 100)} is already used`);
    seen.add(reference);
  });
  const rule = selection.rule;
  if (rule.then.http) throw httpOutcome(rule);
  const now = env.now();
  const batchId = batchIdOf(items);
  const writes: Write[] = rule.then.code === '00' ? items.map((item, index) => paymentWrite(charged(facts, item, index + 1, batchId, env, now))) : [];
  const payload = writes.length > 0 ? { batchId } : {};
  return { scenario: rule.name, body: { code: rule.then.code ?? '', message: rule.then.message ?? '', payload }, writes };
}

/**
 * GET /payments/bulk-tokenize-charge-search?batchId=: the batch's charges
 * in a page of the provider's shape (`payload.content`, `pageable`,
 * `totalElements`...), one page of them all; an empty page for a batchId
 * that is none of the merchant's.
 */
export function searchTokenBulk(facts: RequestFacts & BatchSearchFacts, selection: Selection): Answer<PayloadEnvelope> {
  const rule = selection.rule;
  if (rule.then.http) throw httpOutcome(rule);
  const content = facts.batchPayments.map(itemView);
  const sort = { sorted: true, unsorted: false, empty: false };
  const size = Math.max(10, content.length);
  const payload = {
    content,
    pageable: { sort, pageNumber: 0, pageSize: size, offset: 0, paged: true, unpaged: false },
    last: true,
    totalElements: content.length,
    totalPages: 1,
    sort,
    first: true,
    numberOfElements: content.length,
    size,
    number: 0,
    empty: content.length === 0,
  };
  return { scenario: rule.name, body: { code: rule.then.code ?? '', message: rule.then.message ?? '', payload }, writes: [] };
}

// One item charged: a card payment of the card behind its code, decided as a charge-token of that card.
function charged(facts: RequestFacts, item: BulkChargeItem, place: number, batchId: string, env: OperationEnv, now: string): Payment {
  const source = item.tokenPayment!;
  const record = newPayment(facts, item.fields, 'CARD', now);
  record.card = source.card;
  record.withoutAuthentication = true;
  record.bulk = { batchId, item: place, authorizationCode: item.authorizationCode };
  const card = { bin: source.card!.bin, last4: source.card!.last4 };
  const rule = env.decide({ operation: 'chargeToken', body: {}, headers: {}, card });
  const made = transition(undefined, { type: 'create', record, status: rule.then.state ?? 'SUCCESSFUL' }, outcomeOf(rule, now));
  return made.payment ?? record;
}

// The provider's look (`d4wnvzc`): seven lower-case letters and digits, from the batch's references, so a replayed batch shows the same id.
function batchIdOf(items: readonly BulkChargeItem[]): string {
  const digest = createHash('sha256').update(`batch:${items.map((item) => item.fields.paymentReference).join('\n')}`).digest();
  return BigInt(`0x${digest.subarray(0, 8).toString('hex')}`).toString(36).slice(0, 7).padStart(7, '0');
}

// An item of the search, as the provider's example shows it: amounts as decimal strings, times without a zone.
function itemView(payment: Payment): Record<string, unknown> {
  return {
    id: payment.bulk!.item,
    authorizationCode: payment.bulk!.authorizationCode,
    statusCode: payment.code,
    message: payment.message,
    createdAt: payment.createdAt.slice(0, 23),
    updatedAt: payment.updatedAt.slice(0, 23),
    batchId: payment.bulk!.batchId,
    currency: payment.currency,
    cardBin: payment.card?.bin ?? '',
    cardLastFourDigits: payment.card?.last4 ?? '',
    cardType: payment.card ? cardSchemeOf(payment.card.bin) : '',
    amount: payment.amount,
    paymentReference: payment.paymentReference,
  };
}

// A refusal of the whole batch, in the provider's body, with why in X-Sandbox-Reason.
function batchError(message: string, reason: string): ApiError {
  const error = providerError(400, message, message.startsWith('Duplicate') ? 'duplicate-reference' : 'invalid-parameters');
  error.headers[REASON_HEADER] = reason;
  return error;
}
