import { inputError, invalidToken, headerTokenMissing, wrongEnvironment } from '../errors.js';
import type { Store } from '../store/store.js';
import type { Scenario } from '../scenarios/catalogue.js';
import { answerWith, type Answer } from './answer.js';
import {
  isLiveKey, isTestPublicKey, isTestSecretKey, issueToken, parseExchangeKey, tokenBelongsTo, tokenPublicKey,
  type KeyPair, type Merchant,
} from './merchants.js';

/**
 * Who is calling (spec, Authentication): the key exchange, and the bearer or
 * Basic credentials of every other operation. Test key pairs are accepted and
 * remembered on first use; live ones are refused.
 */

/**
 * POST /encrypt/keys: the merchant of a `<secret>.<public>` key, remembered
 * if new.
 * @throws ApiError 403 Confirm Merchant Environment for a live key, 400 INPUT
 *   for a value that is not a test key pair, 401 when the public key is known
 *   with another secret key.
 */
export function exchangeKey(store: Store, key: string, now: string): Merchant {
  const pair = parseExchangeKey(key);
  if ((pair && (isLiveKey(pair.publicKey) || isLiveKey(pair.secretKey))) || isLiveKey(key)) throw wrongEnvironment();
  if (!pair || !isTestPublicKey(pair.publicKey) || !isTestSecretKey(pair.secretKey)) {
    throw inputError('key must be <secret key>.<public key> of a test key pair (SBTESTSECK_..., SBTESTPUBK_...)');
  }
  return remember(store, pair, now);
}

/**
 * POST /encrypt/keys as a whole: the merchant of the key, and the token under
 * data.EncryptedSecKey (or the spelling the deciding rule gives, spec endpoint 1).
 */
export function exchangeKeys(store: Store, key: string, now: string, decide: () => Scenario): Answer {
  const merchant = exchangeKey(store, key, now);
  return answerWith(decide(), () => ({ encryptedKey: issueToken(merchant) }), 'EncryptedSecKey');
}

/**
 * The merchant an Authorization header acts for.
 * @param allowBasic true for refund and cancel, which take `Basic base64(<public>:<secret>)`
 *   as well as a bearer token (spec, Authentication rule 2).
 * @throws ApiError 403 Header Token Missing when there is no header, 403
 *   Confirm Merchant Environment for live credentials, 401 Invalid
 *   Authentication Token for anything else that does not name a known merchant.
 */
export function authenticate(store: Store, header: string | undefined, allowBasic: boolean, now: string): Merchant {
  if (header === undefined || header.trim() === '') throw headerTokenMissing();
  const [scheme = '', credentials = ''] = header.trim().split(/\s+/, 2);
  if (scheme.toLowerCase() === 'bearer') {
    const publicKey = tokenPublicKey(credentials);
    if (publicKey !== undefined && isLiveKey(publicKey)) throw wrongEnvironment();
    const merchant = publicKey === undefined ? undefined : store.merchant(publicKey);
    if (!merchant || !tokenBelongsTo(credentials, merchant)) throw invalidToken();
    return merchant;
  }
  if (scheme.toLowerCase() === 'basic' && allowBasic) {
    const decoded = Buffer.from(credentials, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const pair = { publicKey: decoded.slice(0, colon), secretKey: decoded.slice(colon + 1) };
    if (isLiveKey(pair.publicKey) || isLiveKey(pair.secretKey)) throw wrongEnvironment();
    if (colon < 0 || !isTestPublicKey(pair.publicKey) || !isTestSecretKey(pair.secretKey)) throw invalidToken();
    return remember(store, pair, now);
  }
  throw invalidToken();
}

/**
 * Refuses a request whose body or path names a merchant other than the
 * authenticated one (README decision: 401, as a token that is not valid for
 * that merchant), or a live public key (403 Confirm Merchant Environment).
 */
export function checkPublicKey(merchant: Merchant, publicKey: unknown): void {
  if (typeof publicKey !== 'string') return;
  if (isLiveKey(publicKey)) throw wrongEnvironment();
  if (publicKey !== merchant.publicKey) throw invalidToken();
}

function remember(store: Store, pair: KeyPair, now: string): Merchant {
  const known = store.merchant(pair.publicKey);
  if (known) {
    if (known.secretKey !== pair.secretKey) throw invalidToken();
    return known;
  }
  const merchant: Merchant = { ...pair, createdAt: now };
  store.putMerchant(merchant);
  return merchant;
}
