/**
 * The replay buffer of the event stream (docs/decisions.md#d80-server-sent-events):
 * the last `capacity` events, each with its sequence id, oldest first, so a
 * client that reconnects with `Last-Event-ID` gets what it missed.
 */
export class EventBuffer<T extends { id: number }> {
  private readonly ring: Array<T | undefined>;
  private start = 0;
  private size = 0;

  /** @throws RangeError when `capacity` is not a whole number of at least 1 */
  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`an event buffer holds at least 1 event, not ${capacity}`);
    this.ring = new Array<T | undefined>(capacity);
  }

  /** How many events it holds (at most `capacity`). */
  get length(): number {
    return this.size;
  }

  /** Keeps `event`, the oldest one dropped when full. Ids must grow from one event to the next. */
  push(event: T): void {
    if (this.size < this.capacity) {
      this.ring[(this.start + this.size) % this.capacity] = event;
      this.size += 1;
      return;
    }
    this.ring[this.start] = event;
    this.start = (this.start + 1) % this.capacity;
  }

  /**
   * The events after id `after`, oldest first; `undefined` when some of them
   * are no longer held (the oldest held comes later than `after + 1`), or
   * when `after` is no whole number from 0 to the newest id given (an id of
   * another run, or none at all): the client must then reload instead.
   * @param newest the last id handed out, 0 when none
   */
  since(after: number, newest: number): T[] | undefined {
    if (!Number.isSafeInteger(after) || after < 0 || after > newest) return undefined;
    const oldest = this.size === 0 ? newest + 1 : this.ring[this.start]!.id;
    if (after + 1 < oldest) return undefined;
    const found: T[] = [];
    for (let at = 0; at < this.size; at += 1) {
      const event = this.ring[(this.start + at) % this.capacity]!;
      if (event.id > after) found.push(event);
    }
    return found;
  }
}
