import { createHash } from 'node:crypto';
import { noAuthorisedTransaction, providerError, type ApiError } from '../errors.js';
import type { Payment, StoredCard } from '../model/records.js';
import type { Selection } from '../scenarios/selector.js';
import { answerWith, paymentWrite, refused, type Answer, type OperationEnv } from './answer.js';
import type { FactsOf } from './operation.js';
import { newPaymentFields, type NewPaymentFacts } from './payment-fields.js';
import { answerCreating, newPayment, outcomeOf, type AmountFacts } from './payments.js';
import { stringOf, type RequestFacts } from './request.js';
import { REASON_HEADER, refusalReason, transition, type PaymentEvent } from './state-machine.js';

/**
 * The card operations the provider's SDKs call beyond the spec's eleven
 * (external-api.yml: Authorise, 3DSAuthorise, Capture, ChargeCard,
 * TokenizeaCard; README, "Card pre-authorisation"): a pre-authorisation is
 * created AUTHORIZED (or PENDING until its customer authenticates), captured
 * in parts or at once, and cancelled or refunded through the spec's own
 * endpoints; a direct charge is CAPTURED at once; a tokenisation is
 * TOKENIZED. Each card operation takes the card's fields or a `cardToken`
 * the merchant was given for a card before. Outcomes come from the catalogue
 * (scenarios/payments.yaml) by the card's test values.
 */

/**
 * The HTTP status of each card operation's envelope: the provider's document
 * labels them 201, and its PHP SDK's tests, run against the provider, expect
 * 201 of authorise, charge and tokenize and 200 of capture (docs/decisions.md#d48-card-operations).
 */
export const CARD_ANSWER_STATUS = { authorisePayment: 201, authorisePayment3ds: 200, capturePayment: 200, chargeCard: 201, tokenizeCard: 201 } as const;

/**
 * What a card operation (and a subscription, which starts with one) says of
 * its card: its number (in `newPayment`), or a `cardToken` or an
 * `authorizationCode` the merchant was given for a card before, with what
 * the store knows of either; `card` is the BIN and last four the catalogue's
 * rules match, of whichever card it is.
 */
export interface CardFacts extends NewPaymentFacts {
  /** the `cardToken` sent instead of the card's fields */
  cardToken?: string;
  /** the `authorizationCode` sent instead of a card (charge-token, recurring charge) */
  authorizationCode?: string;
  /** the merchant's stored card of that token or authorization code; absent when it is none of the merchant's */
  tokenCard?: StoredCard;
  /** the merchant's paid payment of that authorization code (a tokenisation's or a subscription's) */
  tokenPayment?: Payment;
  /** true when the body names the card's expiry month and year */
  expiry: boolean;
  /** the BIN and last four of whichever card it is: what the catalogue's rules match (src/scenarios/engine.ts, Facts) */
  card?: { bin: string; last4: string };
}

/** The facts of a card operation: its new payment and its card. */
export const cardFacts: FactsOf<CardFacts> = ({ body, operation }, { publicKey }, store) => {
  // A tokenisation without `amount` keeps the card for a payment of 0.00, the amount of the provider's example (docs/decisions.md#d63-tokenize-card-checks).
  const read = operation === 'tokenizeCard' && body.amount === undefined ? { ...body, amount: '0.00' } : body;
  const facts: CardFacts = { newPayment: newPaymentFields(read, true), expiry: body.expiryMonth !== undefined && body.expiryYear !== undefined };
  const cardToken = stringOf(body, 'cardToken');
  if (cardToken !== undefined) {
    facts.cardToken = cardToken;
    facts.tokenCard = store.cardOfToken(publicKey, cardToken);
  }
  const authorizationCode = stringOf(body, 'authorizationCode');
  if (authorizationCode !== undefined) {
    facts.authorizationCode = authorizationCode;
    facts.tokenPayment = store.paymentOfAuthorizationCode(publicKey, authorizationCode);
    facts.tokenCard = facts.tokenPayment?.card;
  }
  const number = facts.newPayment.cardNumber;
  if (facts.tokenCard) facts.card = { bin: facts.tokenCard.bin, last4: facts.tokenCard.last4 };
  else if (number !== undefined) facts.card = { bin: number.slice(0, 6), last4: number.slice(-4) };
  return facts;
};

/** A card operation's facts as its run reads them. */
type CardRequest = RequestFacts & CardFacts;

/**
 * POST /payments/authorise: a card pre-authorisation, AUTHORIZED (00
 * APPROVED) or FAILED (S12, S12-91) as the catalogue says, with the card's
 * BIN, last four and token.
 * @throws ApiError 400 in the provider's body: Duplicate transaction
 *   reference, Missing Card details (no card, or a cardToken that is none of
 *   the merchant's), Incomplete Card details (a number without its expiry).
 */
export function authorisePayment(facts: CardRequest, selection: Selection, env: OperationEnv): Answer {
  return withStatus(answerCreating(facts, selection, cardPayment(facts, env, true), withCard), CARD_ANSWER_STATUS.authorisePayment);
}

