import { maskCardNumbers } from './card-numbers.js';

/**
 * Redaction by value, for whatever the sandbox keeps or prints of a request
 * (the journal, logs): credentials and card data are found by what they look
 * like, not by the field they were sent in, since clients put them anywhere
 * (a card number sent as a JSON number, a secret key pasted in a description).
 *
 * - a 12-19 digit run that passes the Luhn check: BIN and last four kept;
 * - secret keys (`SBTESTSECK_...`, `SBSECK_...`), bearer tokens
 *   (`SBTOKEN_...`) and card tokens (`SBCTK_...`): the prefix kept, the rest
 *   `[redacted]`, anywhere in any string;
 * - fields named `cvv` or `pin`, in any case and at any depth: `***`;
 * - the Authorization, Proxy-Authorization and Cookie headers: `[redacted]`.
 *
 * The sandbox's own public identifiers (public keys, linkingReference,
 * wallet and customer ids) are left whole: their hex or digits may look like
 * a card number by chance, and they must still match what the API answered.
 */

/** What replaces a credential, or a header that carries one. */
export const REDACTED = '[redacted]';

/** What replaces the value of a `cvv` or `pin` field. */
export const HIDDEN = '***';

/** Field names whose value is hidden whatever it is, compared in lower case. */
export const SECRET_FIELDS: ReadonlySet<string> = new Set(['cvv', 'pin']);

/** Headers that carry credentials, hidden whole. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);

// Secret keys and card tokens are letters and digits; bearer tokens are base64url with a dot.
const CREDENTIALS = /(SBTESTSECK_|SBSECK_|SBCTK_)[A-Za-z0-9_-]+|(SBTOKEN_)[A-Za-z0-9_.~+/=-]+/gi;
const PUBLIC_IDENTIFIERS = /(?:SBTESTPUBK|SBPUBK|SBLNK|SBWALLET|SBCUS)_[A-Za-z0-9]+/g;
const MAYBE_SECRET = /sb|\d{4}/i;
const ONE_PUBLIC_IDENTIFIER = /^(?:SBTESTPUBK|SBPUBK|SBLNK|SBWALLET|SBCUS)_[A-Za-z0-9]+$/;

/**
 * `text` with every credential and card number in it redacted.
 * Idempotent: redacting twice changes nothing more.
 */
export function redactText(text: string): string {
  // Most strings hold neither a prefix nor four digits in a row, or are one public identifier: leave them at once.
  if (!MAYBE_SECRET.test(text) || ONE_PUBLIC_IDENTIFIER.test(text)) return text;
  const hidden = text.replace(CREDENTIALS, (_found, key: string | undefined, token: string | undefined) => `${key ?? token}${REDACTED}`);
  let masked = '';
  let from = 0;
  for (const identifier of hidden.matchAll(PUBLIC_IDENTIFIERS)) {
    masked += maskCardNumbers(hidden.slice(from, identifier.index)) + identifier[0];
    from = identifier.index + identifier[0].length;
  }
  return masked + maskCardNumbers(hidden.slice(from));
}

/**
 * A redacted copy of request headers (names in lower case, as Node gives
 * them): the credential headers `[redacted]`, every other value through
 * `redactText`. Headers without a value are left out.
 */
export function redactHeaders(headers: Record<string, unknown>): Record<string, string | string[]> {
  const copy: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    if (SECRET_HEADERS.has(lower)) copy[lower] = REDACTED;
    else copy[lower] = Array.isArray(value) ? value.map((item) => redactText(String(item))) : redactText(String(value));
  }
  return copy;
}
