/**
 * The operation vocabulary of the Payments API, shared by every floor of the
 * sandbox (scenarios, domain, HTTP, control, store): the operationIds of
 * openapi/payments-api.yaml and the initiate variants.
 */

/** The operations of the Payments API, by the operationIds of openapi/payments-api.yaml. */
export type OperationId =
  | 'exchangeKeys' | 'computeHash' | 'initiatePayment' | 'createCheckoutLink' | 'createOrder'
  | 'updateOrders' | 'listOrders' | 'validatePayment' | 'completeMomoPayment' | 'refundPayment' | 'cancelPayment' | 'queryPayment';

/** The initiate variants (spec, Initiate-payment request): the variant a scenario can match. */
export type Variant = 'CARD' | 'ACCOUNT' | 'MOMO' | 'TRANSFER';
