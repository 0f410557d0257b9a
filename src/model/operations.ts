/**
 * The operation vocabulary of the Payments API, shared by every floor of the
 * sandbox (scenarios, domain, HTTP, control, store): the operationIds of
 * openapi/payments-api.yaml and the initiate variants.
 */

/** The operations of the Payments API, by the operationIds of openapi/payments-api.yaml. */
export type OperationId =
  | 'exchangeKeys' | 'computeHash' | 'initiatePayment' | 'createCheckoutLink' | 'createOrder'
  | 'updateOrders' | 'listOrders' | 'validatePayment' | 'completeMomoPayment' | 'refundPayment' | 'cancelPayment' | 'queryPayment'
  | CardOperationId | LookupOperationId | OrderOperationId | RefundsOperationId | QueryV3OperationId | SubscriptionOperationId | BulkOperationId;

/** The card operations beyond the spec's eleven, as the provider describes them (external-api.yml; README, "Card pre-authorisation"). */
export type CardOperationId =
  | 'authorisePayment' | 'authorisePayment3ds' | 'capturePayment' | 'chargeCard' | 'tokenizeCard' | 'completeCardOtp'
  | 'createCardToken' | 'chargeToken';

/** The lookups the provider's SDKs call beside payments (README decision 52). */
export type LookupOperationId = 'listBanks' | 'listNetworks';

/** The order operations beyond the spec's three: an order after payment and the order look-ups (README decision 54). */
export type OrderOperationId = 'createOrderAfterPayment' | 'getOrderByReference' | 'getOrderByOrderId';

/** The refunds API of the provider's current documentation (README decision 55). */
export type RefundsOperationId = 'createRefund';

/** The status query under `/api/v3`, the path of the provider's current documentation (README decision 56). */
export type QueryV3OperationId = 'queryPaymentV3';

/**
 * The subscription operations (the provider's subscription page,
 * external-api.yml InitiateSubscription and GetaSubscription; README,
 * "Subscriptions"); the customer's subscriptions are listed under the three
 * path shapes the SDKs use: the documentation's and the Python and Java
 * SDKs' (`listCustomerSubscriptions`), the Node SDK's
 * (`listKeyCustomerSubscriptions`) and the PHP SDK's (`listOwnCustomerSubscriptions`).
 */
export type SubscriptionOperationId =
  | 'createSubscription' | 'getSubscription' | 'listSubscriptions' | 'listCustomerSubscriptions' | 'listKeyCustomerSubscriptions'
  | 'listOwnCustomerSubscriptions' | 'updateSubscription' | 'chargeSubscription';

/** The documentation's bulk token charge and its search (README decision 60). */
export type BulkOperationId = 'chargeTokenBulk' | 'searchTokenBulk';

/**
 * Operations whose refusals are the provider's own body,
 * `{"status":"ERROR","data":{"code":"S12","message":...}}`: credential and
 * parameter errors of refund and cancel (README decisions), and of the card
 * operations that share their family (external-api.yml, 400Response1-11).
 */
export const PROVIDER_ERROR_OPERATIONS: ReadonlySet<OperationId> = new Set<OperationId>([
  'refundPayment', 'cancelPayment', 'authorisePayment', 'capturePayment', 'chargeCard', 'tokenizeCard', 'chargeToken', 'chargeSubscription', 'chargeTokenBulk',
]);

/**
 * What happens to a payment outside the Payments API, decided by the
 * catalogue like an operation (scenarios/payments.yaml): the customer's
 * steps on the sandbox's pages, and a settle over the control API.
 */
export type OutsideEvent =
  | 'customerPaysByAccount' | 'customerPaysByTransfer' | 'customerSendsTransfer' | 'customerDeclinesAuthentication' | 'customerCancelsCheckout'
  | 'controlSettlesPayment' | 'paymentSettlesLater' | 'pendingPaymentExpires' | 'subscriptionChargeDue';

/** Every OutsideEvent. */
export const OUTSIDE_EVENTS: readonly OutsideEvent[] = [
  'customerPaysByAccount', 'customerPaysByTransfer', 'customerSendsTransfer', 'customerDeclinesAuthentication', 'customerCancelsCheckout', 'controlSettlesPayment',
  'paymentSettlesLater', 'pendingPaymentExpires', 'subscriptionChargeDue',
];

/** What a scenario can answer: an operation of the Payments API, or an event outside it. */
export type Step = OperationId | OutsideEvent;

/** The initiate variants (spec, Initiate-payment request; USSD and TRANSFER as `paymentType`: README decisions): the variant a scenario can match. */
export type Variant = 'CARD' | 'ACCOUNT' | 'MOMO' | 'TRANSFER' | 'USSD';
