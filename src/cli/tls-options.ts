import { InvalidArgumentError, Option } from 'commander';
import type { Sandbox } from '../index.js';
import { serverNames, tlsHostName } from '../tls/host-names.js';

/**
 * The command line's part of HTTPS and proxy mode (README, "HTTPS and proxy
 * mode"): the options shared by the server and `payments-sandbox ca`, and
 * what the banner says about the listeners.
 */

/** `--ca-dir <dir>` (env SANDBOX_CA_DIR): a new Option each call, as the program and `ca` each take one. */
export function caDirOption(): Option {
  return new Option('--ca-dir <dir>', 'folder of the local certificate authority (default: ~/.local/share/payments-sandbox/ca)').env('SANDBOX_CA_DIR');
}

/**
 * Collects `--tls-host` values: repeated flags add up, and a comma-separated
 * value (the SANDBOX_TLS_HOSTS form) counts as several.
 * @throws InvalidArgumentError when a name is neither a host name nor an IP address.
 */
export function tlsHosts(value: string, previous: string[] = []): string[] {
  const names = value.split(',').filter((name) => name.trim() !== '');
  try {
    return [...previous, ...names.map(tlsHostName)];
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

/** The banner lines for the HTTPS listener, the proxy and the CA file; empty when HTTPS is off. */
export function tlsBanner(sandbox: Sandbox, hosts: string[] = []): string {
  if (!sandbox.httpsUrl) return '';
  const lines = [`  HTTPS         ${sandbox.httpsUrl}/api/v2  (certificate for ${serverNames(hosts).join(', ')})`];
  if (sandbox.proxyUrl) lines.push(`  proxy         ${sandbox.proxyUrl}  (reaches the sandbox as ${hosts.join(', ') || 'no host: add --tls-host'}; refuses the rest)`);
  lines.push(`  CA            ${sandbox.caCertificate}  (trust it: NODE_EXTRA_CA_CERTS, REQUESTS_CA_BUNDLE, SSL_CERT_FILE, curl --cacert)`);
  return `\n${lines.join('\n')}`;
}
