import type { Agenda } from '../agenda/agenda.js';
import type { MerchantClocks } from '../clock/clocks.js';
import type { Journal, JournalEntry } from '../journal/journal.js';
import type { Delivery } from '../model/notifications.js';
import type { Payment, PaymentHistoryEntry } from '../model/records.js';
import type { Store } from '../store/store.js';
import { dueView } from './notifications.js';
import { paymentView, shown } from './views.js';

/**
 * A payment's story (openapi/control-api.yaml, getPaymentStory; docs/design.md,
 * "A payment's story"; docs/decisions.md#d79-payment-history): the payment,
 * the requests the journal holds of it, the states it passed through, its
 * notifications' deliveries and what is still due for it, in one answer.
 */

/** What a story is read from. */
export interface StorySources {
  store: Store;
  journal: Journal;
  agenda: Agenda;
  clocks: MerchantClocks;
}

/**
 * One request of a payment as its story shows it: the journal's entry
 * (bodies redacted and bounded as the journal keeps them) without the
 * merchant and reference it is filed under, with `at` for the journal's
 * `time` and the result code of its answer.
 */
export interface StoryRequest {
  id: number;
  /** ISO 8601 UTC, real time: when the request arrived */
  at: string;
  method: string;
  path: string;
  operation?: string;
  /** HTTP status; 0 when no answer was sent */
  status: number;
  /** the answer's result code (`data.code`, else `code`), when it has one */
  code?: string;
  scenario?: string;
  reason?: string;
  fault?: string;
  warnings?: string[];
  request: JournalEntry['request'];
  response?: JournalEntry['response'];
}

/** The answer of GET /__sandbox/payments/{paymentReference}/story. */
export interface PaymentStory {
  /** the payment as GET /__sandbox/payments/{paymentReference} shows it */
  payment: Record<string, unknown>;
  /** the journal's requests of this payment, oldest first */
  requests: StoryRequest[];
  /**
   * true when the journal holds every request made of this payment since it
   * was created; false when it may have let some go (its bounds, a clear, a
   * restart, a payment loaded from a snapshot or fixtures) or cannot tell
   */
  requestsComplete: boolean;
  /** the payment's history, oldest first: empty for a record written before it was kept */
  states: PaymentHistoryEntry[];
  /** the deliveries of this payment's notifications, oldest first, each with its attempts */
  deliveries: Delivery[];
  /** what is still due for this payment, earliest first (DueItem) */
  due: Array<ReturnType<typeof dueView>>;
}

/**
 * Tells `payment`'s story from the store, the journal and the agenda.
 * Whether the requests are complete: the payment's creation, in real time,
 * is at least its `createdAt` less its merchant's clock's offset now (a
 * clock only goes forward); when that is after the journal's
 * `completeAfterMs`, nothing of the payment can have been let go of. It
 * errs towards false: a clock moved after the payment was created makes a
 * complete list look possibly incomplete, never the other way.
 */
export function paymentStory(sources: StorySources, payment: Payment): PaymentStory {
  const { store, journal, agenda, clocks } = sources;
  const { publicKey, paymentReference } = payment;
  const requests = journal.query({ publicKey, paymentReference }).reverse().map(storyRequest);
  const createdRealMs = Date.parse(payment.createdAt) - clocks.offsetMs(publicKey);
  // One scan of the merchant's deliveries, none of every merchant's; the agenda then looks at this payment's items only.
  const deliveries = store.deliveries(publicKey).filter((delivery) => delivery.paymentReference === paymentReference);
  const ids = new Set(deliveries.map((delivery) => delivery.id));
  const due = agenda.pending(publicKey, (item) => (item.kind === 'delivery' ? ids.has(item.key) : item.key === paymentReference));
  return {
    payment: paymentView(payment),
    requests,
    // On a shared store other replicas served requests this journal never saw (docs/decisions.md#d84-shared-store).
    requestsComplete: store.servesAlone && createdRealMs > journal.completeAfterMs,
    // Shown by the one redaction rule, as the payment is (docs/decisions.md#d86-one-redaction-rule).
    states: shown(payment.history ?? []),
    deliveries: shown(deliveries),
    due: due.map((item) => dueView(store, publicKey, item)),
  };
}

function storyRequest(entry: JournalEntry): StoryRequest {
  const { id, time, method, path, operation, status, scenario, reason, fault, warnings, request, response } = entry;
  const code = resultCode(response?.body);
  return {
    id, at: time, method, path, status,
    ...(operation === undefined ? {} : { operation }),
    ...(code === undefined ? {} : { code }),
    ...(scenario === undefined ? {} : { scenario }),
    ...(reason === undefined ? {} : { reason }),
    ...(fault === undefined ? {} : { fault }),
    ...(warnings === undefined ? {} : { warnings }),
    request,
    ...(response === undefined ? {} : { response }),
  };
}

// The Payments API answers its result code in `data.code`, its errors in `code`.
function resultCode(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { data, code } = body as { data?: { code?: unknown }; code?: unknown };
  const found = typeof data === 'object' && data !== null && typeof data.code === 'string' ? data.code : code;
  return typeof found === 'string' ? found : undefined;
}
