import { randomUUID } from 'node:crypto';
import type { Delay, Fault } from './scenario.js';

/**
 * An override set over the control API: a scenario (and/or a delay or fault)
 * forced on the requests of one merchant or of the whole sandbox, until
 * deleted (sticky) or for the next `times` requests it applies to.
 * Overrides live in memory only (README, "Where the spec is silent").
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

/**
 * The overrides in force. A merchant's own come before the sandbox-wide ones,
 * and the newest first within each, as later test set-up is meant to win.
 */
export class OverrideBook {
  private overrides: Override[] = [];

  /** The overrides of one merchant (with the sandbox-wide ones when `withGlobal`), or all. */
  list(publicKey?: string, withGlobal = false): Override[] {
    if (publicKey === undefined) return [...this.overrides];
    return this.overrides.filter((override) => override.publicKey === publicKey || (withGlobal && override.publicKey === undefined));
  }

  /** Adds an override; returns it with its id. */
  add(request: OverrideRequest, now: string): Override {
    const override: Override = { id: randomUUID(), ...request, createdAt: now };
    this.overrides.push(override);
    return override;
  }

  /** Removes one override; false when there is none with that id. */
  remove(id: string): boolean {
    const before = this.overrides.length;
    this.overrides = this.overrides.filter((override) => override.id !== id);
    return this.overrides.length !== before;
  }

  /** Removes the overrides of one merchant, or all of them. */
  clear(publicKey?: string): void {
    this.overrides = publicKey === undefined ? [] : this.overrides.filter((override) => override.publicKey !== publicKey);
  }

  /**
   * The override that applies to a request, counted as used: the merchant's
   * newest first, then the sandbox-wide newest first. `applies` says whether
   * an override can act on this request (its scenario fits the operation, its
   * probability came up).
   */
  take(publicKey: string | undefined, applies: (override: Override) => boolean): Override | undefined {
    const mine = publicKey === undefined ? [] : this.overrides.filter((override) => override.publicKey === publicKey);
    const global = this.overrides.filter((override) => override.publicKey === undefined);
    const chosen = [...mine.reverse(), ...global.reverse()].find(applies);
    if (chosen?.times !== undefined) {
      chosen.times -= 1;
      if (chosen.times === 0) this.remove(chosen.id);
    }
    return chosen;
  }
}

