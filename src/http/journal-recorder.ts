import type { RequestHandler } from 'express';
import { hideExchangeKey, hideIssuedTokens, type Journal } from '../control/journal.js';
import { merchantOfToken } from '../domain/authentication.js';
import { parseExchangeKey } from '../domain/merchants.js';
import type { Store } from '../store/store.js';
import type { RequestFacts } from './request-facts.js';
import type { RequestLog } from './request-log.js';

type Body = Record<string, unknown> | undefined;

/**
 * Records every Payments API request in the journal once its connection is
 * done with: answered (status and body), or closed without an answer by a
 * fault (status 0). Credentials and card data never reach the journal: the
 * credentials only a field's name tells are hidden here, and the journal
 * redacts by value and bounds all it keeps.
 */
export function journalRecorder(deps: { journal: Journal; store: Store; now: () => string; log?: RequestLog }): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const time = deps.now();
    const path = req.path;
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      res.locals.responseBody = body;
      return json(body);
    };
    res.once('close', () => {
      // The journal shows what the client sent, before any leniency read it otherwise.
      const body = (res.locals.sentBody ?? req.body) as Body;
      // The facts of a request that got as far as the selection; a refused one is told by what it carried.
      const facts = res.locals.facts as RequestFacts | undefined;
      const answered = res.locals.responseBody as { data?: { payments?: { paymentReference?: string } } } | undefined;
      const kept = deps.journal.record({
        time,
        method: req.method,
        path,
        publicKey: facts?.merchant.publicKey ?? publicKeyCarried(req.headers.authorization, body, deps.store),
        paymentReference: facts?.paymentReference ?? facts?.payment?.paymentReference ?? referenceCarried(body) ?? answered?.data?.payments?.paymentReference,
        operation: res.locals.operation as string | undefined,
        status: res.locals.fault ? 0 : res.statusCode,
        scenario: (res.getHeader('x-sandbox-scenario') as string | undefined) ?? undefined,
        reason: (res.getHeader('x-sandbox-reason') as string | undefined) ?? undefined,
        fault: res.locals.fault as string | undefined,
        warnings: res.locals.warnings as string[] | undefined,
        durationMs: Number(process.hrtime.bigint() - started) / 1e6,
        // The journal redacts by value and bounds all it keeps (src/control/journal-bounds.ts), in one pass over a body.
        request: { headers: req.headers, query: req.query, body: hideExchangeKey(body) },
        response: res.locals.responseBody === undefined ? undefined : { body: hideIssuedTokens(res.locals.responseBody) },
      });
      // The log line is written from the journal's kept form: redacted and bounded once, for both.
      deps.log?.(kept);
    });
    next();
  };
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
