import { keysNotFound, paymentTypeMissing } from '../errors.js';
import type { Merchant } from '../model/records.js';
import type { OperationId } from '../model/operations.js';
import type { Store } from '../store/store.js';
import { exchangeKeys } from './authentication.js';
import { batchSearchFacts, bulkChargeFacts, chargeTokenBulk, searchTokenBulk } from './bulk-charges.js';
import { authorisePayment, authorisePayment3ds, capturePayment, cardFacts, chargeCard, chargeToken, createCardToken, tokenizeCard } from './card-operations.js';
import { checkoutLinkFacts, computeHash, createCheckoutLink } from './checkout.js';
import { listBanks, listNetworks } from './lookups.js';
import { noFacts, operation, type ErrorFamily, type PreparedOperation, type RegisteredOperation, type RequestRules } from './operation.js';
import {
  createOrder, createOrderAfterPayment, createOrderFacts, getOrderByOrderId, getOrderByReference, listOrders, orderChangeFacts, storedOrderFacts, storedOrdersFacts, updateOrders,
} from './orders.js';
import { cardOtpBody, completePayment } from './completions.js';
import { amountFacts, cancelPayment, initiateFacts, initiatePayment, refundPayment } from './payments.js';
import { createRefund } from './refunds.js';
import { billingIdOf, type RequestParts } from './request.js';
import { queryPayment, queryPaymentV3, verifyFacts } from './status-query.js';
import {
  chargeSubscription, chargeSubscriptionFacts, createSubscription, createSubscriptionFacts, getSubscription, listSubscriptions, subscriptionListFacts,
  SUBSCRIPTION_NULL_MESSAGES, updateSubscription, updateSubscriptionFacts,
} from './subscriptions.js';

/**
 * Every operation of the Payments API, in one place: its route in
 * openapi/payments-api.yaml, the facts it derives from its request, what it
 * runs, and the family of its refusals; for the few that need them, where its
 * merchant comes from and how some refusals are worded (RequestRules), which
 * the pipeline (src/api/) reads without naming any operation. The compiler checks the table
 * against OperationId (no operation missing, none unknown) and each entry's
 * facts against its run; a test checks the routes against the document
 * (docs/design.md, "Adding an operation").
 */
