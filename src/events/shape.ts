import { redactText } from '../redaction/redact.js';
import type { Change } from '../store/store.js';

/**
 * What an event is about (openapi/control-api.yaml, `SandboxEvent`):
 * `payment` (created or its state changed), `order`, `delivery` (a
 * notification made or released), `attempt` (a delivery attempt stored),
 * `clock` (moved), `webhook` (set or removed), `fault` (a notification fault
 * set, used or cleared), `override` (added, used, removed or cleared),
 * `reset`, `replace` (a snapshot or fixtures load put a whole state), and
 * `reload` (what the client missed is no longer held: read the state again).
 */
export type SandboxEventKind = 'payment' | 'order' | 'delivery' | 'attempt' | 'clock' | 'webhook' | 'fault' | 'override' | 'reset' | 'replace' | 'reload';

/** The kinds, in the order the document lists them. */
export const SANDBOX_EVENT_KINDS: readonly SandboxEventKind[] = ['payment', 'order', 'delivery', 'attempt', 'clock', 'webhook', 'fault', 'override', 'reset', 'replace', 'reload'];

/** One change announced, before it is given its id and time: what `SandboxEvents.publish` takes. */
export interface SandboxEventInput {
  kind: SandboxEventKind;
  /** the merchant it concerns; absent for what concerns every merchant (a sandbox-wide override, a reset of all) */
  publicKey?: string;
  /** the payment it concerns, where there is one */
  paymentReference?: string;
  /** what happened: `created`, `updated`, `set`, `removed`, `added`, `used`, `cleared`, `advanced` */
  action?: 'created' | 'updated' | 'set' | 'removed' | 'added' | 'used' | 'cleared' | 'advanced';
  /** a payment's status after the change */
  status?: string;
  /** a delivery's state after the change */
  state?: string;
  /** the delivery, override or fault it concerns */
  ref?: string;
  /** an attempt's number (1, 2, ...) */
  attempt?: number;
  /** a clock's offset from real time after the change, in milliseconds */
  offsetMs?: number;
}

/** One event as the stream sends it in `data:` (JSON) with its sequence number in `id:`. */
export interface SandboxEvent extends SandboxEventInput {
  /** 1, 2, ...: grows by one each event of this run */
  id: number;
  /** ISO 8601 UTC, real time, when it was announced */
  at: string;
}

/**
 * The events one change of the store announces, in order: pure, read from
 * the change alone (the store's `watch` calls come after it is put). A
 * payment whose `updatedAt` is its `createdAt` was created; the deliveries it
 * carries each announce a `delivery`. A delivery put alone announces an
 * `attempt` once it has attempts, else a `delivery`. A paymentReference is
 * shown by the one redaction rule.
 */
export function eventsOfChange(change: Change): SandboxEventInput[] {
  // A paymentReference that holds a card number is announced masked, as the journal and the control API show it (docs/decisions.md#d86-one-redaction-rule).
  const events = announced(change);
  for (const [at, event] of events.entries()) {
    const shown = event.paymentReference === undefined ? undefined : redactText(event.paymentReference);
    if (shown !== event.paymentReference) events[at] = { ...event, paymentReference: shown };
  }
  return events;
}

function announced(change: Change): SandboxEventInput[] {
  switch (change.kind) {
    case 'payment': {
      const { payment } = change;
      const head: SandboxEventInput = {
        kind: 'payment', publicKey: payment.publicKey, paymentReference: payment.paymentReference,
        action: payment.createdAt === payment.updatedAt ? 'created' : 'updated', status: payment.status,
      };
      const deliveries = (change.deliveries ?? []).map((delivery): SandboxEventInput => ({
        kind: 'delivery', publicKey: delivery.publicKey, paymentReference: delivery.paymentReference, action: 'created', state: delivery.state, ref: delivery.id,
      }));
      return [head, ...deliveries];
    }
    case 'order':
      return [{ kind: 'order', publicKey: change.order.publicKey, paymentReference: change.order.paymentReference, action: change.order.createdAt === change.order.updatedAt ? 'created' : 'updated' }];
    case 'delivery': {
      const { delivery } = change;
      const base = { publicKey: delivery.publicKey, paymentReference: delivery.paymentReference, state: delivery.state, ref: delivery.id };
      return [delivery.attempts.length > 0 ? { kind: 'attempt', ...base, attempt: delivery.attempts.length } : { kind: 'delivery', ...base, action: 'updated' }];
    }
    case 'webhook':
      return [{ kind: 'webhook', publicKey: change.publicKey, action: change.webhook === null ? 'removed' : 'set' }];
    case 'clock':
      return [{ kind: 'clock', publicKey: change.clock.publicKey, action: 'advanced', offsetMs: change.clock.offsetMs }];
    case 'reset':
      return [change.publicKey === undefined ? { kind: 'reset' } : { kind: 'reset', publicKey: change.publicKey }];
    case 'replace':
      return [change.publicKey === undefined ? { kind: 'replace' } : { kind: 'replace', publicKey: change.publicKey }];
    case 'merchant':
      // A key exchange: nothing a dashboard shows changes until the merchant's first payment.
      return [];
  }
}

/**
 * One event as the bytes of a server-sent event: its `id:` line and its JSON
 * on one `data:` line (JSON.stringify writes no line break), then a blank line.
 */
export function eventText(event: SandboxEvent): string {
  return `id: ${event.id}\ndata: ${JSON.stringify(event)}\n\n`;
}
