import type { Store } from '../store/store.js';

/**
 * Each merchant's clock (README, "Time"): real time plus an offset that
 * only moves forward, kept in the store so that it survives a restart.
 * A test advances its own merchant's clock; the others' do not move, as
 * Stripe's test clocks belong to one customer for the same reason.
 */
export class MerchantClocks {
  // The last time formatted, and its text: a request reads the time several times within one millisecond, and formatting is not free.
  private formattedMs = Number.NaN;
  private formatted = '';

  /** @param realNow real time in epoch milliseconds (a test may pass its own) */
  constructor(
    private readonly store: Store,
    private readonly realNow: () => number = Date.now,
  ) {}

  /** The merchant's time in epoch milliseconds. */
  nowMs(publicKey: string): number {
    return this.realNow() + this.offsetMs(publicKey);
  }

  /** The merchant's time as ISO 8601 UTC: what its payments' createdAt and updatedAt, and its notifications, carry. */
  now(publicKey: string): string {
    const ms = this.nowMs(publicKey);
    if (ms !== this.formattedMs) {
      this.formattedMs = ms;
      this.formatted = new Date(ms).toISOString();
    }
    return this.formatted;
  }

  /** How far the merchant's clock runs ahead of real time, in milliseconds. */
  offsetMs(publicKey: string): number {
    return this.store.clock(publicKey)?.offsetMs ?? 0;
  }

  /**
   * The real time (epoch ms) at which the merchant's clock shows `merchantMs`.
   */
  realTimeOf(publicKey: string, merchantMs: number): number {
    return merchantMs - this.offsetMs(publicKey);
  }

  /**
   * Moves the merchant's clock to show `merchantMs` (epoch ms) at real time
   * `realMs` (default now), stored with the next commit; a time at or before
   * its `now` changes nothing, as a clock never goes back.
   * @returns true when the clock moved
   * @throws StoreUnavailableError while the store cannot write
   */
  moveTo(publicKey: string, merchantMs: number, realMs = this.realNow()): boolean {
    const offsetMs = Math.round(merchantMs - realMs);
    if (offsetMs <= this.offsetMs(publicKey)) return false;
    this.store.putClock({ publicKey, offsetMs });
    return true;
  }
}