export const OPERATIONS = {
  // The spec's eleven (spec, endpoints 1-11). The key exchange authenticates by its body's key, and keeps the
  // spec's 404 `{error}` for anything but its POST (docs/decisions.md#d23-unknown-paths); an initiate without
  // paymentType is refused for that first (spec, Errors).
  exchangeKeys: operation('POST /encrypt/keys', 'spec', noFacts, exchangeKeys, { credentials: 'body-key', pathNotFound: keysNotFound }),
  computeHash: operation('POST /encrypt/hashs', 'spec', noFacts, computeHash),
  initiatePayment: operation('POST /payments/initiates', 'spec', initiateFacts, initiatePayment, {
    bodyRefusals: { refusedFirst: { field: 'paymentType', refusal: paymentTypeMissing } },
  }),
  createCheckoutLink: operation('POST /payments', 'spec', checkoutLinkFacts, createCheckoutLink),
  createOrder: operation('POST /payments/order', 'spec', createOrderFacts, createOrder),
  updateOrders: operation('PUT /products/orders', 'spec', orderChangeFacts, updateOrders),
  listOrders: operation('GET /products/orders/publicKey/{publicKey}', 'spec', storedOrdersFacts, listOrders),
  validatePayment: operation('POST /payments/validate', 'spec', noFacts, completePayment),
  completeMomoPayment: operation('POST /payments/momo/otp', 'spec', noFacts, completePayment),
  refundPayment: operation('POST /payments/refund', 'provider', amountFacts, refundPayment),
  cancelPayment: operation('POST /payments/cancel', 'provider', noFacts, cancelPayment),
  queryPayment: operation('GET /payments/query/{paymentReference}', 'spec', verifyFacts, queryPayment),
  // The card operations (README, "Card pre-authorisation"); POST /payments/otp takes two shapes of body
  // (docs/decisions.md#d51-card-otp).
  authorisePayment: operation('POST /payments/authorise', 'provider', cardFacts, authorisePayment),
  authorisePayment3ds: operation('POST /payments/authorise3ds', 'spec', cardFacts, authorisePayment3ds),
  capturePayment: operation('POST /payments/capture', 'provider', amountFacts, capturePayment),
  chargeCard: operation('POST /payments/charge', 'provider', cardFacts, chargeCard),
  tokenizeCard: operation('POST /payments/tokenize', 'provider', cardFacts, tokenizeCard),
  completeCardOtp: operation('POST /payments/otp', 'spec', noFacts, completePayment, { body: cardOtpBody }),
  // Lookups (docs/decisions.md#d52-bank-lookups).
  listBanks: operation('GET /banks/merchant/{publicKey}', 'spec', noFacts, listBanks),
  listNetworks: operation('GET /networks', 'spec', noFacts, listNetworks),
  // Orders beyond the spec's three (docs/decisions.md#d54-orders-after-payment).
  createOrderAfterPayment: operation('POST /products/orders', 'spec', orderChangeFacts, createOrderAfterPayment),
  getOrderByReference: operation('GET /products/orders/publicKey/{publicKey}/paymentReference/{paymentReference}', 'spec', storedOrderFacts, getOrderByReference),
  getOrderByOrderId: operation('GET /products/orders/publicKey/{publicKey}/orderId/{orderId}', 'spec', storedOrdersFacts, getOrderByOrderId),
  // The refunds API and the v3 status query (docs/decisions.md#d55-refunds-api, docs/decisions.md#d56-status-query-v3).
  createRefund: operation('POST /payments/refunds', 'spec', amountFacts, createRefund),
  queryPaymentV3: operation('GET /v3/payments/query/{paymentReference}', 'spec', verifyFacts, queryPaymentV3),
  // The documentation's token flow (docs/decisions.md#d58-token-flow).
  createCardToken: operation('POST /payments/create-token', 'spec', cardFacts, createCardToken),
  chargeToken: operation('POST /payments/charge-token', 'provider', cardFacts, chargeToken),
  // Subscriptions (README, "Subscriptions"): a subscription's billingId is its first payment's paymentReference;
  // its missing fields are refused in the provider's words (docs/decisions.md#d64-subscription-null-messages).
  createSubscription: operation('POST /recurring/subscribes', 'spec', createSubscriptionFacts, createSubscription, {
    bodyRefusals: { nullMessages: SUBSCRIPTION_NULL_MESSAGES },
  }),
  getSubscription: operation('GET /recurring/billingId/{billingId}', 'spec', noFacts, getSubscription),
  listSubscriptions: operation('GET /recurring/publicKey/{publicKey}', 'spec', subscriptionListFacts, listSubscriptions),
  listCustomerSubscriptions: operation('GET /recurring/{publicKey}/customerId/{customerId}', 'spec', subscriptionListFacts, listSubscriptions),
  listKeyCustomerSubscriptions: operation('GET /recurring/publicKey/{publicKey}/customerId/{customerId}', 'spec', subscriptionListFacts, listSubscriptions),
  listOwnCustomerSubscriptions: operation('GET /recurring/customerId/{customerId}', 'spec', subscriptionListFacts, listSubscriptions),
  updateSubscription: operation('PUT /recurring/updates', 'spec', updateSubscriptionFacts, updateSubscription, {
    reference: (body, params) => params.paymentReference ?? billingIdOf(body, params),
  }),
  chargeSubscription: operation('POST /recurring/charge', 'provider', chargeSubscriptionFacts, chargeSubscription),
  // The documentation's bulk token charge and its search (docs/decisions.md#d60-bulk-token-charge).
  chargeTokenBulk: operation('POST /payments/bulk-tokenize-charge', 'provider', bulkChargeFacts, chargeTokenBulk),
  searchTokenBulk: operation('GET /payments/bulk-tokenize-charge-search', 'spec', batchSearchFacts, searchTokenBulk),
} satisfies Record<OperationId, RegisteredOperation>;

/** The facts an operation's run reads: the shared ones and its own. */
export type FactsFor<K extends OperationId> = Parameters<(typeof OPERATIONS)[K]['run']>[0];

/** The family of an operation's refusals of credentials and parameters. */
export const errorFamilyOf = (id: OperationId): ErrorFamily => OPERATIONS[id].errors;

/** What an operation's entry says of its request beyond its route: its credentials, its path's 404, its body's refusals (RequestRules). */
export const requestRulesOf = (id: OperationId): RequestRules => OPERATIONS[id];

/**
 * Prepares one request's operation: its facts, computed once, and its run
 * bound to them (src/domain/operation.ts).
 * @param merchant the merchant it acts for, stored or new (`newMerchant`)
 * @param store    read only: the payment, order or orders the request names
 */
export function prepareOperation(parts: RequestParts, merchant: Merchant, newMerchant: boolean, store: Store): PreparedOperation {
  return OPERATIONS[parts.operation].prepare(parts, merchant, newMerchant, store);
}