/**
 * POST /payments/authorise3ds: a pre-authorisation that waits for its
 * customer on the card authentication page (`redirectLink`); the page's
 * success leaves it AUTHORIZED (src/domain/state-machine.ts). The answer's
 * status is the provider's `AUTHORISATION PENDING`.
 * @throws ApiError as authorisePayment
 */
export function authorisePayment3ds(facts: CardRequest, selection: Selection, env: OperationEnv): Answer {
  const record = cardPayment(facts, env, true);
  return answerCreating(facts, selection, record, (payment) => ({
    paymentReference: payment.paymentReference,
    redirectLink: env.links.authenticate(payment.linkingReference),
    linkingReference: payment.linkingReference,
    status: payment.status === 'PENDING' ? 'AUTHORISATION PENDING' : payment.status,
  }));
}

/**
 * POST /payments/charge: a card charged at once, without 3-D Secure:
 * CAPTURED or FAILED. The card sits beside `payments` in `data`, as the
 * provider's example has it (external-api.yml, ChargeCardResponse).
 * @throws ApiError as authorisePayment
 */
export function chargeCard(facts: CardRequest, selection: Selection, env: OperationEnv): Answer {
  const record = cardPayment(facts, env, false);
  return withStatus(
    answerCreating(
      facts,
      selection,
      record,
      (payment) => ({
        payments: { paymentReference: payment.paymentReference, linkingReference: payment.linkingReference, status: payment.status },
        card: payment.card,
      }),
      null,
    ),
    CARD_ANSWER_STATUS.chargeCard,
  );
}

/**
 * POST /payments/tokenize: the card is kept as a token (`card.token`) that
 * the merchant's later authorisations and charges may send as `cardToken`;
 * the payment, of the amount sent (0.00 when none is: the provider's example
 * sends 0.00, its SDKs none), is TOKENIZED (docs/decisions.md#d63-tokenize-card-checks).
 * @throws ApiError 400 `Invalid Card Number` (the provider's body) for a card
 *   number that fails the Luhn check, unless it is one of the sandbox's test
 *   cards (TEST_CARDS_FAILING_LUHN); otherwise as authorisePayment
 */
export function tokenizeCard(facts: CardRequest, selection: Selection, env: OperationEnv): Answer {
  const number = facts.cardToken === undefined ? facts.newPayment.cardNumber : undefined;
  if (number !== undefined && !passesLuhnCheck(number) && !TEST_CARDS_FAILING_LUHN.has(number)) {
    const error = providerError(400, 'Invalid Card Number', 'invalid-card-number');
    // Masked as the journal masks a card number (its BIN and last four), in the ASCII a header carries.
    error.headers[REASON_HEADER] = `cardNumber ${number.slice(0, 6)}${'*'.repeat(Math.max(number.length - 10, 0))}${number.slice(-4)} fails the Luhn check (its last digit is not the check digit of the others)`;
    throw error;
  }
  return withStatus(answerCreating(facts, selection, cardPayment(facts, env, false), withCard), CARD_ANSWER_STATUS.tokenizeCard);
}

/**
 * POST /payments/create-token, the documentation's tokenisation (its "Card
 * tokenisation" page; docs/decisions.md#d58-token-flow): a card payment that waits for its
 * customer on the card authentication page (`S20`, `redirectUrl`), as a card
 * initiate does; once it is paid, its `authorizationCode` (on the status
 * query) charges the card again through POST /payments/charge-token.
 * @throws ApiError as authorisePayment
 */
export function createCardToken(facts: CardRequest, selection: Selection, env: OperationEnv): Answer {
  const record = cardPayment(facts, env, false);
  record.authorizationCode = authorizationCodeOf(record.linkingReference);
  return answerCreating(facts, selection, record, (payment) => ({
    paymentReference: payment.paymentReference,
    linkingReference: payment.linkingReference,
    redirectUrl: env.links.authenticate(payment.linkingReference),
  }));
}

/**
 * POST /payments/charge-token: charges the card of an authorization code of
 * the merchant (a paid payment of POST /payments/create-token) at once:
 * SUCCESSFUL (`00` APPROVED) or FAILED, as the card's test values say.
 * @throws ApiError 400 `Invalid/Missing parameters = authorizationCode` (the
 *   provider's body) for a code that is none of the merchant's paid ones; as
 *   authorisePayment for a reused reference
 */
export function chargeToken(facts: CardRequest, selection: Selection, env: OperationEnv): Answer {
  const record = cardPayment(facts, env, false);
  return answerCreating(facts, selection, record, (payment) => ({ paymentReference: payment.paymentReference, linkingReference: payment.linkingReference }));
}

/**
 * POST /payments/capture: captures `amount` of an AUTHORIZED or
 * PARTIALLY_CAPTURED pre-authorisation; it is CAPTURED once all it
 * authorised is. A capture beyond what is left is refused (S12 Transaction
 * Failed) and changes nothing, whatever rule was chosen.
 * @throws ApiError 400 No authorised transaction found for this reference
 *   (the provider's body) for an unknown reference or a payment that is no
 *   pre-authorisation open to capture; 400 for a currency other than the payment's
 */
