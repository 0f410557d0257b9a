import { InvalidArgumentError, Option } from 'commander';
import { tlsHostName } from '../tls/host-names.js';

/**
 * The command line's part of HTTPS and proxy mode (README, "HTTPS and proxy
 * mode"): the options shared by the server and `payments-sandbox ca`
 * (src/cli/banner.ts says what the banner shows of the listeners).
 */

/** `--ca-dir <dir>` (env SANDBOX_CA_DIR): a new Option each call, as the program and `ca` each take one; the help shows its default (src/cli/main.ts). */
export function caDirOption(): Option {
  return new Option('--ca-dir <dir>', 'folder of the local certificate authority').env('SANDBOX_CA_DIR');
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
