import seedrandom from 'seedrandom/seedrandom.js';
import { randomBytes } from 'node:crypto';
import { Agenda } from '../agenda/agenda.js';
import { MerchantClocks } from '../clock/clocks.js';
import { DEFAULT_JOURNAL_MAX_BYTES, DEFAULT_JOURNAL_SIZE } from '../defaults.js';
import type { SandboxEventInput } from '../events/shape.js';
import { GoLiveRuns } from '../go-live/run.js';
import { SandboxEvents } from '../events/source.js';
import { Journal, type JournalEntry } from '../journal/journal.js';
import type { RequestLog } from '../log/request-log.js';
import { Dispatcher } from '../notifications/dispatcher.js';
import { NotificationFaults, type NotificationFaultChange, type NotificationFaultView } from '../notifications/faults.js';
import { NotificationOutbox } from '../notifications/outbox.js';
import type { Scenario } from '../scenarios/scenario.js';
import { ScenarioEngine } from '../scenarios/engine.js';
import { OverrideBook, type Override, type OverrideChange } from '../scenarios/overrides.js';
import { ScenarioSelector } from '../scenarios/selector.js';
import { Store } from '../store/store.js';
import type { SandboxOptions } from './options.js';

/** The parts of a sandbox below its HTTP surface: the scenarios, the store and its books, the journal, the notifications and the clocks. */
export interface SandboxParts {
  seed: string;
  engine: ScenarioEngine;
  selector: ScenarioSelector;
  events: SandboxEvents;
  store: Store;
  journal: Journal;
  clocks: MerchantClocks;
  faults: NotificationFaults;
  outbox: NotificationOutbox;
  agenda: Agenda;
  /** the go-live runs: stopped before the agenda and the store */
  goLiveRuns: GoLiveRuns;
  /** real time, ISO 8601 UTC */
  now: () => string;
}

/**
 * Opens the store and makes the parts that keep and change the state, wired
 * to one another: the books' and the store's changes to the live events and,
 * on a shared store, to the other replicas (docs/decisions.md#d84-shared-store);
 * the sticky `--scenario` override.
 * @throws StoreOpenError when the store cannot be opened
 */
export async function openParts(options: SandboxOptions, scenarios: Scenario[], log: RequestLog | undefined): Promise<SandboxParts> {
  const seed = options.seed ?? randomBytes(4).toString('hex');
  const engine = new ScenarioEngine(scenarios, seedrandom(seed));
  const now = isoClock();
  const selector = new ScenarioSelector(engine, new OverrideBook());
  // The live events hear each source of change where it changes, so no writer can forget to announce one.
  const events = new SandboxEvents(now);
  const store = await Store.open({ url: options.storeUrl, file: options.dataFile, snapshotEvery: options.snapshotEvery, sync: options.sync, maxMerchants: options.maxMerchants });
  // On a shared store each replica numbers its events from its start time in microseconds: another replica's id is outside its range.
  events.numberFrom(store.eventNumberBase());
  const journal = new Journal(options.journalSize ?? DEFAULT_JOURNAL_SIZE, options.journalMaxBytes ?? DEFAULT_JOURNAL_MAX_BYTES);
  const clocks = new MerchantClocks(store);
  const faults = new NotificationFaults();
  await shareBooks(store, selector, faults, events, journal);
  if (options.scenario !== undefined) await holdScenario(store, selector, options.scenario, now);
  store.watch(events.onStoreChange);
  const outbox = new NotificationOutbox({ store, clocks, faults, engine, defaultUrl: options.webhookUrl });
  const dispatcher = new Dispatcher({ store, clocks, outbox, onAttempt: log?.attempt });
  const agenda = new Agenda({ store, clocks, engine, outbox, dispatcher });
  const goLiveRuns = new GoLiveRuns({ store, clocks, outbox, onAttempt: log?.attempt });
  return { seed, engine, selector, events, store, journal, clocks, faults, outbox, agenda, goLiveRuns, now };
}

// The books' changes go to the live events and into the unit that made them; the journal's bounded
// shared part reaches the other replicas (each a no-op where one process holds the store).
async function shareBooks(store: Store, selector: ScenarioSelector, faults: NotificationFaults, events: SandboxEvents, journal: Journal): Promise<void> {
  selector.overrides.onChange = (change) => {
    events.publish(overrideEvent(change));
    store.booksChanged();
  };
  faults.onChange = (change) => {
    events.publish(faultEvent(change));
    store.booksChanged();
  };
  store.shareBooks({
    capture: () => ({ overrides: selector.overrides.list(), faults: faults.all() }),
    apply: (books) => {
      selector.overrides.replace(books.overrides as Override[]);
      faults.replace(books.faults as NotificationFaultView[]);
    },
  });
  journal.onRecord = (entry, text) => store.sendJournal(entry.publicKey, text);
  await store.shareJournal({ capacity: journal.capacity, receive: (entry) => journal.receive(entry as unknown as JournalEntry), clear: (publicKey) => journal.clear(publicKey) });
}

// One sticky override of `--scenario`, however many replicas of a shared store start with it.
async function holdScenario(store: Store, selector: ScenarioSelector, scenario: string, now: () => string): Promise<void> {
  const held = () => selector.overrides.list().some((override) => override.publicKey === undefined && override.scenario === scenario && override.times === undefined);
  await store.transaction(() => {
    if (!held()) selector.overrides.add({ scenario }, now());
  });
}

// An override's change as a live event: the merchant it is for (none: sandbox-wide), its id.
function overrideEvent(change: OverrideChange): SandboxEventInput {
  if (!('override' in change)) return { kind: 'override', action: change.action === 'replaced' ? 'set' : 'cleared', ...(change.publicKey === undefined ? {} : { publicKey: change.publicKey }) };
  const { override } = change;
  return { kind: 'override', action: change.action, ref: override.id, ...(override.publicKey === undefined ? {} : { publicKey: override.publicKey }) };
}

// A notification fault's change as a live event.
function faultEvent(change: NotificationFaultChange): SandboxEventInput {
  if (!('fault' in change)) return { kind: 'fault', action: change.action === 'replaced' ? 'set' : 'cleared', ...(change.publicKey === undefined ? {} : { publicKey: change.publicKey }) };
  return { kind: 'fault', action: change.action, ref: change.fault.id, publicKey: change.fault.publicKey };
}

// The time in ISO 8601, formatted once per millisecond: a request reads it several times, and formatting is not free.
function isoClock(): () => string {
  let last = Number.NaN;
  let text = '';
  return () => {
    const time = Date.now();
    if (time !== last) {
      last = time;
      text = new Date(time).toISOString();
    }
    return text;
  };
}
