import { ApiError, inputError } from '../errors.js';
import { SubscriberLimitError } from '../events/source.js';
import type { StatusClass } from '../journal/journal.js';
import { json, noContent, queryText, type ControlInput, type ControlRun } from './operation.js';
import { fill, journalCursor, journalCursorId, pageAnswer, pageRequest } from './paging.js';

// The runs of the journal and the live events (openapi/control-api.yaml, tags Journal and Events).

const filterOf = (input: ControlInput) => ({
  path: queryText(input, 'path'), publicKey: queryText(input, 'publicKey'), paymentReference: queryText(input, 'paymentReference'),
});

/** GET /requests: newest first, bounded in bytes as well as rows. */
export const listRequests: ControlRun = (input, { journal }) => {
  const { limit, cursor } = pageRequest(input.query);
  const before = cursor === undefined ? undefined : journalCursorId(cursor);
  const page = journal.page({ ...filterOf(input), status: statusFilter(queryText(input, 'status')), scenario: queryText(input, 'scenario') }, limit, before);
  // The page's byte bound may stop it before `limit`: the next page then starts after the last entry written.
  const written = fill(page.entries[Symbol.iterator](), limit, (entry) => JSON.stringify(entry));
  const next = written.more || page.more ? journalCursor(written.rows.at(-1)!.id) : undefined;
  const fields = { capacity: journal.capacity, maxBytes: journal.maxBytes, bytes: journal.bytes, count: written.rows.length, total: page.total, limit, next };
  return pageAnswer(fields, 'requests', written.texts);
};

/** GET /requests/count. */
export const countRequests: ControlRun = (input, { journal }) => {
  const status = queryText(input, 'status');
  return json(journal.tally({ ...filterOf(input), status: status === undefined ? undefined : Number(status) }));
};

/** DELETE /requests: a merchant's entries, or every one. */
export const clearRequests: ControlRun = async (input, { journal, store, merchantOf }) => {
  const publicKey = merchantOf(input);
  await store.transaction(() => {
    journal.clear(publicKey);
    store.journalCleared(publicKey);
  });
  return noContent();
};

/** GET /events: the live events, a merchant's or every one, from `Last-Event-ID` on (docs/decisions.md#d80-server-sent-events). */
export const streamEvents: ControlRun = (input, { events, merchantOf }) => {
  const last = input.headers['last-event-id'];
  const lastEventId = typeof last !== 'string' ? undefined : /^[0-9]{1,15}$/.test(last) ? Number(last) : -1;
  return {
    status: 200,
    open: (sink) => {
      try {
        return events.subscribe(sink, { publicKey: merchantOf(input), lastEventId });
      } catch (error) {
        if (error instanceof SubscriberLimitError) throw new ApiError(503, { message: error.message, error: 'UNAVAILABLE' });
        throw error;
      }
    },
  };
};

/**
 * The journal's `status` filter as GET /requests takes it: an HTTP status
 * (`400`; `0` for no answer) or a class (`4xx`).
 * @throws ApiError 400 INPUT naming `status` for anything else
 */
function statusFilter(value: string | undefined): number | StatusClass | undefined {
  if (value === undefined) return undefined;
  if (/^[0-9]{1,3}$/.test(value)) return Number(value);
  if (/^[1-5]xx$/.test(value)) return value as StatusClass;
  throw inputError(`status must be an HTTP status (400; 0 for no answer) or a class (4xx), not ${JSON.stringify(value.slice(0, 100))}`);
}
