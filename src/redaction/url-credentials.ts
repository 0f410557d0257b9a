/**
 * A URL's user and password kept out of what is printed (README,
 * "Security"): `http://user:pw@host/` is shown as `http://***@host/`. The
 * sub-commands that take a `--url` print it in their lines and errors, and
 * Node's fetch names the whole URL in some of its own messages.
 */

// A scheme, then everything up to the last `@` before the host's end: the user information, however spelt.
const CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#]*@/gi;

/**
 * `text` with the user information of every URL in it replaced by `***`.
 * Text without a URL is returned as it is.
 */
export function redactUrlCredentials(text: string): string {
  return text.replace(CREDENTIALS, '$1***@');
}
