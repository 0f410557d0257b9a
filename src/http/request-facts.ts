import type { Merchant } from '../model/records.js';
import { variantOf } from '../domain/payments.js';
import { AMOUNT_PATTERN, toMinor } from '../model/money.js';
import type { Payment } from '../model/records.js';
import type { OperationId } from '../model/operations.js';
import type { Target } from '../scenarios/selector.js';
import type { Store } from '../store/store.js';

/**
 * What is known of a Payments API request once it is authenticated and
 * validated, computed once and reused by the selection, the operation and
 * the journal: the operation, the initiate variant, the merchant, the
 * references it names, the stored payment it names, and its amount in minor units.
 */
export interface RequestFacts extends Target {
  merchant: Merchant;
  /** the paymentReference of the body or the path */
  paymentReference?: string;
  /** the linkingReference of a completion */
  linkingReference?: string;
  /** the body's amount in minor units, when it is a decimal amount */
  amountMinor?: number;
}

type Body = Record<string, unknown>;

/**
 * The facts of one request.
 * @param body    the validated (relaxed) body, {} when there is none
 * @param params  the path's parameters
 * @param headers the request headers, lower-case names
 */
export function factsOf(
  operation: OperationId,
  merchant: Merchant,
  body: Body,
  params: Record<string, string>,
  headers: Record<string, string | string[] | undefined>,
  store: Store,
): RequestFacts {
  const paymentReference = typeof body.paymentReference === 'string' ? body.paymentReference : params.paymentReference;
  const linkingReference = typeof body.linkingReference === 'string' ? body.linkingReference : undefined;
  const payment: Payment | undefined =
    linkingReference !== undefined
      ? store.paymentByLinkingReference(merchant.publicKey, linkingReference)
      : paymentReference !== undefined
        ? store.payment(merchant.publicKey, paymentReference)
        : undefined;
  return {
    operation,
    variant: operation === 'initiatePayment' ? variantOf(body) : undefined,
    body,
    headers,
    payment,
    publicKey: merchant.publicKey,
    merchant,
    paymentReference,
    linkingReference,
    amountMinor: typeof body.amount === 'string' && AMOUNT_PATTERN.test(body.amount) ? toMinor(body.amount) : undefined,
  };
}
