import { badCredentials, inputError, merchantLimitReached, providerError, invalidToken, headerTokenMissing, wrongEnvironment } from '../errors.js';
import type { MerchantRecord, Store } from '../store/store.js';
import type { Selection } from '../scenarios/selector.js';
import { answerWith, type Answer, type OperationEnv } from './answer.js';
import { withExchange } from '../model/go-live.js';
import type { RequestFacts } from './request.js';
import {
  isLiveKey, isTestPublicKey, isTestSecretKey, issueToken, parseExchangeKey, tokenBelongsTo, tokenPublicKey,
  type KeyPair,
} from './merchants.js';
import type { Merchant } from '../model/records.js';

/**
 * Who is calling (spec, Authentication): the key exchange, and the bearer or
 * Basic credentials of every other operation. Test key pairs are accepted;
 * live ones are refused. A new pair is not stored here: its merchant is
 * stored with the answer of the request it authenticated
 * (docs/decisions.md#d02-merchants-on-first-use), so a refused request creates no merchant. A
 * merchant is bound to the secret key it first brought; only a reset releases it, and then only the
 * key exchange binds it again (docs/decisions.md#d27-reset-releases-keys).
 */

/**
 * POST /encrypt/keys: the merchant of a `<secret>.<public>` key: the stored
 * one, or a new record to store with the answer when the pair was never seen
 * or the merchant was released by a reset (bound again, to the secret key
 * brought, whichever it is).
 * @throws ApiError 403 Confirm Merchant Environment for a live key, 400 INPUT
 *   for a value that is not a test key pair, 401 when the public key is bound
 *   to another secret key, 503 Merchant limit reached for a new merchant when
 *   the store keeps as many as it takes.
 */
export function exchangeKey(store: Store, key: string, now: string): Merchant {
  const pair = parseExchangeKey(key);
  if ((pair && (isLiveKey(pair.publicKey) || isLiveKey(pair.secretKey))) || isLiveKey(key)) throw wrongEnvironment();
  if (!pair || !isTestPublicKey(pair.publicKey) || !isTestSecretKey(pair.secretKey)) {
    throw inputError('key must be <secret key>.<public key> of a test key pair (SBTESTSECK_..., SBTESTPUBK_...)');
  }
  const known = store.merchant(pair.publicKey);
  if (known?.released) {
    // The same secret key keeps its first-seen time; another one is a new pair.
    // What the go-live report kept since the reset goes on with the merchant.
    return { ...pair, createdAt: known.secretKey === pair.secretKey ? known.createdAt : now, ...(known.goLive ? { goLive: known.goLive } : {}) };
  }
  return merchantOfPair(store, pair, now);
}

/**
 * POST /encrypt/keys as an operation: the token of the request's merchant
 * under data.EncryptedSecKey (or the spelling the selected rule gives, spec endpoint 1).
 */
export function exchangeKeys(facts: RequestFacts, selection: Selection, env: OperationEnv): Answer {
  // Each exchange is counted with the merchant, for the go-live report's token-reused (docs/decisions.md#d87-go-live-report).
  const merchant: MerchantRecord = facts.merchant;
  const counted = { ...merchant, goLive: withExchange(merchant.goLive, merchant.createdAt, env.now()) };
  return answerWith(selection.rule, () => ({ encryptedKey: issueToken(facts.merchant) }), 'EncryptedSecKey', [{ kind: 'merchant', merchant: counted }]);
}

/**
 * The merchant an Authorization header acts for.
 * @param allowBasic true for refund and cancel, which take `Basic base64(<public>:<secret>)`
 *   as well as a bearer token (spec, Authentication rule 2).
 * @throws ApiError 403 Header Token Missing when there is no header, 403
 *   Confirm Merchant Environment for live credentials, 403 Bad credentials
 *   (the provider's body) for Basic credentials that name no test key pair or
 *   the wrong secret key (a released merchant's too: only the key exchange
 *   binds it again), 401 Invalid Authentication Token for anything else
 *   that does not name a known merchant, 503 Merchant limit reached for Basic
 *   credentials of a new pair when the store keeps as many merchants as it takes.
 */
