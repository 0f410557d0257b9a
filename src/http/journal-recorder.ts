import type { IncomingMessage, ServerResponse } from 'node:http';
import { hideExchangeKey, hideIssuedTokens, type Journal } from '../journal/journal.js';
import { merchantOfToken } from '../domain/authentication.js';
import { parseExchangeKey } from '../domain/merchants.js';
import type { Store } from '../store/store.js';
import type { ApiExchange } from './exchange.js';
import type { RequestLog } from '../log/request-log.js';

type Body = Record<string, unknown> | undefined;

/** What the journal and the request log need. */
export interface JournalDependencies {
  journal: Journal;
  store: Store;
  now: () => string;
  log?: RequestLog;
}

/**
 * Records a Payments API request in the journal once its connection is done
 * with: answered (status and body), or closed without an answer by a fault
 * (status 0). What it says comes from the request's exchange: the facts of a
 * request that got as far as the selection, else what the request carried.
 * Credentials and card data never reach the journal: the credentials only
 * the operation tells (a key exchange's secret, the tokens it issues) are
 * hidden here, and the journal redacts by field name and by value
 * (src/redaction/) and bounds all it keeps.
 */
export function recordOnClose(req: IncomingMessage & { body?: unknown }, res: ServerResponse, exchange: ApiExchange, deps: JournalDependencies): void {
  const started = process.hrtime.bigint();
  const time = deps.now();
  res.once('close', () => {
    // The journal shows what the client sent, before any leniency read it otherwise.
    const body = req.body as Body;
    const facts = exchange.facts;
    const answered = exchange.responseBody as { data?: { payments?: { paymentReference?: string } } } | undefined;
    const kept = deps.journal.record({
      time,
      method: req.method ?? '',
      path: exchange.path,
      publicKey: facts?.publicKey ?? publicKeyCarried(req.headers.authorization, body, deps.store),
      paymentReference: facts?.paymentReference ?? facts?.payment?.paymentReference ?? referenceCarried(body) ?? answered?.data?.payments?.paymentReference,
      operation: exchange.operation,
      status: exchange.fault ? 0 : res.statusCode,
      scenario: (res.getHeader('x-sandbox-scenario') as string | undefined) ?? undefined,
      reason: (res.getHeader('x-sandbox-reason') as string | undefined) ?? undefined,
      fault: exchange.fault,
      warnings: exchange.warnings,
      durationMs: Number(process.hrtime.bigint() - started) / 1e6,
      // The journal redacts by value and bounds all it keeps (src/journal/bounds.ts), in one pass over a body.
      request: { headers: req.headers, query: exchange.query, body: hideExchangeKey(body) },
      response: exchange.responseBody === undefined ? undefined : { body: hideIssuedTokens(exchange.responseBody) },
    });
    // The log line is written from the journal's kept form: redacted and bounded once, for both.
    deps.log?.(kept);
  });
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
