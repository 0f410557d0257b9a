import { createRequire } from 'node:module';

// ajv-formats' own `uri` check: the one the OpenAPI document's `format: uri` is validated with (src/validation/formats.ts).
const { fullFormats } = createRequire(import.meta.url)('ajv-formats/dist/formats.js') as { fullFormats: { uri: (text: string) => boolean } };

/** The document's `HttpUrl` pattern (openapi/payments-api.yaml): the scheme as the spec writes it, in lower case. */
const HTTP_SCHEME = /^https?:\/\//;

/**
 * True when a customer may be sent to `url` (a card initiate's `redirectUrl`,
 * a checkout's or order's `callbackUrl`): the one rule that both the
 * `X-Sandbox-Warnings` sentence "kept as sent and never redirected to"
 * (src/validation/leniency.ts) and the pages' redirects (src/pages/router.ts)
 * follow (README, "Accepted beyond the spec" and "Pages"). A target is
 * - what the document's `HttpUrl` accepts: `http://` or `https://`, then only
 *   what RFC 3986 allows in a URI (ajv-formats' `uri`, as the validator
 *   checks it): no space, `|`, `^`, `<`, `>`, `{`, `}`, `\`, `"` or backtick,
 *   which a browser would have to encode or rewrite, and every `%` followed
 *   by two hexadecimal digits;
 * - and what a browser parses (WHATWG URL), which also refuses an empty host,
 *   a port past 65535 and a numeric host that is no IPv4 address.
 * Anything else is kept as sent, and the pages show the result instead.
 * @param url the value as the merchant sent it
 */
export function isRedirectTarget(url: string): boolean {
  return HTTP_SCHEME.test(url) && fullFormats.uri(url) && URL.canParse(url);
}
