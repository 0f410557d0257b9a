import type { HttpOperation } from '../validation/operations.js';
import type { ControlCore } from '../control/core.js';
import type { AllowedHosts } from '../guards/host.js';
import { createApp, type SandboxApp } from '../http/app.js';
import { HungConnections } from '../http/faults.js';
import { KnownStates } from '../known-states/known-states.js';
import type { RequestLog } from '../log/request-log.js';
import type { SandboxParts } from './parts.js';
import type { SandboxOptions } from './options.js';

/** The sandbox's HTTP surface, with what serves known states through it. */
export interface SandboxSurface extends SandboxApp {
  knownStates: KnownStates;
  /** the connections held open by `hang`, released at close */
  hung: HungConnections;
}

/** What the surface reads of the start that is known only once the sandbox listens. */
export interface Where {
  /** the origin it listens on (or names itself by) */
  url: string;
  /** the base of its links */
  publicUrl: string;
  /** `ok` once the sandbox serves */
  state: 'starting' | 'ok' | 'stopping';
}

/** The documents the surface serves and validates against, and their files. */
export interface SurfaceDocuments {
  operations: HttpOperation[];
  controls: HttpOperation[];
  files: { 'payments-api': string; 'control-api': string };
}

/**
 * Makes both APIs, the pages and known states over the parts: fixtures
 * steps are requests like any other, served in process by the surface's own
 * `handle()`, and a step is refused when the control core routes its path to
 * an operation that replaces the state as a whole (docs/decisions.md#d76-fixtures).
 */
export function httpSurface(options: SandboxOptions, documents: SurfaceDocuments, parts: SandboxParts, log: RequestLog | undefined, allowedHosts: AllowedHosts, where: Where): SandboxSurface {
  const { store, selector, journal, clocks, outbox, agenda, faults, events, engine, goLiveRuns, now } = parts;
  let surface: SandboxApp | undefined;
  const knownStates = new KnownStates({
    store, overrides: selector.overrides, faults, controlToken: options.controlToken,
    send: (request) => surface!.handle(request),
    wholeState: (_method, path) => wholeState(surface!.control, path),
    clearJournal: (publicKey) => {
      journal.clear(publicKey);
      store.journalCleared(publicKey);
    },
    isScenario: (name) => engine.find(name) !== undefined,
  });
  const hung = new HungConnections();
  surface = createApp({
    operations: documents.operations,
    controlOperations: documents.controls,
    store,
    dataFile: options.dataFile,
    selector,
    journal,
    hung,
    now,
    clocks,
    outbox,
    notifications: { store, clocks, agenda, outbox, faults, goLiveRuns },
    knownStates,
    events,
    strict: options.strict ?? false,
    state: () => where.state,
    allowedHosts,
    controlToken: options.controlToken,
    cors: options.cors ?? false,
    log,
    documents: documents.files,
    publicUrl: () => where.publicUrl,
    host: () => new URL(where.url).host,
    links: {
      authenticate: (linkingReference) => `${where.publicUrl}/pages/authenticate/${encodeURIComponent(linkingReference)}`,
      checkout: (linkingReference) => `${where.publicUrl}/pages/checkout/${encodeURIComponent(linkingReference)}`,
    },
  });
  return { ...surface, knownStates, hung };
}

// Whether a control step's path (below the control base) is, as the control core routes it, that of an operation
// that replaces the state as a whole, whatever the step's method; a path it cannot decode is refused by the core itself.
function wholeState(control: ControlCore, path: string): boolean {
  try {
    return control.operationsAt(path.split(/[?#]/)[0]!).some((routed) => routed.entry.wholeState);
  } catch {
    return false;
  }
}