export function capturePayment(facts: RequestFacts & AmountFacts, selection: Selection, env: OperationEnv): Answer {
  const payment = facts.payment;
  const event: PaymentEvent = { type: 'capture', amountMinor: facts.amountMinor ?? 0 };
  if (!payment) throw noAuthorisedTransaction();
  const rule = selection.rule;
  const capture = transition(payment, event, outcomeOf(rule, env.now()));
  if (capture.refused === 'not-authorised') throw noAuthorisedTransaction(refusalReason('not-authorised', payment, event, 'captured'));
  if (facts.currency !== undefined && facts.currency !== payment.currency) {
    throw providerError(400, 'Invalid/Missing parameters = currency', 'invalid-parameters');
  }
  if (capture.refused) return refused('capture-exceeds-amount', refusalReason(capture.refused, payment, event, 'captured'));
  // A rule without a state (a forced decline) captures nothing.
  const stored = rule.then.state ? capture.payment : payment;
  return answerWith(
    rule,
    () => ({ paymentReference: stored.paymentReference, status: stored.status, card: stored.card }),
    'payments',
    rule.then.state ? [paymentWrite(capture.payment, payment)] : [],
  );
}

// The payment a card operation would create, from the card's fields or its token; a pre-authorisation has captured nothing yet.
function cardPayment(facts: CardRequest, env: OperationEnv, preauthorisation: boolean): Payment {
  const card = tokenCardOf(facts);
  const record = newPayment(facts, facts.newPayment, 'CARD', env.now());
  if (card) record.card = card;
  if (preauthorisation) record.capturedAmount = '0.00';
  // Only authorise3ds and create-token send the customer to the authentication page.
  if (facts.operation !== 'authorisePayment3ds' && facts.operation !== 'createCardToken') record.withoutAuthentication = true;
  if (facts.payment) throw duplicateReference(facts.payment, record);
  return record;
}

// The stored card of the request's cardToken or authorizationCode; undefined when it sends the card's number (newPayment keeps that one).
function tokenCardOf(facts: CardRequest): StoredCard | undefined {
  if (facts.operation === 'chargeToken') {
    if (facts.tokenCard) return facts.tokenCard;
    const error = providerError(400, 'Invalid/Missing parameters = authorizationCode', 'invalid-parameters');
    error.headers[REASON_HEADER] = `authorizationCode ${(facts.authorizationCode ?? '').slice(0, 40)} is no paid card tokenisation of merchant ${facts.publicKey}`;
    throw error;
  }
  if (facts.cardToken !== undefined) {
    if (facts.tokenCard) return facts.tokenCard;
    const error = providerError(400, 'Missing Card details', 'missing-card-details');
    error.headers[REASON_HEADER] = `cardToken ${facts.cardToken.slice(0, 40)} is not a card token of merchant ${facts.publicKey}`;
    throw error;
  }
  if (facts.newPayment.cardNumber === undefined) throw providerError(400, 'Missing Card details', 'missing-card-details');
  if (!facts.expiry) throw providerError(400, 'Incomplete Card details', 'incomplete-card-details');
  return undefined;
}

// The provider's answer to a reference already used (external-api.yml, 400Response1), whatever rule was chosen.
function duplicateReference(stored: Payment, record: Payment): ApiError {
  const error = providerError(400, 'Duplicate transaction reference', 'duplicate-reference');
  error.headers[REASON_HEADER] = refusalReason('reference-used', stored, { type: 'create', record, status: record.status }, 'created');
  return error;
}

const withStatus = (answer: Answer, status: number): Answer => ({ ...answer, status });

/**
 * The sandbox's test card numbers that fail the Luhn check (README, "Test
 * values"): a tokenisation takes them all the same, so that each test card
 * can be tokenized and used by its token (docs/decisions.md#d63-tokenize-card-checks).
 */
export const TEST_CARDS_FAILING_LUHN: ReadonlySet<string> = new Set(['4000000000000091']);

/**
 * Whether a card number's last digit is the Luhn check digit of the others
 * (ISO/IEC 7812-1).
 * @param digits the card number, digits only (the document's pattern); false when empty
 */
export function passesLuhnCheck(digits: string): boolean {
  let sum = 0;
  for (let index = digits.length - 1, double = false; index >= 0; index -= 1, double = !double) {
    const digit = digits.charCodeAt(index) - 48;
    sum += double ? (digit * 2 > 9 ? digit * 2 - 9 : digit * 2) : digit;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/**
 * The authorization code of a card tokenisation (POST /payments/create-token):
 * 20 hex characters, the provider's look, derived from its linkingReference
 * (itself an HMAC with the merchant's secret key), so that no one else can
 * guess it and the same payment has the same code on every run.
 */
export const authorizationCodeOf = (linkingReference: string): string =>
  createHash('sha256').update(`authorization-code:${linkingReference}`).digest('hex').slice(0, 20);

// The payload of an authorisation and a tokenisation (external-api.yml, Authorise201Response, TokenizeCardResponse).
const withCard = (payment: Payment) => ({
  paymentReference: payment.paymentReference,
  linkingReference: payment.linkingReference,
  status: payment.status,
  card: payment.card,
});
