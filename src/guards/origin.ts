import type { IncomingHttpHeaders } from 'node:http';

/**
 * What a web page of another site may send uninvited, as both APIs judge it
 * (README, "The control API" and "Security"): the control API refuses it in
 * its shape (src/control/guards.ts), the Payments API in its own
 * (src/api/cross-origin.ts), unless `--cors`.
 */

/** The methods that change state; the others only read. */
export const UNSAFE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The origin of a request a web page of another site sent, or undefined for
 * one sent by no page (no `Origin`: curl, the SDKs, a server) or by a page of
 * the sandbox itself. Another site: an `Origin` whose scheme, host and port
 * are not the ones the request was sent to (`null` included, which sandboxed
 * frames and local files send), or `Sec-Fetch-Site: cross-site`.
 * @returns the Origin as sent (at most 100 characters), or `another site` when only Sec-Fetch-Site tells
 */
export function foreignOrigin(headers: IncomingHttpHeaders): string | undefined {
  const origin = headers.origin;
  if (origin !== undefined && !sameOrigin(origin, headers.host)) return origin.slice(0, 100);
  // What the browser says of the page that sent the request, whatever the Origin claims.
  if (headers['sec-fetch-site'] === 'cross-site') return origin?.slice(0, 100) ?? 'another site';
  return undefined;
}

/** True when a request carries a body: a length above zero, or one sent in chunks. */
export function carriesBody(headers: IncomingHttpHeaders): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

// Same origin for the sandbox: the Origin's host and port are the ones the request was sent to.
function sameOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined) return false;
  try {
    const from = new URL(origin);
    return from.host === new URL(`${from.protocol}//${host}`).host;
  } catch {
    return false;
  }
}
