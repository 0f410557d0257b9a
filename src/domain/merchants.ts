import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Merchants and their credentials (spec, Authentication). The key pair
 * decides the mode: the sandbox is test mode, so it accepts test keys and
 * refuses live ones with "Confirm Merchant Environment".
 */

/** Prefixes of test and live keys (docs/decisions.md#d01-test-and-live-keys). */
export const KEY_PREFIX = {
  testPublic: 'SBTESTPUBK_',
  testSecret: 'SBTESTSECK_',
  livePublic: 'SBPUBK_',
  liveSecret: 'SBSECK_',
} as const;

const KEY_BODY = /^[A-Za-z0-9]{8,64}$/;


/** True when `key` is a live public or secret key (wrong environment for a sandbox). */
export const isLiveKey = (key: string): boolean =>
  key.startsWith(KEY_PREFIX.livePublic) || key.startsWith(KEY_PREFIX.liveSecret);

/** True when `key` is a well-formed test public key: the prefix, then 8 to 64 letters or digits. */
export const isTestPublicKey = (key: string): boolean =>
  key.startsWith(KEY_PREFIX.testPublic) && KEY_BODY.test(key.slice(KEY_PREFIX.testPublic.length));

/** True when `key` is a well-formed test secret key. */
export const isTestSecretKey = (key: string): boolean =>
  key.startsWith(KEY_PREFIX.testSecret) && KEY_BODY.test(key.slice(KEY_PREFIX.testSecret.length));

/** A key pair as the key exchange and Basic credentials carry it. */
export interface KeyPair {
  publicKey: string;
  secretKey: string;
}

/**
 * Reads the key exchange's `key`: the secret key, a full stop, the public key
 * (spec, endpoint 1). Returns undefined when the value is not of that form.
 */
export function parseExchangeKey(key: string): KeyPair | undefined {
  const dot = key.indexOf('.');
  if (dot < 0) return undefined;
  return { secretKey: key.slice(0, dot), publicKey: key.slice(dot + 1) };
}

/** A fresh random test key pair, for the start-up banner. */
export function newTestKeyPair(random: () => string): KeyPair {
  return {
    publicKey: KEY_PREFIX.testPublic + random(),
    secretKey: KEY_PREFIX.testSecret + random(),
  };
}

const TOKEN_PREFIX = 'SBTOKEN_';

/**
 * The bearer token of a merchant: `SBTOKEN_<base64url public key>.<mac>`,
 * where mac is the first 32 hex chars of HMAC-SHA256(secret key, public key).
 * Deterministic, so a token survives restarts and needs no storage; it
 * never expires (docs/decisions.md#d03-bearer-tokens: the spec does not give a lifetime).
 */
export function issueToken(merchant: KeyPair): string {
  return issued(merchant).text;
}

// A merchant's token, computed once per merchant record: every authenticated request checks one.
// Records are frozen, and a changed merchant is a new record, so the cache can never go stale.
const tokens = new WeakMap<KeyPair, { text: string; bytes: Buffer }>();

function issued(merchant: KeyPair): { text: string; bytes: Buffer } {
  let token = tokens.get(merchant);
  if (!token) {
    const text = `${TOKEN_PREFIX}${Buffer.from(merchant.publicKey).toString('base64url')}.${tokenMac(merchant)}`;
    token = { text, bytes: Buffer.from(text) };
    if (Object.isFrozen(merchant)) tokens.set(merchant, token);
  }
  return token;
}

/** The public key a token claims to be for, or undefined when it is not of the token form. */
export function tokenPublicKey(token: string): string | undefined {
  if (!token.startsWith(TOKEN_PREFIX)) return undefined;
  const [encoded, mac] = token.slice(TOKEN_PREFIX.length).split('.');
  if (!encoded || !mac) return undefined;
  return Buffer.from(encoded, 'base64url').toString('utf8');
}

/** True when `token` was issued for `merchant`. */
export function tokenBelongsTo(token: string, merchant: KeyPair): boolean {
  const expected = issued(merchant).bytes;
  const given = Buffer.from(token);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

const tokenMac = (merchant: KeyPair): string =>
  createHmac('sha256', merchant.secretKey).update(merchant.publicKey).digest('hex').slice(0, 32);

/**
 * The linkingReference of a payment: `SBLNK_` and the first 20 hex chars of
 * HMAC-SHA256 with the merchant's secret key over `<publicKey>:<paymentReference>`.
 * Deterministic for the merchant, so its tests and the OpenAPI examples can
 * name it in advance; unguessable for anyone else, so a payment's checkout
 * page cannot be found from its public key and reference (docs/decisions.md#d09-linking-reference).
 */
export function linkingReferenceOf(merchant: KeyPair, paymentReference: string): string {
  const mac = createHmac('sha256', merchant.secretKey).update(`${merchant.publicKey}:${paymentReference}`).digest('hex');
  return `SBLNK_${mac.slice(0, 20)}`;
}
