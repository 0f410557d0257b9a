import { maskCardNumbers } from './card-numbers.js';

/**
 * Redaction, for whatever the sandbox keeps or prints of a request (the
 * journal, logs): credentials and card data are found by what they look
 * like, not only by the field they were sent in, since clients put them
 * anywhere (a card number sent as a JSON number, a secret key pasted in a
 * description).
 *
 * - 12-19 digits that pass the Luhn check, in one run or in groups split by
 *   spaces, tabs, '-', '.', '_' or '/': BIN and last four kept
 *   (src/redaction/card-numbers.ts);
 * - secret keys (`SBTESTSECK_...`, `SBSECK_...`), bearer tokens
 *   (`SBTOKEN_...`) and card tokens (`SBCTK_...`): the prefix kept, the rest
 *   `[redacted]`, anywhere in any string;
 * - in a JSON value, fields masked by their name whatever their value: card
 *   number fields keep BIN and last four, CVV, PIN and OTP fields are `***`
 *   (src/redaction/fields.ts, applied by `redactValue`);
 * - the Authorization, Proxy-Authorization and Cookie headers: `[redacted]`.
 *
 * These are the one rule for all the sandbox shows of what a client sent:
 * the journal (and so the dashboard and the request log, which show its kept
 * form), the log's notification lines and the attempts kept of a
 * notification go through `redactText` or `redactValue`; a stored card is
 * shown with `maskStoredCard`, the same mask.
 *
 * The sandbox's own public identifiers (public keys, linkingReference,
 * wallet and customer ids) are left whole: their hex or digits may look like
 * a card number by chance, and they must still match what the API answered.
 */

/** What replaces a credential, or a header that carries one. */
export const REDACTED = '[redacted]';

/** What replaces the value of a CVV, PIN or OTP field, or of a card number field not written in digits. */
export const HIDDEN = '***';

/** Headers that carry credentials, hidden whole. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);

// Secret keys and card tokens are letters and digits; bearer tokens are base64url with a dot.
const CREDENTIALS = /(SBTESTSECK_|SBSECK_|SBCTK_)[A-Za-z0-9_-]+|(SBTOKEN_)[A-Za-z0-9_.~+/=-]+/gi;
const PUBLIC_IDENTIFIERS = /(?:SBTESTPUBK|SBPUBK|SBLNK|SBWALLET|SBCUS)_[A-Za-z0-9]+/g;
const MAYBE_SECRET = /sb|\d{4}/i;
const SB_PREFIX = /sb/i;
const ONE_PUBLIC_IDENTIFIER = /^(?:SBTESTPUBK|SBPUBK|SBLNK|SBWALLET|SBCUS)_[A-Za-z0-9]+$/;

/**
 * `text` with every credential and card number in it redacted.
 * Idempotent: redacting twice changes nothing more.
 */
export function redactText(text: string): string {
  // Most strings hold neither a prefix nor four digits in a row, or are one public identifier: leave them at once. A card number
  // needs 12 digits: a shorter string (an amount, a code) can only hold a prefixed credential.
  if (text.length < 12 ? !SB_PREFIX.test(text) : !MAYBE_SECRET.test(text) || ONE_PUBLIC_IDENTIFIER.test(text)) return text;
  const hidden = text.replace(CREDENTIALS, (_found, key: string | undefined, token: string | undefined) => `${key ?? token}${REDACTED}`);
  // exec on the one shared expression: matchAll would copy it for every string.
  let masked = '';
  let from = 0;
  PUBLIC_IDENTIFIERS.lastIndex = 0;
  for (let identifier = PUBLIC_IDENTIFIERS.exec(hidden); identifier !== null; identifier = PUBLIC_IDENTIFIERS.exec(hidden)) {
    masked += maskCardNumbers(hidden.slice(from, identifier.index)) + identifier[0];
    from = identifier.index + identifier[0].length;
  }
  return from === 0 ? maskCardNumbers(hidden) : masked + maskCardNumbers(hidden.slice(from));
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
