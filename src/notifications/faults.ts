import { randomBytes } from 'node:crypto';
import type { DeliveryFault, NotificationFaultKind } from '../model/notifications.js';

/**
 * Faults for notifications set over the control API (README, "Notification
 * faults"), as overrides are for requests: per merchant, the oldest first,
 * each for the next `times` events (absent: sticky). Kept in memory, like
 * overrides: a restart clears them.
 */

/** A fault as set: what it does and for how many events. */
export interface NotificationFaultRequest extends DeliveryFault {
  /** the next events it applies to; absent: every event until it is removed */
  times?: number;
}

/** A fault as listed: its id, its merchant and what is left of it. */
export interface NotificationFaultView extends NotificationFaultRequest {
  id: string;
  publicKey: string;
  kind: NotificationFaultKind;
}

/**
 * A change of the faults, as `NotificationFaults.onChange` hears it: one set
 * (`added`), one used by an event (`used`), or a merchant's or every
 * merchant's cleared, or put in place by a snapshot (`replaced`).
 */
export type NotificationFaultChange =
  | { action: 'added' | 'used'; fault: NotificationFaultView }
  | { action: 'cleared' | 'replaced'; publicKey?: string };

/** The faults of every merchant. */
export class NotificationFaults {
  private readonly faults = new Map<string, NotificationFaultView[]>();

  /**
   * Called after each change of the faults, whoever made it (the control
   * API, the outbox taking one, a snapshot, a reset): the one place the live
   * events learn of them (docs/decisions.md#d80-server-sent-events). Absent: nobody listens.
   */
  onChange?: (change: NotificationFaultChange) => void;

  /** How many changes the faults have had: a reader holding a copy of them knows whether the copy is still theirs. */
  get changes(): number {
    return this.changeCount;
  }

  private changeCount = 0;

  private told(change: NotificationFaultChange): void {
    this.changeCount += 1;
    this.onChange?.(change);
  }

  /** Sets a fault for the merchant's next events. @returns the fault as listed */
  add(publicKey: string, request: NotificationFaultRequest): NotificationFaultView {
    const fault: NotificationFaultView = { ...request, id: `nft_${randomBytes(6).toString('hex')}`, publicKey };
    const list = this.faults.get(publicKey) ?? [];
    list.push(fault);
    this.faults.set(publicKey, list);
    this.told({ action: 'added', fault: { ...fault } });
    return { ...fault };
  }

  /** The merchant's faults, oldest first, as copies. */
  list(publicKey: string): NotificationFaultView[] {
    return (this.faults.get(publicKey) ?? []).map((fault) => ({ ...fault }));
  }

  /** Every merchant's faults, or one's, each merchant's oldest first, as copies. */
  all(publicKey?: string): NotificationFaultView[] {
    if (publicKey !== undefined) return this.list(publicKey);
    return [...this.faults.values()].flat().map((fault) => ({ ...fault }));
  }

  /**
   * Puts `faults` in place of every merchant's, or of one merchant's
   * (`publicKey`), with their ids and what is left of them, each merchant's
   * in the order given: how a snapshot brings back the faults it holds.
   */
  replace(faults: readonly NotificationFaultView[], publicKey?: string): void {
    this.clearQuietly(publicKey);
    for (const fault of faults) {
      const list = this.faults.get(fault.publicKey) ?? [];
      list.push({ ...fault });
      this.faults.set(fault.publicKey, list);
    }
    this.told(publicKey === undefined ? { action: 'replaced' } : { action: 'replaced', publicKey });
  }

  /** Removes the merchant's faults, or every merchant's. */
  clear(publicKey?: string): void {
    this.clearQuietly(publicKey);
    this.told(publicKey === undefined ? { action: 'cleared' } : { action: 'cleared', publicKey });
  }

  private clearQuietly(publicKey: string | undefined): void {
    if (publicKey === undefined) this.faults.clear();
    else this.faults.delete(publicKey);
  }

  /**
   * The fault for the merchant's next event, used up by one when it has `times`.
   * @returns the delivery's fault, or undefined when none is set
   */
  take(publicKey: string): DeliveryFault | undefined {
    const list = this.faults.get(publicKey);
    const fault = list?.[0];
    if (!list || !fault) return undefined;
    if (fault.times !== undefined) {
      fault.times -= 1;
      if (fault.times <= 0) list.shift();
      if (list.length === 0) this.faults.delete(publicKey);
    }
    this.told({ action: 'used', fault: { ...fault } });
    const { kind, delay, status, attempts } = fault;
    return { kind, ...(delay !== undefined ? { delay } : {}), ...(status !== undefined ? { status } : {}), ...(attempts !== undefined ? { attempts } : {}) };
  }
}
