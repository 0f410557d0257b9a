import { HIDDEN, REDACTED } from '../redaction/redact.js';
import { redactValue } from '../redaction/value.js';

/**
 * The journal's masks for the bodies of the Payments API that only the
 * operation tells (the key of a key exchange, the tokens it issues), on top
 * of the one redaction rule, by field name and by value (src/redaction/),
 * that the journal applies to all it keeps.
 */

/**
 * The `key` of a key exchange, `<secret key>.<public key>`, as `***.<public
 * key>`: its secret part is a credential whatever its form. Shallow: other
 * fields are left as they are.
 */
export function hideExchangeKey(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const key = (body as { key?: unknown }).key;
  if (typeof key !== 'string') return body;
  return { ...body, key: key.includes('.') ? `${HIDDEN}${key.slice(key.indexOf('.'))}` : HIDDEN };
}

/**
 * The bearer token a key exchange answers and the card token of a refund,
 * as `[redacted]` (the control API's payment views leave the card token out).
 * Shallow: other fields are left as they are.
 */
export function hideIssuedTokens(body: unknown): unknown {
  const data = (body as { data?: unknown } | undefined)?.data;
  if (typeof data !== 'object' || data === null) return body;
  const given = data as Record<string, unknown>;
  const payments = given.payments as { card?: { token?: unknown } } | undefined;
  const keys = ['EncryptedSecKey', 'EncrytedSecKey'].filter((name) => typeof given[name] === 'object' && given[name] !== null);
  // Most answers carry neither: they are kept as they are, not copied.
  if (keys.length === 0 && payments?.card?.token === undefined) return body;
  const fields = { ...given };
  for (const name of keys) fields[name] = { ...(fields[name] as object), encryptedKey: REDACTED };
  if (payments?.card?.token !== undefined) fields.payments = { ...payments, card: { ...payments.card, token: REDACTED } };
  return { ...(body as object), data: fields };
}

/** A copy of a response body fit for the journal: the issued tokens hidden, and redacted by value. */
export const maskResponse = (body: unknown): unknown => redactValue(hideIssuedTokens(body));

