import type { Delivery, DeliverySchedule, DeliveryState, NotificationEventType, WebhookEndpoint } from '../model/notifications.js';
import type { Store } from '../store/store.js';
import { redactText } from '../redaction/redact.js';

/** Which deliveries a wait or a list is about; every field optional. */
export interface DeliveryQuery {
  publicKey?: string;
  paymentReference?: string;
  eventType?: NotificationEventType | string;
  /** default for `waitFor`: `delivered` */
  state?: DeliveryState | string;
}

/** True for an absolute http or https URL: what a notification URL must be. */
export function isHttpUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * A merchant's notification URL as the store keeps it (README, "Notifications").
 * @param updatedAt real time, ISO 8601 UTC
 * @throws RangeError when `url` is not an absolute http or https URL
 */
export function webhookEndpoint(
  publicKey: string,
  url: string,
  options: { events?: NotificationEventType[]; schedule?: DeliverySchedule },
  updatedAt: string,
): WebhookEndpoint {
  if (!isHttpUrl(url)) throw new RangeError(`url must be an absolute http or https URL, not ${JSON.stringify(url).slice(0, 200)}`);
  return { publicKey, url, ...(options.events ? { events: [...new Set(options.events)] } : {}), schedule: options.schedule ?? 'current', updatedAt };
}

/** The deliveries that match `query`, in the order they were made (one merchant's are in order already; across merchants, the sequence orders them). */
export function deliveriesMatching(store: Store, query: DeliveryQuery): Delivery[] {
  const matching = store.deliveries(query.publicKey).filter((delivery) => matches(delivery, query));
  return query.publicKey === undefined ? matching.sort((a, b) => a.sequence - b.sequence) : matching;
}

/**
 * Notifications from a test in the same process (`sandbox.webhooks`;
 * README, "Notifications"): set a merchant's URL, list deliveries, and
 * wait for one, as polling `GET /__sandbox/webhooks/deliveries` would.
 */
export class SandboxWebhooks {
  constructor(private readonly store: Store) {}

  /**
   * Sets the merchant's notification URL, as `PUT /__sandbox/webhooks/{publicKey}` does.
   * @throws RangeError when `url` is not an absolute http or https URL
   */
  async set(publicKey: string, url: string, options: { events?: NotificationEventType[]; schedule?: DeliverySchedule } = {}): Promise<void> {
    const webhook = webhookEndpoint(publicKey, url, options, new Date().toISOString());
    await this.store.transaction(() => this.store.putWebhook(publicKey, webhook));
  }

  /** The deliveries that match `query`, in the order they were made. */
  deliveries(query: DeliveryQuery = {}): Delivery[] {
    return deliveriesMatching(this.store, query);
  }

  /**
   * The first delivery that matches `query` (state `delivered` unless it
   * says otherwise), now or once one does.
   * @param timeoutMs how long to wait; default 10 000
   * @throws Error (rejects) when none matches in time, saying what deliveries there are
   */
  waitFor(query: DeliveryQuery = {}, timeoutMs = 10_000): Promise<Delivery> {
    const wanted = { ...query, state: query.state ?? 'delivered' };
    const found = this.deliveries(wanted)[0];
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const stop = this.store.watch((change) => {
        const candidates =
          change.kind === 'delivery' ? [change.delivery] : change.kind === 'payment' ? (change.deliveries ?? []) : change.kind === 'replace' ? change.records.deliveries : [];
        const match = candidates.find((delivery) => matches(delivery, wanted));
        if (!match) return;
        clearTimeout(timer);
        stop();
        resolve(match);
      });
      const timer = setTimeout(() => {
        stop();
        const seen = this.deliveries({ ...query, state: undefined }).map((delivery) => `${delivery.id} ${delivery.event.eventType} ${delivery.paymentReference} ${delivery.state}`);
        reject(new Error(`no ${wanted.state} delivery matching ${JSON.stringify(query)} within ${timeoutMs} ms; deliveries: ${seen.join(', ') || 'none'}`));
      }, timeoutMs);
    });
  }
}

function matches(delivery: Delivery, query: DeliveryQuery): boolean {
  return (
    (query.publicKey === undefined || delivery.publicKey === query.publicKey) &&
    // The reference as sent, or as the control API shows it (docs/decisions.md#d86-one-redaction-rule).
    (query.paymentReference === undefined || delivery.paymentReference === query.paymentReference || sameShown(delivery.paymentReference, query.paymentReference)) &&
    (query.eventType === undefined || delivery.event.eventType === query.eventType) &&
    (query.state === undefined || delivery.state === query.state)
  );
}

// Only a reference with a masked digit can be another's shown form: the rest are compared as they are.
const sameShown = (stored: string, asked: string): boolean => asked.includes('*') && redactText(stored) === asked;
