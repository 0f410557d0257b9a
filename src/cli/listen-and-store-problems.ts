import { describeUrl } from '../store/store-url.js';

/** Prism's default port, which the sandbox's default shares: a clash there is most often a Prism mock left running. */
const PRISM_DEFAULT_PORT = 4010;

/** Where the sandbox was asked to listen: the flags a listener problem names. */
export interface ListenRequest {
  host?: string;
  httpsPort?: number;
  proxyPort?: number;
}

/**
 * A listener that could not start, in one line that names the port or host
 * asked for and what to do (docs/decisions.md#d68-start-up-refusals).
 * @param error the listener's error: `code` (EADDRINUSE, EACCES, ...) and `port`
 * @returns the line, or undefined when the error is not a listener's
 */
export function listenProblem(error: unknown, options: ListenRequest): string | undefined {
  const { code, port } = (error ?? {}) as { code?: string; port?: number };
  const flag = port !== undefined && port === options.httpsPort ? '--https-port' : port !== undefined && port === options.proxyPort ? '--proxy-port' : '--port';
  const host = options.host ?? '127.0.0.1';
  if (code === 'EADDRINUSE') {
    const prism = port === PRISM_DEFAULT_PORT ? ` (${PRISM_DEFAULT_PORT} is Prism's default too: a mock server left running?)` : '';
    return `port ${port} on ${host} is already in use${prism}: stop what uses it, or pick another with ${flag} <n> (0: any free port)`;
  }
  if (code === 'EACCES') return `port ${port} on ${host} needs privileges this user does not have: pick a port above 1023 with ${flag} <n>`;
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL') {
    return `cannot listen on --host ${host}: it is not an address of this machine (${code}); use 127.0.0.1, 0.0.0.0 (every interface), :: or one of this machine's addresses`;
  }
  return undefined;
}

/**
 * The store's refusal to open a PostgreSQL URL, with what to do about it:
 * an unknown host, nothing listening, a missing database, a user or
 * password refused. The password is never written: the URL is named by its
 * host, port and database (describeUrl), and the commands suggested name
 * the user at most.
 * @param message the StoreOpenError's one line (`cannot open the store at host:port/db: <the driver's words>`)
 * @param storeUrl the `--store` URL
 * @returns the line with its fix; the message as it was when no fix is known
 */
export function storeProblem(message: string, storeUrl: string): string {
  let url: URL;
  try {
    url = new URL(storeUrl);
  } catch {
    return message;
  }
  const host = url.hostname || 'localhost';
  const port = url.port || '5432';
  const user = decodeURIComponent(url.username);
  const database = decodeURIComponent(url.pathname.replace(/^\//, '')) || user;
  const where = `cannot open the store at ${describeUrl(storeUrl)}`;
  const connection = `-h ${host} -p ${port}${user ? ` -U ${user}` : ''}`;
  if (/\b(ENOTFOUND|EAI_AGAIN|EAI_FAIL|EAI_NONAME)\b/.test(message)) {
    return `${where}: host ${host} not found: check the URL's host (postgres://user:pass@HOST:port/db), or that this machine can resolve it`;
  }
  if (/\bECONNREFUSED\b/.test(message)) {
    return `${where}: nothing accepts connections at ${host}:${port}: start PostgreSQL there, or check the URL's host and port`;
  }
  const missingDatabase = /database "([^"]+)" does not exist/.exec(message);
  if (missingDatabase) {
    return `${where}: database ${missingDatabase[1]} does not exist: create it with \`createdb ${connection} ${missingDatabase[1]}\` (or CREATE DATABASE in psql), or name an existing one in the URL's path`;
  }
  const missingRole = /role "([^"]+)" does not exist/.exec(message);
  if (missingRole) {
    return `${where}: the user ${missingRole[1]} does not exist on that server: create it with \`createuser -h ${host} -p ${port} -P ${missingRole[1]}\`, or name another in the URL`;
  }
  if (/password authentication failed|no password supplied|SASL|authentication failed/i.test(message)) {
    return `${where}: the server refused the user ${user || '(none given)'} or its password: check both in the URL (postgres://USER:PASSWORD@host:port/${database})`;
  }
  if (/\b(ETIMEDOUT|EHOSTUNREACH|ENETUNREACH)\b|timeout/i.test(message)) {
    return `${where}: ${host}:${port} does not answer: check the URL's host and port, and that a firewall lets this machine reach it`;
  }
  return message;
}
