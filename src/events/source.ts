import type { Change } from '../store/store.js';
import { EventBuffer } from './buffer.js';
import { eventsOfChange, eventText, type SandboxEvent, type SandboxEventInput } from './shape.js';

/**
 * The live events of the sandbox for the QA dashboard (GET /__sandbox/events;
 * docs/decisions.md#d80-server-sent-events): what turns the store's changes,
 * and the override and fault changes handed to `publish`, into numbered
 * events, the bounded buffer a reconnecting client replays from, and the
 * subscribers, each bounded.
 */

/** The bounds of the event stream (docs/decisions.md#d80-server-sent-events). */
export interface EventLimits {
  /** streams open at once; one more is refused (503) */
  maxSubscribers: number;
  /** the last events kept for `Last-Event-ID` */
  bufferSize: number;
  /** bytes a subscriber may leave unread in its connection's buffer before it is dropped */
  maxPendingBytes: number;
  /** milliseconds between two `: keep-alive` comment lines */
  keepAliveMs: number;
}

/** The bounds the sandbox runs with: 32 streams, the last 1000 events, 256 KiB unread, a keep-alive every 15 s. */
export const EVENT_LIMITS: EventLimits = { maxSubscribers: 32, bufferSize: 1000, maxPendingBytes: 256 * 1024, keepAliveMs: 15_000 };

/** Where a subscriber's events are written: an HTTP response, as src/control/router.ts adapts it. */
export interface EventSink {
  /** writes text; the answer is not used, `pending` is */
  write(text: string): unknown;
  /** bytes written and not yet handed to the connection (the response's `writableLength`) */
  readonly pending: number;
  /** ends the stream: the connection closes once what was written is sent */
  end(): void;
  /** closes the connection at once, dropping what is unsent */
  destroy(): void;
}

/** What a subscriber asks for. */
export interface SubscribeRequest {
  /** only the events of this merchant, and those that concern every merchant (no publicKey) */
  publicKey?: string;
  /** the `id` of the last event the client received, from `Last-Event-ID`: the held events after it are sent first */
  lastEventId?: number;
}

/** A subscriber the stream has no room for, or one that came while the sandbox closes. The message says which. */
export class SubscriberLimitError extends Error {
  override name = 'SubscriberLimitError';
}

interface Subscriber {
  sink: EventSink;
  publicKey?: string;
}

/** The event source: one per sandbox, made by startSandbox (src/index.ts). */
export class SandboxEvents {
  private readonly buffer: EventBuffer<SandboxEvent>;
  private readonly subscribers = new Set<Subscriber>();
  private lastId = 0;
  private keepAlive: ReturnType<typeof setInterval> | undefined;
  private closed = false;
  /** how many subscribers were dropped for not reading, since start */
  dropped = 0;

  constructor(
    private readonly now: () => string,
    readonly limits: EventLimits = EVENT_LIMITS,
  ) {
    this.buffer = new EventBuffer(limits.bufferSize);
  }

  /**
   * Numbers the next events after `base`, before any was sent: replicas of a
   * shared store each take their own range, so that an id one replica gave is
   * answered `reload` by another (docs/decisions.md#d84-shared-store).
   * @throws Error once an event has been numbered
   */
  numberFrom(base: number): void {
    if (this.lastId !== 0) throw new Error('events are numbered already');
    this.lastId = base;
  }

  /** The id of the newest event, 0 before the first. */
  get newestId(): number {
    return this.lastId;
  }

  /** How many streams are open. */
  get subscriberCount(): number {
    return this.subscribers.size;
  }

  /** Announces each change the store puts (`store.watch`): hand this to it. */
  readonly onStoreChange = (change: Change): void => {
    for (const input of eventsOfChange(change)) this.publish(input);
  };

  /**
   * Gives `input` the next id and the time, keeps it in the buffer and writes
   * it to every subscriber it is for. A subscriber whose connection holds more
   * than `maxPendingBytes` unsent after the write is dropped.
   * @returns the event as sent
   */
  publish(input: SandboxEventInput): SandboxEvent {
    const event: SandboxEvent = { id: (this.lastId += 1), at: this.now(), ...input };
    this.buffer.push(event);
    let text: string | undefined;
    for (const subscriber of this.subscribers) {
      if (!isFor(event, subscriber.publicKey)) continue;
      text ??= eventText(event);
      this.send(subscriber, text);
    }
    return event;
  }

  /**
   * Opens a stream on `sink`: first the events after `lastEventId` still held
   * (or one `reload` event when some are not), then each new one. The
   * `maxPendingBytes` bound applies from the first new event on.
   * @returns what ends the subscription (call it when the connection closes)
   * @throws SubscriberLimitError when `maxSubscribers` streams are open, or the sandbox is closing
   */
  subscribe(sink: EventSink, request: SubscribeRequest = {}): () => void {
    if (this.closed) throw new SubscriberLimitError('The sandbox is closing: it opens no more event streams');
    if (this.subscribers.size >= this.limits.maxSubscribers) {
      throw new SubscriberLimitError(`${this.limits.maxSubscribers} event streams are open, the most the sandbox serves at once: close one (a dashboard tab) and connect again`);
    }
    const subscriber: Subscriber = { sink, publicKey: request.publicKey };
    this.subscribers.add(subscriber);
    this.keepAlive ??= setInterval(() => this.beat(), this.limits.keepAliveMs).unref();
    let text = ': connected\n\n';
    if (request.lastEventId !== undefined) {
      const missed = this.buffer.since(request.lastEventId, this.lastId);
      if (missed === undefined) text += eventText({ id: this.lastId, at: this.now(), kind: 'reload' });
      else for (const event of missed) if (isFor(event, subscriber.publicKey)) text += eventText(event);
    }
    // The replay is bounded by the buffer itself, and may exceed maxPendingBytes on a slow link before the peer had a chance to read.
    sink.write(text);
    return () => this.remove(subscriber);
  }

  /**
   * Ends every stream at once and refuses new ones: for the sandbox's
   * `close()`, which must not wait for them. A stream with bytes its peer has
   * not taken is closed outright: ending it would wait for a reader that may
   * never read.
   */
  close(): void {
    this.closed = true;
    for (const subscriber of [...this.subscribers]) {
      this.remove(subscriber);
      if (subscriber.sink.pending > 0) subscriber.sink.destroy();
      else subscriber.sink.end();
    }
  }

  private send(subscriber: Subscriber, text: string): void {
    subscriber.sink.write(text);
    if (subscriber.sink.pending > this.limits.maxPendingBytes) {
      // It does not read: its events would pile up in memory. Drop it; it may reconnect with Last-Event-ID.
      this.dropped += 1;
      this.remove(subscriber);
      subscriber.sink.destroy();
    }
  }

  private beat(): void {
    for (const subscriber of [...this.subscribers]) this.send(subscriber, ': keep-alive\n\n');
  }

  private remove(subscriber: Subscriber): void {
    this.subscribers.delete(subscriber);
    if (this.subscribers.size === 0 && this.keepAlive !== undefined) {
      clearInterval(this.keepAlive);
      this.keepAlive = undefined;
    }
  }
}

// A filtered stream gets its merchant's events and those that concern every merchant.
function isFor(event: SandboxEvent, publicKey: string | undefined): boolean {
  return publicKey === undefined || event.publicKey === undefined || event.publicKey === publicKey;
}
