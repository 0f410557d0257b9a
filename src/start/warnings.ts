import { EVERY_INTERFACE, type SandboxOptions } from './options.js';

/**
 * True for an address only this machine can reach: 127.0.0.0/8 and ::1, as
 * `server.address()` writes them (an IPv4-mapped one included). A host name
 * is judged by the address it was resolved to.
 */
export function isLoopback(address: string): boolean {
  return address.startsWith('127.') || address === '::1' || address.startsWith('::ffff:127.');
}

/** What a control API open to the network means, and how to close it (README, "Security"). */
export function openWarning(host: string, port: number): string {
  const where = EVERY_INTERFACE.has(host) ? `every interface (${host})` : host;
  return (
    `the control API is open to the network: listening on ${where} with no control token, so anyone who can reach port ${port} ` +
    "can reset the sandbox, change its scenarios, settle payments, point notifications anywhere and read every merchant's journal. " +
    'Set a token (--control-token <token>, or SANDBOX_CONTROL_TOKEN) and send Authorization: Bearer <token> to the control API, or listen on 127.0.0.1.'
  );
}

/**
 * A line of the start-up in the request log's format, at its level (pino's
 * numbers in JSON; README, "Logs"): the request log has lines for requests
 * and notifications only, and what the start says precedes both. Silent and
 * error-only logs leave it out.
 */
export function writeInLog(message: string, level: 'info' | 'warn', options: SandboxOptions): void {
  const shown = options.logLevel ?? 'silent';
  if (shown === 'silent' || shown === 'error') return;
  const now = new Date();
  const line =
    options.logFormat === 'json'
      ? JSON.stringify({ level: level === 'warn' ? 40 : 30, time: now.getTime(), msg: message })
      : `[${now.toTimeString().slice(0, 8)}.${String(now.getMilliseconds()).padStart(3, '0')}] ${level.toUpperCase()}: ${message}`;
  (options.logDestination ?? process.stdout).write(`${line}\n`);
}
