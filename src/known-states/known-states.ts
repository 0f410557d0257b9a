import { OwnChanges, type MerchantRecord, type RecordKey, type SnapshotRecords } from '../store/store.js';
import { AlreadyHeld, FixturesError, runSteps, type FixtureRunnerDependencies, type FixturesDocument, type FixturesResult } from './fixtures.js';
import { restartFacts } from '../go-live/facts.js';
import { OwnBooks } from './own-books.js';
import { cardProblem, recordsAsLoaded } from './loaded-records.js';
import { putState, takeState, type SandboxState, type StateParts } from './state.js';
import { OverrideLimitError, type Override } from '../scenarios/overrides.js';
import type { NotificationFaultView } from '../notifications/faults.js';

/** A snapshot document as `GET /__sandbox/snapshot` writes it (openapi/control-api.yaml, Snapshot): the store file's format, version 3, with overrides and faults. */
export interface SnapshotDocument extends SnapshotRecords {
  version: 3;
  takenAt?: string;
  publicKey?: string;
  overrides?: Override[];
  faults?: NotificationFaultView[];
}

/** What known states need beside the state itself. */
export interface KnownStatesDependencies extends StateParts, Omit<FixtureRunnerDependencies, 'hasPayment'> {
  /** forgets the journal entries of one merchant, or all, as a reset does: called in a unit of work, so that on a shared store every replica forgets them */
  clearJournal: (publicKey?: string) => void;
  /** is this a scenario of the catalogue? an override of a snapshot must name one */
  isScenario: (name: string) => boolean;
}

/** A snapshot that cannot be loaded as it is; nothing changed. The message names the field. */
export class SnapshotError extends Error {
  override name = 'SnapshotError';
}

/**
 * One merchant's baseline that cannot be put back: it holds a linkingReference
 * or delivery id that another merchant's record holds now (a state loaded
 * since gave it one; src/store/unique-keys.ts). Nothing changed. The message
 * names the record and the field.
 */
export class ResetError extends Error {
  override name = 'ResetError';
}

/**
 * Known states (README, "Known states"): fixtures loaded, snapshots taken
 * and loaded, and the baseline a reset returns to. Loads and resets are
 * carried out one at a time, in the order they came; reads are not held up.
 */
