import type { JournalEntry } from '../journal/journal.js';
import { emptyFacts, withReused, withWarnings } from '../model/go-live.js';
import type { Store } from '../store/store.js';

/**
 * Keeps, with the merchant's record, what the go-live report needs of a
 * Payments API request that only the journal saw: a reference refused as
 * used before, and the warnings a request drew
 * (docs/decisions.md#d87-go-live-report). Called once the request is
 * journalled; writes only for such a request, in a unit of work of its own
 * (a refusal stores nothing with its answer), so an initiate that draws no
 * warning costs one test here.
 * @param entry   the request as the journal keeps it: redacted, with its id
 * @param forced  true when the rule a header or an override forced gave the answer: what QA forced is not the integration's doing
 * @returns the write, settled; it never rejects (a store that cannot write loses the fact, not the request)
 */
export function noteForGoLive(entry: JournalEntry, forced: boolean, store: Store): Promise<void> {
  const reused = !forced && (entry.reason === 'duplicate-reference' || entry.scenario?.startsWith('duplicate-reference') === true);
  const warned = entry.warnings !== undefined && entry.warnings.length > 0;
  const publicKey = entry.publicKey;
  if ((!reused && !warned) || publicKey === undefined) return Promise.resolve();
  return store.transaction(() => {
    const merchant = store.merchant(publicKey);
    if (!merchant) return;
    let facts = merchant.goLive ?? emptyFacts(merchant.createdAt);
    if (reused) facts = withReused(facts, { reference: entry.paymentReference ?? '', operation: entry.operation ?? entry.path, requestId: entry.id, at: entry.time });
    if (warned) facts = withWarnings(facts, entry.warnings!, entry.id, entry.time);
    store.putMerchant({ ...merchant, goLive: facts });
  }).catch(() => undefined);
}

/**
 * Starts the go-live report of a merchant over, or of every merchant: its
 * facts emptied, `since` now. Called by a reset (POST /__sandbox/reset), in
 * a unit of work of its own after the reset's, so the report covers only
 * what happened after it (docs/decisions.md#d87-go-live-report).
 * @param now real time, ISO 8601 UTC
 */
export function restartFacts(store: Store, publicKey: string | undefined, now: string): Promise<void> {
  return store.transaction(() => {
    const merchants = publicKey === undefined ? store.merchants() : [store.merchant(publicKey)].filter((merchant) => merchant !== undefined);
    for (const merchant of merchants) store.putMerchant({ ...merchant, goLive: emptyFacts(now) });
  });
}
