/**
 * The Content-Type both APIs take: JSON only, so that no web page can send
 * them a body without a preflight (an HTML form sends form or text types).
 */

/** The media type of a Content-Type header, lower case, without its parameters (`charset`); undefined without the header. */
export function mediaTypeOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const semicolon = header.indexOf(';');
  return (semicolon < 0 ? header : header.slice(0, semicolon)).trim().toLowerCase();
}

/**
 * True for a Content-Type that declares JSON: `application/json` or a
 * structured `application/<name>+json`, in any case, with any parameters
 * (`application/json; charset=utf-8`).
 */
export function declaresJson(header: string | undefined): boolean {
  // What every known client sends, answered before anything is sliced.
  if (header === 'application/json') return true;
  const type = mediaTypeOf(header);
  return type !== undefined && (type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json')));
}