export class KnownStates {
  private baseline: SandboxState | undefined;
  // Start-up fixtures that ran over what the store already held: the baseline is made from them, on an empty state, at the first reset.
  private remake: { documents: readonly FixturesDocument[]; overrides: Override[] } | undefined;
  private last: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: KnownStatesDependencies) {}

  /**
   * Runs a fixtures document, all or nothing for its own changes: when a
   * step fails, what the load changed is put back as it was before its
   * first step, in one change of the store; what other clients changed
   * meanwhile stays, and so does a change of the load's they changed since,
   * which the error names (docs/decisions.md#d76-fixtures).
   * @returns the steps' outcomes; `alreadyLoaded` (nothing changed) when the first step refused
   *   collides with a payment the sandbox held before the load
   * @throws FixturesError naming the step; StoreUnavailableError when the store cannot write
   */
  loadFixtures(document: FixturesDocument): Promise<FixturesResult> {
    return this.exclusive(() => this.runDocument(document));
  }

  private async runDocument(document: FixturesDocument): Promise<FixturesResult> {
    const books = new OwnBooks(this.deps);
    const own = new OwnChanges(books);
    // Each step's units, and only they, are the load's: other clients' requests run between them and are theirs.
    const send: FixtureRunnerDependencies['send'] = (request) => this.deps.store.recordOwn(own, () => this.deps.send(request));
    try {
      const result = await runSteps(document, { send, controlToken: this.deps.controlToken, wholeState: this.deps.wholeState, hasPayment: (key, reference) => this.deps.store.payment(key, reference) !== undefined });
      // A known state is where the integration's tests begin: the go-live report of each merchant the load wrote for starts after it
      // (docs/decisions.md#d87-go-live-report).
      const merchants = new Set(own.list().map((record) => record.key.publicKey));
      for (const publicKey of merchants) await restartFacts(this.deps.store, publicKey, new Date().toISOString());
      return result;
    } catch (error) {
      const kept = await this.takeBack(own, books);
      if (error instanceof AlreadyHeld) return { loaded: false, alreadyLoaded: true, message: error.message, steps: [], bound: [] };
      if (error instanceof FixturesError && kept.length > 0) error.message += `; the load's own changes were taken back, but for ${keptText(kept)}, which others changed since and keep as they are`;
      throw error;
    }
  }

  // The load's own changes taken back, in one change of the store, computed in the unit itself: on a shared store, after every other replica's.
  private async takeBack(own: OwnChanges, books: OwnBooks): Promise<string[]> {
    if (own.list().length === 0 && books.untouched) return [];
    let kept: string[] = [];
    await putState(this.deps, () => {
      const records = this.deps.store.withoutOwn(own);
      const back = books.withoutOwn();
      kept = [...records.kept.map(recordName), ...back.kept];
      return { records: records.records, overrides: back.overrides, faults: back.faults };
    });
    return kept;
  }

  /**
   * The state now, of every merchant or of one, as a snapshot's parts
   * (write them out with snapshotChunks): taken at once, nothing copied.
   */
  take(publicKey?: string): SandboxState {
    return takeState(this.deps, publicKey);
  }

  /**
   * Replaces the state of every merchant, or of one (`publicKey`), with a
   * snapshot, checked whole before anything changes, in one change of the store.
   * @returns how many payments the state it loaded holds
   * @throws SnapshotError naming the field (a record another merchant's, an
   *   override of an unknown scenario, a record that breaks the store's
   *   schema); StoreUnavailableError when the store cannot write
   */
  loadSnapshot(document: SnapshotDocument, publicKey?: string): Promise<number> {
    return this.exclusive(async () => {
      const state = this.stateOf(document, publicKey);
      try {
        await putState(this.deps, state);
      } catch (error) {
        if (error instanceof TypeError || error instanceof RangeError || error instanceof OverrideLimitError) {
          throw new SnapshotError(`the snapshot cannot be loaded: ${(error as Error).message.replace(/^the \w+ cannot be stored: /, '')}`);
        }
        throw error;
      }
      return state.records.payments.length;
    });
  }

  /**
   * Takes the state now as the baseline a reset returns to: once the
   * start-up's snapshot and fixtures are loaded on an empty state, or
   * over the state a `--snapshot` replaced (docs/decisions.md#d85-reset-returns-to-the-start-files).
   */
  keepBaseline(): void {
    this.baseline = takeState(this.deps);
    this.remake = undefined;
  }

  /**
   * The start-up's fixtures ran over what the store file already held, so
   * the state now is not the baseline: the first reset makes it by running
   * `documents` again on an empty state (the start's sandbox-wide
   * `overrides` kept, as `--scenario`'s), then puts the rest back
   * (docs/decisions.md#d85-reset-returns-to-the-start-files).
   */
  keepBaselineOf(documents: readonly FixturesDocument[], overrides: readonly Override[]): void {
    this.baseline = undefined;
    this.remake = { documents, overrides: overrides.filter((override) => override.publicKey === undefined).map((override) => ({ ...override })) };
  }

  /**
   * Returns every merchant, or one, to the baseline: the state the
   * start-up's `--snapshot`, then `--fixtures`, make from nothing; or to
   * nothing with `toEmpty`, or when the sandbox started with neither
   * (docs/decisions.md#d85-reset-returns-to-the-start-files). Journal
   * entries of those merchants go either way.
   * @returns what it reset to
   * @throws StoreUnavailableError when the store cannot write; FixturesError
   *   when start-up fixtures to be run again no longer load (the state is as it was);
   *   ResetError when the merchant's baseline holds a key another merchant's record holds now
   */
  reset(publicKey: string | undefined, toEmpty: boolean): Promise<'baseline' | 'empty'> {
    return this.exclusive(async () => {
      if (!toEmpty && this.remake) await this.makeBaseline(this.remake);
      const { store, overrides, faults } = this.deps;
      const baseline = toEmpty ? undefined : this.baseline;
      const heldThere = publicKey === undefined || baseline?.records.merchants.some((merchant) => merchant.publicKey === publicKey);
      if (!baseline || !heldThere) {
        await store.transaction(() => {
          store.reset(publicKey);
          overrides.clear(publicKey);
          faults.clear(publicKey);
          this.deps.clearJournal(publicKey);
        });
        return 'empty';
      }
      try {
        await putState(this.deps, publicKey === undefined ? this.withStrangers(baseline) : merchantPart(baseline, publicKey));
      } catch (error) {
        // A whole baseline is consistent in itself; one merchant's part meets the others' records as they are now.
        if (publicKey === undefined || !(error instanceof TypeError)) throw error;
        throw new ResetError(`the merchant ${publicKey} cannot be reset to the baseline: ${error.message.replace(/^the \w+ cannot be stored: /, '')}; reset every merchant, or this one with to=empty`);
      }
      await store.transaction(() => this.deps.clearJournal(publicKey));
      return 'baseline';
    });
  }

  // The start files' state, made from nothing; then the store's own state back, which the reset that asked for it replaces in part or whole.
  private async makeBaseline(remake: { documents: readonly FixturesDocument[]; overrides: Override[] }): Promise<void> {
    const held = takeState(this.deps);
    const nothing: SandboxState = { records: { merchants: [], payments: [], orders: [], webhooks: [], clocks: [], deliveries: [] }, overrides: remake.overrides, faults: [] };
    await putState(this.deps, nothing);
    try {
      for (const document of remake.documents) await this.runDocument(document);
      this.baseline = takeState(this.deps);
      this.remake = undefined;
    } finally {
      await putState(this.deps, held);
    }
  }

  // Merchants the baseline does not hold stay known, released, with their notification URLs, as a reset to empty keeps them.
  private withStrangers(baseline: SandboxState): SandboxState {
    const known = new Set(baseline.records.merchants.map((merchant) => merchant.publicKey));
    const strangers: MerchantRecord[] = this.deps.store.merchants().filter((merchant) => !known.has(merchant.publicKey)).map((merchant) => ({ ...merchant, released: true }));
    const webhooks = this.deps.store.webhooks().filter((webhook) => !known.has(webhook.publicKey));
    const { records } = baseline;
    return { ...baseline, records: { ...records, merchants: [...records.merchants, ...strangers], webhooks: [...records.webhooks, ...webhooks] } };
  }

  private stateOf(document: SnapshotDocument, publicKey: string | undefined): SandboxState {
    const overrides = document.overrides ?? [];
    const faults = document.faults ?? [];
    for (const [index, override] of overrides.entries()) {
      if (override.scenario !== undefined && !this.deps.isScenario(override.scenario)) {
        throw new SnapshotError(`the snapshot cannot be loaded: /overrides/${index}/scenario names no scenario of the catalogue (${override.scenario})`);
      }
      if (publicKey !== undefined && override.publicKey !== publicKey) {
        throw new SnapshotError(`the snapshot cannot be loaded: /overrides/${index}/publicKey is not the merchant ${publicKey} the snapshot is loaded for`);
      }
    }
    for (const [index, fault] of faults.entries()) {
      if (publicKey !== undefined && fault.publicKey !== publicKey) {
        throw new SnapshotError(`the snapshot cannot be loaded: /faults/${index}/publicKey is not the merchant ${publicKey} the snapshot is loaded for`);
      }
    }
    const { merchants, payments, orders, webhooks, clocks, deliveries } = document;
    const card = cardProblem({ merchants, payments, orders, webhooks, clocks, deliveries });
    if (card) throw new SnapshotError(`the snapshot cannot be loaded: ${card}`);
    // Card numbers a file gave are masked as they enter the store, and its card tokens made again (docs/decisions.md#d86-one-redaction-rule).
    const state = { records: recordsAsLoaded({ merchants, payments, orders, webhooks, clocks, deliveries }), overrides, faults };
    return publicKey === undefined ? state : { publicKey, ...state };
  }

  private exclusive<T>(run: () => Promise<T>): Promise<T> {
    const next = this.last.catch(() => undefined).then(run);
    this.last = next;
    return next;
  }
}

