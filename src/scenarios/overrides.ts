import { randomUUID } from 'node:crypto';
import type { Delay, Fault } from './scenario.js';

/**
 * An override set over the control API: a scenario (and/or a delay or fault)
 * forced on the requests of one merchant or of the whole sandbox, until
 * deleted (sticky) or for the next `times` requests it applies to.
 * Overrides live in memory only (docs/decisions.md#d26-in-memory-test-session).
 */
export interface Override {
  id: string;
  /** the catalogue rule to force */
  scenario?: string;
  /** the merchant it is for; absent: every merchant */
  publicKey?: string;
  /** requests left; absent: sticky */
  times?: number;
  delay?: Delay;
  fault?: Fault;
  /** ISO 8601 UTC */
  createdAt: string;
}

/** What a new override says; at least one of scenario, delay, fault. */
export type OverrideRequest = Omit<Override, 'id' | 'createdAt'>;

/** An override in force and its place in the order they were added (1, 2, ...: a page's cursor names it). */
export interface HeldOverride {
  override: Override;
  sequence: number;
}

/** How many overrides the book keeps (README, "Bounds"). */
export interface OverrideLimits {
  /** of one merchant; the sandbox-wide ones count as one more merchant */
  perMerchant: number;
  /** of every merchant together, sandbox-wide ones included */
  total: number;
}

/** The bounds the sandbox runs with: far more than a test sets up, few enough that choosing one stays cheap. */
export const OVERRIDE_LIMITS: OverrideLimits = { perMerchant: 1000, total: 10_000 };

/**
 * A change of the book, as `OverrideBook.onChange` hears it: an override
 * added, used by a request (`times` then says what is left), removed (deleted,
 * or used up), or the overrides of one merchant (`publicKey`) or of all
 * cleared, or put in place by a snapshot (`replaced`).
 */
export type OverrideChange =
  | { action: 'added' | 'used' | 'removed'; override: Override }
  | { action: 'cleared' | 'replaced'; publicKey?: string };

/** An override the book has no room for; nothing was added. The message says which bound and what to do. */
export class OverrideLimitError extends Error {
  override name = 'OverrideLimitError';
}

/**
 * The overrides in force. A merchant's own come before the sandbox-wide ones,
 * and the newest first within each, as later test set-up is meant to win.
 * The book is bounded (OverrideLimits) and keeps each merchant's overrides
 * apart, so that choosing one for a request reads that merchant's and the
 * sandbox-wide ones only, however many others hold.
 */
export class OverrideBook {
  /** every override, by id, in the order they were added */
  private readonly held = new Map<string, HeldOverride>();
  /** each merchant's overrides (undefined: the sandbox-wide ones), oldest first */
  private readonly bySubject = new Map<string | undefined, HeldOverride[]>();
  private sequence = 0;

  /**
   * Called after each change of the book, whoever made it (the control API,
   * a request taking one, a snapshot, a reset): the one place the live
   * events learn of overrides (docs/decisions.md#d80-server-sent-events).
   * Absent: nobody listens.
   */
  onChange?: (change: OverrideChange) => void;

  /** How many changes the book has had: a reader holding a copy of it knows whether the copy is still the book's. */
  get changes(): number {
    return this.changeCount;
  }

  private changeCount = 0;

  private told(change: OverrideChange): void {
    this.changeCount += 1;
    this.onChange?.(change);
  }

  constructor(readonly limits: OverrideLimits = OVERRIDE_LIMITS) {}

  /** The overrides of one merchant (with the sandbox-wide ones when `withGlobal`), or all; oldest first, a copy. */
  list(publicKey?: string, withGlobal = false): Override[] {
    return [...this.heldOf(publicKey, withGlobal)].map((entry) => entry.override);
  }

  /**
   * The overrides listed as `list` lists them, from the one after sequence
   * number `after` on (0: from the first), with their sequence numbers: a
   * page of `GET /__sandbox/overrides` starts there.
   */
  *after(after: number, publicKey?: string, withGlobal = false): Generator<HeldOverride> {
    for (const entry of this.heldOf(publicKey, withGlobal)) if (entry.sequence > after) yield entry;
  }

  /** How many overrides `list` would list. */
  count(publicKey?: string, withGlobal = false): number {
    if (publicKey === undefined) return this.held.size;
    return (this.bySubject.get(publicKey)?.length ?? 0) + (withGlobal ? (this.bySubject.get(undefined)?.length ?? 0) : 0);
  }

