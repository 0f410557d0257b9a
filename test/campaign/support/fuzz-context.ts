import { API_BASE_PATH, type DocumentedOperation } from './payments-document.js';
import { toJsonText } from './json-text.js';
import type { RawRequest } from './raw-http.js';

/**
 * What the generated requests are made of: the merchants they act as, the
 * references they share, the parts of a request before it is written, and
 * the names every JavaScript object inherits.
 */

/** A merchant the campaign acts as. */
export interface FuzzMerchant {
  publicKey: string;
  secretKey: string;
  /** its bearer token */
  token: string;
}

/** What requests are built around: who sends them and which references they reuse. */
export interface FuzzContext {
  merchant: FuzzMerchant;
  /** another known merchant, whose public key a request may carry */
  stranger: FuzzMerchant;
  /** paymentReferences requests draw from, so that they meet each other's payments */
  references: string[];
}

/** One generated request, with what it is meant to be. */
export interface FuzzCase {
  kind: 'valid' | 'almost valid' | 'garbage';
  /** the operation it was built from, when it was */
  operationId?: string;
  /** what was done to it, in a few words: the key failures are grouped by */
  what: string;
  request: RawRequest;
}

/** The parts of a request to one operation, before it is written. */
export interface RequestParts {
  /** the path below `/api/v2`, parameters filled in */
  path: string;
  body?: Record<string, unknown>;
  /** the whole Authorization value, or none */
  authorization?: string;
}

/** A change made to the parts of a valid request, and what it is in a few words. */
export interface Mutation {
  what: string;
  change: (parts: RequestParts) => RequestParts;
}

/** Names that an object inherits: as keys and as values they must be plain strings to the sandbox. */
export const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'] as const;

/**
 * Where a request carries the linkingReference of the payment with this
 * paymentReference. The sandbox hands linkingReferences out in its answers;
 * the campaign learns them there and puts them in when it sends the request
 * (`withLinks`), so that a request built before the payment existed still
 * meets it.
 */
export const linkingPlaceholder = (paymentReference: string): string => `@@link:${paymentReference}@@`;

/** An unknown, well-formed linkingReference, for a payment the sandbox never answered about. */
export const UNKNOWN_LINKING_REFERENCE = 'SBLNK_00000000000000000000';

/** `request` with every linkingPlaceholder replaced by the linkingReference learnt for its paymentReference. */
export function withLinks(request: RawRequest, learnt: ReadonlyMap<string, string>): RawRequest {
  if (typeof request.body !== 'string' || !request.body.includes('@@link:')) return request;
  const body = request.body.replace(/@@link:(.*?)@@/g, (_, reference: string) => learnt.get(reference) ?? UNKNOWN_LINKING_REFERENCE);
  return { ...request, body };
}

/** `Authorization` of a merchant's token. */
export const bearer = (merchant: FuzzMerchant): string => `Bearer ${merchant.token}`;

/** `Authorization` of a merchant's key pair as Basic credentials. */
export const basic = (merchant: Pick<FuzzMerchant, 'publicKey' | 'secretKey'>): string =>
  `Basic ${Buffer.from(`${merchant.publicKey}:${merchant.secretKey}`).toString('base64')}`;

/** Writes the parts as the operation's method, a JSON body and its headers, `extra` headers last. */
export function written(operation: DocumentedOperation, parts: RequestParts, extra: Array<[string, string]> = []): RawRequest {
  const headers: Array<[string, string]> = [];
  if (parts.body !== undefined) headers.push(['Content-Type', 'application/json']);
  if (parts.authorization !== undefined) headers.push(['Authorization', parts.authorization]);
  return {
    method: operation.method,
    target: `${API_BASE_PATH}${parts.path}`,
    headers: [...headers, ...extra],
    body: parts.body === undefined ? undefined : toJsonText(parts.body),
  };
}