/** One merchant's part of a state. */
function merchantPart(state: SandboxState, publicKey: string): SandboxState {
  const mine = <T extends { publicKey?: string }>(rows: readonly T[]) => rows.filter((row) => row.publicKey === publicKey);
  const { records } = state;
  return {
    publicKey,
    records: {
      merchants: mine(records.merchants), payments: mine(records.payments), orders: mine(records.orders),
      webhooks: mine(records.webhooks), clocks: mine(records.clocks), deliveries: mine(records.deliveries),
    },
    overrides: mine(state.overrides),
    faults: mine(state.faults),
  };
}

/** A record as a message names it. */
function recordName(key: RecordKey): string {
  switch (key.table) {
    case 'merchant':
      return `merchant ${key.publicKey}`;
    case 'webhook':
      return `the notification URL of ${key.publicKey}`;
    case 'clock':
      return `the clock of ${key.publicKey}`;
    case 'payment':
    case 'order':
      return `${key.table} ${key.paymentReference} of ${key.publicKey}`;
    case 'delivery':
      return `delivery ${key.id}`;
  }
}

/** The first few of what a take-back kept, and how many more. */
function keptText(kept: readonly string[]): string {
  const named = kept.slice(0, 5).join(', ');
  return kept.length > 5 ? `${named} and ${kept.length - 5} more` : named;
}