export function authenticateMerchant(store: Store, header: string | undefined, allowBasic: boolean, now: string): Merchant {
  if (header === undefined || header.trim() === '') throw headerTokenMissing();
  const [scheme = '', credentials = ''] = header.trim().split(/\s+/, 2);
  if (scheme.toLowerCase() === 'bearer') {
    const publicKey = tokenPublicKey(credentials);
    if (publicKey !== undefined && isLiveKey(publicKey)) throw wrongEnvironment();
    const merchant = merchantOfToken(store, credentials);
    if (!merchant) throw invalidToken();
    return merchant;
  }
  if (scheme.toLowerCase() === 'basic' && allowBasic) {
    const decoded = Buffer.from(credentials, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const pair = { publicKey: decoded.slice(0, colon), secretKey: decoded.slice(colon + 1) };
    if (isLiveKey(pair.publicKey) || isLiveKey(pair.secretKey)) throw wrongEnvironment();
    if (colon < 0 || !isTestSecretKey(pair.secretKey)) throw badCredentials(false);
    if (!isTestPublicKey(pair.publicKey)) throw badCredentials(true);
    const known = store.merchant(pair.publicKey);
    if (known && known.secretKey !== pair.secretKey) throw badCredentials(false);
    return merchantOfPair(store, pair, now);
  }
  throw invalidToken();
}

/** The known merchant a bearer token was issued for, or undefined when it names none (spec, Authentication rule 4). */
export function merchantOfToken(store: Store, token: string): Merchant | undefined {
  const publicKey = tokenPublicKey(token);
  const merchant = publicKey === undefined ? undefined : store.merchant(publicKey);
  // A token can claim any text as its public key: only a merchant record of that very key counts.
  return merchant !== undefined && merchant.publicKey === publicKey && tokenBelongsTo(token, merchant) ? merchant : undefined;
}

/**
 * Refuses a request whose body or path names a merchant other than the
 * authenticated one, or a live public key (403 Confirm Merchant Environment).
 * @param providerBody true for refund and cancel: 403 Bad credentials = invalid
 *   public key, the provider's answer; otherwise 401 Invalid Authentication
 *   Token, as a token that is not valid for that merchant
 *   (docs/decisions.md#d04-token-acts-for-its-merchant, docs/decisions.md#d31-refund-cancel-errors).
 */
export function checkPublicKey(merchant: Merchant, publicKey: unknown, providerBody = false): void {
  if (typeof publicKey !== 'string') return;
  if (isLiveKey(publicKey)) throw wrongEnvironment();
  if (publicKey !== merchant.publicKey) throw providerBody ? badCredentials(true) : invalidToken();
}

/**
 * The merchant of a request that carries no credentials, by its publicKey:
 * the body's for POST /encrypt/hashs, the path's for GET
 * /banks/merchant/{publicKey}, which the provider gives no security
 * (external-api.yml, GenerateHash, GetBanks; docs/decisions.md#d30-hash-without-token,
 * docs/decisions.md#d65-banks-without-token).
 * @throws ApiError 403 Confirm Merchant Environment for a live key; 400 Bad
 *   credentials = invalid public key (the provider's body) for a key the
 *   sandbox has not seen: a merchant is bound to its secret key, which a
 *   request without credentials does not bring (the hash needs it).
 */
export function merchantOfPublicKey(store: Store, publicKey: unknown): Merchant {
  if (typeof publicKey === 'string' && isLiveKey(publicKey)) throw wrongEnvironment();
  const merchant = typeof publicKey === 'string' ? store.merchant(publicKey) : undefined;
  if (!merchant) throw providerError(400, 'Bad credentials = invalid public key', 'bad-credentials');
  return merchant;
}

// The stored merchant of a pair, or a new one that is not stored yet, if the store has room for it.
function merchantOfPair(store: Store, pair: KeyPair, now: string): Merchant {
  const known = store.merchant(pair.publicKey);
  if (known) {
    if (known.secretKey !== pair.secretKey) throw invalidToken();
    return known;
  }
  // Refused before anything is stored: the merchants the sandbox has keep working (README, "Security").
  if (!store.hasRoomForMerchant()) throw merchantLimitReached(store.maxMerchants);
  return { ...pair, createdAt: now };
}