  /**
   * Adds an override; returns it with its id.
   * @throws OverrideLimitError when its merchant (or the sandbox-wide ones)
   *   already has `limits.perMerchant` overrides, or the book `limits.total`
   */
  add(request: OverrideRequest, now: string): Override {
    const subject = this.bySubject.get(request.publicKey) ?? [];
    if (subject.length >= this.limits.perMerchant) {
      const whose = request.publicKey === undefined ? 'sandbox-wide overrides' : `overrides of merchant ${request.publicKey}`;
      throw new OverrideLimitError(`${this.limits.perMerchant} ${whose} are in force, the most the sandbox keeps: delete some (DELETE /__sandbox/overrides/{id}, or DELETE /__sandbox/overrides${request.publicKey === undefined ? '' : '?publicKey=...'}) or give them times`);
    }
    if (this.held.size >= this.limits.total) {
      throw new OverrideLimitError(`${this.limits.total} overrides are in force, the most the sandbox keeps: delete some (DELETE /__sandbox/overrides) or give them times`);
    }
    const override: Override = { id: randomUUID(), ...request, createdAt: now };
    const entry = { override, sequence: (this.sequence += 1) };
    this.held.set(override.id, entry);
    subject.push(entry);
    this.bySubject.set(request.publicKey, subject);
    this.told({ action: 'added', override });
    return override;
  }

  /**
   * Puts `overrides` in place of every override, or of one merchant's
   * (`publicKey`: the sandbox-wide ones and other merchants' stay), each
   * with its id, `createdAt` and the `times` it has left, in the order given
   * (oldest first): how a snapshot brings back the overrides it holds.
   * @throws OverrideLimitError, before anything changes, when they would not fit the book's limits
   */
  replace(overrides: readonly Override[], publicKey?: string): void {
    const counts = new Map<string | undefined, number>();
    for (const override of overrides) counts.set(override.publicKey, (counts.get(override.publicKey) ?? 0) + 1);
    const most = Math.max(0, ...counts.values());
    const total = overrides.length + (publicKey === undefined ? 0 : this.held.size - (this.bySubject.get(publicKey)?.length ?? 0));
    if (most > this.limits.perMerchant || total > this.limits.total) {
      throw new OverrideLimitError(`the overrides do not fit: at most ${this.limits.perMerchant} of one merchant and ${this.limits.total} in all`);
    }
    this.clearQuietly(publicKey);
    for (const override of overrides) {
      const entry = { override: { ...override }, sequence: (this.sequence += 1) };
      this.held.set(override.id, entry);
      const subject = this.bySubject.get(override.publicKey) ?? [];
      subject.push(entry);
      this.bySubject.set(override.publicKey, subject);
    }
    this.told(publicKey === undefined ? { action: 'replaced' } : { action: 'replaced', publicKey });
  }

  /** Removes one override; false when there is none with that id. */
  remove(id: string): boolean {
    const entry = this.held.get(id);
    if (!entry) return false;
    this.held.delete(id);
    const subject = this.bySubject.get(entry.override.publicKey)!;
    subject.splice(subject.lastIndexOf(entry), 1);
    if (subject.length === 0) this.bySubject.delete(entry.override.publicKey);
    this.told({ action: 'removed', override: entry.override });
    return true;
  }

  /** Removes the overrides of one merchant, or all of them. */
  clear(publicKey?: string): void {
    this.clearQuietly(publicKey);
    this.told(publicKey === undefined ? { action: 'cleared' } : { action: 'cleared', publicKey });
  }

  private clearQuietly(publicKey: string | undefined): void {
    if (publicKey === undefined) {
      this.held.clear();
      this.bySubject.clear();
      return;
    }
    for (const entry of this.bySubject.get(publicKey) ?? []) this.held.delete(entry.override.id);
    this.bySubject.delete(publicKey);
  }

  /**
   * The override that applies to a request, counted as used: the merchant's
   * newest first, then the sandbox-wide newest first. `applies` says whether
   * an override can act on this request (its scenario fits the operation, its
   * probability came up).
   */
  take(publicKey: string | undefined, applies: (override: Override) => boolean): Override | undefined {
    const chosen = (publicKey === undefined ? undefined : newestThat(this.bySubject.get(publicKey), applies)) ?? newestThat(this.bySubject.get(undefined), applies);
    if (chosen?.times !== undefined) chosen.times -= 1;
    if (chosen) this.told({ action: 'used', override: chosen });
    if (chosen?.times === 0) this.remove(chosen.id);
    return chosen;
  }

  // Oldest first: every override, or a merchant's own (and the sandbox-wide ones), merged in the order they were added.
  private heldOf(publicKey: string | undefined, withGlobal: boolean): Iterable<HeldOverride> {
    if (publicKey === undefined) return this.held.values();
    const own = this.bySubject.get(publicKey) ?? [];
    const global = withGlobal ? (this.bySubject.get(undefined) ?? []) : [];
    return global.length === 0 ? own : merged(own, global);
  }
}

function newestThat(entries: readonly HeldOverride[] | undefined, applies: (override: Override) => boolean): Override | undefined {
  if (!entries) return undefined;
  for (let at = entries.length - 1; at >= 0; at -= 1) if (applies(entries[at]!.override)) return entries[at]!.override;
  return undefined;
}

function* merged(a: readonly HeldOverride[], b: readonly HeldOverride[]): Generator<HeldOverride> {
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i]!.sequence < b[j]!.sequence)) yield a[i++]!;
    else yield b[j++]!;
  }
}
