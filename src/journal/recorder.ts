import type { IncomingHttpHeaders } from 'node:http';
import { merchantOfToken } from '../domain/authentication.js';
import { parseExchangeKey } from '../domain/merchants.js';
import type { RequestFacts } from '../domain/request.js';
import type { Store } from '../store/store.js';
import { hideExchangeKey, hideIssuedTokens, type Journal, type JournalEntry } from './journal.js';

type Body = Record<string, unknown> | undefined;

/** What the journal and the request log need. */
export interface JournalDependencies {
  journal: Journal;
  store: Store;
  /** writes the log line of a kept entry (src/log/request-log.ts); absent: no log */
  log?: (entry: JournalEntry) => void;
}

/**
 * What the recorder reads of a Payments API request's way through: the
 * core's exchange (src/api/exchange.ts) is one.
 */
export interface RecordedExchange {
  request: { method: string; headers: IncomingHttpHeaders };
  /** the path below the API base, as sent */
  path: string;
  query: Record<string, unknown>;
  /** ISO 8601 UTC time the request arrived */
  time: string;
  /** process.hrtime.bigint() when it arrived */
  started: bigint;
  operation?: string;
  /** the body as sent, parsed; undefined when none was read */
  sent?: unknown;
  facts?: RequestFacts;
  warnings?: string[];
  /** the answer's headers, by name as set */
  headers: Record<string, string>;
  /** the status answered; undefined when the connection closed before an answer */
  status?: number;
  responseBody?: unknown;
  fault?: string;
}

/**
 * Records a Payments API request in the journal once its connection is done
 * with: answered (status and body), or closed without an answer by a fault
 * (status 0). What it says comes from the request's exchange: the facts of a
 * request that got as far as the selection, else what the request carried.
 * A connection closed before any answer was decided is recorded with status
 * 200, the status node's response starts with, and the headers set so far.
 * Credentials and card data never reach the journal: the credentials only
 * the operation tells (a key exchange's secret, the tokens it issues) are
 * hidden here, and the journal redacts by field name and by value
 * (src/redaction/) and bounds all it keeps.
 * @returns the entry as the journal keeps it; the log line is written from it
 */
export function recordExchange(exchange: RecordedExchange, deps: JournalDependencies): JournalEntry {
  // The journal shows what the client sent, before any leniency read it otherwise.
  const body = exchange.sent as Body;
  const facts = exchange.facts;
  const answered = exchange.responseBody as { data?: { payments?: { paymentReference?: string } } } | undefined;
  const kept = deps.journal.record({
    time: exchange.time,
    method: exchange.request.method,
    path: exchange.path,
    publicKey: facts?.publicKey ?? publicKeyCarried(exchange.request.headers.authorization, body, deps.store),
    paymentReference: facts?.paymentReference ?? facts?.payment?.paymentReference ?? referenceCarried(body) ?? answered?.data?.payments?.paymentReference,
    operation: exchange.operation,
    status: exchange.fault ? 0 : (exchange.status ?? 200),
    scenario: exchange.headers['X-Sandbox-Scenario'],
    reason: exchange.headers['X-Sandbox-Reason'],
    fault: exchange.fault,
    warnings: exchange.warnings,
    durationMs: Number(process.hrtime.bigint() - exchange.started) / 1e6,
    // The journal redacts by value and bounds all it keeps (src/journal/bounds.ts), in one pass over a body.
    request: { headers: exchange.request.headers, query: exchange.query, body: hideExchangeKey(body) },
    response: exchange.responseBody === undefined ? undefined : { body: hideIssuedTokens(exchange.responseBody) },
  });
  // The log line is written from the journal's kept form: redacted and bounded once, for both.
  deps.log?.(kept);
  return kept;
}

// The merchant a refused request belongs to: the one its verified token names (a 405,
// a forced fault), else the public key its body carries (refused before any check).
function publicKeyCarried(authorization: string | undefined, body: Body, store: Store): string | undefined {
  const bearer = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
  return (
    (bearer === undefined ? undefined : merchantOfToken(store, bearer)?.publicKey) ??
    (typeof body?.publicKey === 'string' ? body.publicKey : undefined) ??
    (typeof body?.key === 'string' ? parseExchangeKey(body.key)?.publicKey : undefined)
  );
}

// Clients send the reference as a number too (README, "Accepted beyond the spec").
function referenceCarried(body: Body): string | undefined {
  return ['string', 'number'].includes(typeof body?.paymentReference) ? String(body!.paymentReference) : undefined;
}
