import { homedir } from 'node:os';
import { join } from 'node:path';

// Kept apart from the authority's crypto code, so that naming the folder or the error does not load it.

/** The CA folder cannot be used: a file is unreadable, damaged, expired or does not match its key. The message names the file. */
export class CertificateAuthorityError extends Error {
  override name = 'CertificateAuthorityError';
}

/**
 * The default CA folder: `$XDG_DATA_HOME/payments-sandbox/ca`, or
 * `~/.local/share/payments-sandbox/ca` (the XDG base directory default), so
 * that every project on the machine shares one authority to trust.
 * @param env the environment to read XDG_DATA_HOME from.
 */
export function defaultCaDir(env: NodeJS.ProcessEnv = process.env): string {
  const dataHome = env.XDG_DATA_HOME?.trim() ? env.XDG_DATA_HOME : join(homedir(), '.local', 'share');
  return join(dataHome, 'payments-sandbox', 'ca');
}
