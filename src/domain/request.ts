import type { OperationId } from '../model/operations.js';
import type { Merchant } from '../model/records.js';
import type { Facts } from '../scenarios/engine.js';
import type { Store } from '../store/store.js';

/**
 * The facts every Payments API request shares, read once from its validated
 * body, its path and the store, and handed to the selection, the operation
 * and the journal (docs/design.md, "One request, end to end"). What one
 * operation needs beyond them it derives itself, in its family's file, and
 * the registry (src/domain/registry.ts) joins the two.
 */

/** A JSON body as parsed: the validated, relaxed body, or `{}` when there is none. */
export type Body = Record<string, unknown>;

/**
 * Everything known of a request once it is authenticated and validated that
 * does not depend on its operation: the engine's Facts (operation, body,
 * headers, the stored payment) plus the merchant and the references.
 */
export interface RequestFacts extends Facts {
  operation: OperationId;
  merchant: Merchant;
  /** the merchant's public key, whose overrides apply */
  publicKey: string;
  /** true when the merchant is not stored yet (a first key exchange, or Basic credentials of a new pair): stored with the answer */
  newMerchant: boolean;
  /**
   * The body as the client sent it, before numbers were read as strings and
   * nulls left out: what a client hashed (README, "Accepted beyond the spec").
   */
  sent: Body;
  /** the paymentReference of the body or the path (a subscription's billingId) */
  paymentReference?: string;
  /** the linkingReference of a completion */
  linkingReference?: string;
}

/** Where a request's facts come from besides the merchant: what the HTTP layer parsed and validated. */
export interface RequestParts {
  operation: OperationId;
  /** the validated body (relaxed where a leniency applied); {} when there is none; an array for a batch */
  body: Body;
  /** the body as sent; the same object when no leniency applied */
  sent: Body;
  /** the path's parameters */
  params: Record<string, string>;
  /** the request headers, lower-case names */
  headers: Record<string, string | string[] | undefined>;
  /** the query string's parameters, as the exchange read them */
  query?: Record<string, unknown>;
}

/**
 * The shared facts of one request, computed once.
 * @param body      the body the references are read from: `parts.body`, or its flat reading (POST /payments/otp)
 * @param reference the paymentReference the request names: by default the body's, else the path's, else the billingId of either
 * @param merchant  the merchant it acts for, stored or new (`newMerchant`)
 * @param store     read only: the payment the request names
 */
export function sharedFacts(parts: RequestParts, body: Body, reference: string | undefined, merchant: Merchant, newMerchant: boolean, store: Store): RequestFacts {
  const publicKey = merchant.publicKey;
  const linkingReference = typeof body.linkingReference === 'string' ? body.linkingReference : undefined;
  const payment =
    linkingReference !== undefined
      ? store.paymentByLinkingReference(publicKey, linkingReference)
      : reference !== undefined
        ? store.payment(publicKey, reference)
        : undefined;
  return {
    operation: parts.operation,
    body,
    headers: parts.headers,
    payment,
    merchant,
    publicKey,
    newMerchant,
    sent: parts.sent,
    paymentReference: reference,
    linkingReference,
  };
}

/**
 * The paymentReference a request names: the body's, else the path's, else
 * its subscription's billingId (a subscription's billingId is its first
 * payment's paymentReference: external-api.yml, InitiateSubscription).
 */
export function referenceOf(body: Body, params: Record<string, string>): string | undefined {
  if (typeof body.paymentReference === 'string') return body.paymentReference;
  return params.paymentReference ?? billingIdOf(body, params);
}

/** The billingId of a subscription request: the body's, else the path's. */
export const billingIdOf = (body: Body, params: Record<string, string>): string | undefined =>
  typeof body.billingId === 'string' ? body.billingId : params.billingId;

/**
 * A field of a validated body as text: the document has typed it (the
 * validation step read a number sent for a string as that string), so
 * this only names the conversion once.
 */
export const textOf = (body: Body, field: string): string => String(body[field]);

/** A field of a body when it is a string, else undefined. */
export const stringOf = (body: Body, field: string): string | undefined => {
  const value = body[field];
  return typeof value === 'string' ? value : undefined;
};
