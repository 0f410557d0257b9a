import { isIP } from 'node:net';

/**
 * The host names the HTTPS listener's certificate covers and the proxy
 * reaches, kept apart from the certificate code so that reading options
 * does not load the crypto library.
 */

/** The names every server certificate covers, whatever `--tls-host` adds: the loopback ones. */
export const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];

/**
 * `name` as the sandbox compares it (lower case, no trailing dot), when it is a
 * DNS name or an IP address a certificate can carry.
 * @throws Error saying what a host name may be, for `--tls-host` and `tlsHosts`.
 */
export function tlsHostName(name: string): string {
  const host = name.trim().toLowerCase().replace(/\.$/, '');
  if (isIP(host)) return host;
  const label = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
  if (host.length > 253 || !host.split('.').every((part) => label.test(part))) {
    throw new Error(`"${name}" is not a host name (letters, digits, hyphens and dots) nor an IP address`);
  }
  return host;
}

/** The names a server certificate covers: the loopback names, then `tlsHosts`, without repeats. */
export function serverNames(tlsHosts: readonly string[]): string[] {
  return [...new Set([...LOOPBACK_NAMES, ...tlsHosts.map(tlsHostName)])];
}
