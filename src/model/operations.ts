import { CONTROL_OPERATION_IDS, OPERATION_IDS } from './operation-ids.js';

/**
 * The operation vocabulary of the Payments API, shared by every floor of the
 * sandbox (scenarios, domain, HTTP, control, store): the operationIds of
 * openapi/payments-api.yaml and the initiate variants.
 */

/**
 * The operations of the Payments API: the operationIds of
 * openapi/payments-api.yaml, read from the document when the project is
 * built (scripts/operation-ids.mjs), so that the document is the one list of
 * them. The operation registry (src/domain/registry.ts) is checked against it
 * by the compiler, and the catalogue schema's and the control API's lists of
 * steps are filled from it when they are read (STEPS).
 */
export { OPERATION_IDS };

/** An operation of the Payments API: one of OPERATION_IDS. */
export type OperationId = (typeof OPERATION_IDS)[number];

/**
 * The operations of the control API: the operationIds of
 * openapi/control-api.yaml, read from the document when the project is built,
 * as OPERATION_IDS are. The control registry (src/control/registry.ts) is
 * checked against it by the compiler.
 */
export { CONTROL_OPERATION_IDS };

/** An operation of the control API: one of CONTROL_OPERATION_IDS. */
export type ControlOperationId = (typeof CONTROL_OPERATION_IDS)[number];

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

/**
 * Every Step, operations first: the values of a rule's `operation` in the
 * catalogue schema and of `PaymentsOperationId` in the control API's
 * document, filled in when either is read (fillSteps).
 */
export const STEPS: readonly Step[] = [...OPERATION_IDS, ...OUTSIDE_EVENTS];

/** The initiate variants (spec, Initiate-payment request; USSD and TRANSFER as `paymentType`: docs/decisions.md#d08-transfer-variant, docs/decisions.md#d61-ussd): the variant a scenario can match. */
export type Variant = 'CARD' | 'ACCOUNT' | 'MOMO' | 'TRANSFER' | 'USSD';

/**
 * The key by which a schema of the catalogue schema or of the control API's
 * document asks for STEPS as its `enum`: the files name no operation
 * themselves, so that the registry's list is the only one.
 */
export const STEPS_MARKER = 'x-enum-of';

/**
 * Gives every schema in a parsed JSON or YAML value that carries
 * `x-enum-of: steps` the enum STEPS, in place.
 * @param value plain data as JSON.parse or a YAML parser's toJS gives it
 */
export function fillSteps(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) fillSteps(item);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const schema = value as Record<string, unknown>;
  if (schema[STEPS_MARKER] === 'steps') schema.enum = [...STEPS];
  for (const child of Object.values(schema)) fillSteps(child);
}
