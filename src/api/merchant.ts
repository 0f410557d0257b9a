import { checkPublicKey, exchangeKey, merchantOfPublicKey } from '../domain/authentication.js';
import type { Body } from '../domain/request.js';
import type { Merchant } from '../model/records.js';
import type { ApiDependencies } from './dependencies.js';
import type { Route } from './routing.js';

/**
 * The merchant a request acts for, once its body is validated
 * (docs/design.md, "One request, end to end", step 8): the credentials',
 * checked against the body's publicKey; for a route whose merchant comes
 * from its body (`credentials: 'body-key'`), the key's, stored or to store
 * (exchangeKey); or, without credentials (the hash endpoint, the bank list),
 * the body's or the path's publicKey's.
 * @param merchant the merchant of the credentials, when they were read (readRequest)
 * @throws ApiError as exchangeKey, merchantOfPublicKey and checkPublicKey refuse (401, 403, 400)
 */
export function merchantOf(deps: Pick<ApiDependencies, 'store' | 'now'>, route: Route, merchant: Merchant | undefined, body: Body, params: Record<string, string>): Merchant {
  if (route.credentials === 'body-key') return exchangeKey(deps.store, String(body.key), deps.now());
  if (merchant === undefined) return merchantOfPublicKey(deps.store, body.publicKey ?? params.publicKey);
  checkPublicKey(merchant, body.publicKey, route.providerErrors);
  return merchant;
}

/**
 * Whether the request's merchant is stored with its answer: a new one
 * (docs/decisions.md#d02-merchants-on-first-use), or, for a route whose
 * merchant comes from its body's key, one that key binds again after a reset
 * released it (docs/decisions.md#d27-reset-releases-keys). Any other
 * request's merchant may have been read before its body, and replaced since.
 * @param stored the merchant's record in the store, undefined for a new one
 */
export function bindsMerchant(route: Route, stored: Merchant | undefined, known: Merchant): boolean {
  return stored === undefined || (route.credentials === 'body-key' && !sameMerchant(stored, known));
}

// Whether the key finds its merchant bound as it would bind it: on a shared store the record read again from
// another replica's change is an equal copy, not the same object.
const sameMerchant = (stored: Merchant, known: Merchant): boolean => stored === known || JSON.stringify(stored) === JSON.stringify(known);
