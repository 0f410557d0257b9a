import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import { fileURLToPath } from 'node:url';
import type { Express } from 'express';
import seedrandom from 'seedrandom/seedrandom.js';
import { createApp, API_BASE } from './http/app.js';
import { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MAX_CONNECTIONS, reapConnections, tolerateTrailingBytes } from './http/client-errors.js';
import { HungConnections } from './http/faults.js';
import type { SandboxAnswer, SandboxRequest } from './http/handle.js';
import type { ControlCore } from './control/core.js';
import { requestLog, type LogFormat, type LogLevel } from './log/request-log.js';
import { Journal, type JournalEntry } from './journal/journal.js';
import { DEFAULT_JOURNAL_MAX_BYTES, DEFAULT_JOURNAL_SIZE } from './defaults.js';
import { AllowedHosts } from './guards/host.js';
import { loadCatalogue, SHIPPED_SCENARIOS } from './scenarios/catalogue.js';
import { ScenarioEngine } from './scenarios/engine.js';
import { OverrideBook, type Override, type OverrideChange } from './scenarios/overrides.js';
import { ScenarioSelector } from './scenarios/selector.js';
import { Store, type SyncLevel } from './store/store.js';
import { loadOperations, type HttpOperation } from './validation/operations.js';
import { newTestKeyPair, type KeyPair } from './domain/merchants.js';
import type { TlsListeners } from './tls/listeners.js';
import { Agenda } from './agenda/agenda.js';
import { MerchantClocks } from './clock/clocks.js';
import { Dispatcher } from './notifications/dispatcher.js';
import { NotificationFaults, type NotificationFaultChange, type NotificationFaultView } from './notifications/faults.js';
import { SandboxEvents } from './events/source.js';
import type { SandboxEventInput } from './events/shape.js';
import { NotificationOutbox } from './notifications/outbox.js';
import { isHttpUrl, SandboxWebhooks } from './notifications/webhooks.js';
import { KnownStates } from './known-states/known-states.js';
import { loadStartFiles } from './known-states/files.js';

/** The OpenAPI document of the Payments API, shipped in openapi/. */
export const PAYMENTS_API_DOCUMENT = fileURLToPath(new URL('../openapi/payments-api.yaml', import.meta.url));

/** The OpenAPI document of the control API under /__sandbox, shipped in openapi/. */
export const CONTROL_API_DOCUMENT = fileURLToPath(new URL('../openapi/control-api.yaml', import.meta.url));

/** The hosts that mean "listen on every interface": links cannot name them (README, "Configuration"). */
export const EVERY_INTERFACE = new Set(['0.0.0.0', '::', '[::]']);

/** How many requests the journal keeps when `journalSize` is not given, and its memory bound when `journalMaxBytes` is not (32 MiB, `--journal-max-mb 32`). */
export { DEFAULT_JOURNAL_MAX_BYTES, DEFAULT_JOURNAL_SIZE };

/** How long a connection may stay silent before its first request (30 s), and how many each listener holds open at once (2000), unless `idleTimeoutMs` and `maxConnections` say otherwise (README, "Security"). */
export { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MAX_CONNECTIONS };

/** The origin of a sandbox started with `listen: false` and no `publicUrl`: the CLI's default address, named by its links and accepted as a Host. */
export const SOCKETLESS_URL = 'http://127.0.0.1:4010';

/** How to start a sandbox. Every field is optional. */
export interface SandboxOptions {
  /** false: open no server at all (no HTTP, HTTPS or proxy listener), serve only `Sandbox.handle()`; `url` is then `publicUrl`, or SOCKETLESS_URL. Default true */
  listen?: boolean;
  /** TCP port; 0 (the default) picks a free one */
  port?: number;
  /** interface to listen on; default 127.0.0.1 */
  host?: string;
  /** the JSON store file; absent: memory only */
  dataFile?: string;
  /** the base URL that redirectLink and redirectUrl use; default the address listened on */
  publicUrl?: string;
  /** folders of extra scenario files, tried after the shipped catalogue */
  scenarioFolders?: string[];
  /** the fewest logged changes before the log is folded into a new snapshot of the store file: it is folded once it holds as many changes as the snapshot holds records, and at least this many; default 10 000 */
  snapshotEvery?: number;
  /** when a change on disk is fdatasync'd (`--sync`; README, "Durability levels"): `normal` (the default) within a second, `full` before its answer */
  sync?: SyncLevel;
  /** requests the journal keeps; default DEFAULT_JOURNAL_SIZE */
  journalSize?: number;
  /** bytes the journal's entries may take together, the oldest dropped beyond it; default DEFAULT_JOURNAL_MAX_BYTES (32 MiB) */
  journalMaxBytes?: number;
  /** Host names answered beside the loopback ones, `publicUrl`'s host, `host` and `tlsHosts` (`--allowed-host`) */
  allowedHosts?: string[];
  /** what the request log writes on stdout (`--log-level`): default `silent` here, `info` from the CLI */
  logLevel?: LogLevel;
  /** how it writes it (`--log-format`): `pretty`, one line for a person (the default), or `json` */
  logFormat?: LogFormat;
  /** where the log goes; default stdout */
  logDestination?: NodeJS.WritableStream;
  /** answer browser clients of any origin on the Payments API: preflights, and Access-Control-Allow-Origin (`--cors`); off by default */
  cors?: boolean;
  /** a bearer token every control API request but /__sandbox/health must carry (`--control-token`) */
  controlToken?: string;
  /** seed of the random draws (probabilistic rules, ranged delays); default a random one, shown in `Sandbox.seed` */
  seed?: string;
  /** a rule forced on every request it applies to, as a sticky sandbox-wide override (`--scenario`) */
  scenario?: string;
  /** refuse what the provider's clients send beyond the spec's types (numbers for strings, nulls, ...) with 400 INPUT, instead of accepting it with a warning (`--strict`) */
  strict?: boolean;
  /** HTTPS port (0: a free one), serving the same app with a certificate from the local CA; absent: no HTTPS unless `proxyPort` */
  httpsPort?: number;
  /** forward proxy port (0: a free one) that takes clients to the sandbox for the `tlsHosts` names; starts HTTPS too */
  proxyPort?: number;
  /** host names the HTTPS certificate covers beside localhost, 127.0.0.1 and ::1, and the only ones the proxy reaches */
  tlsHosts?: string[];
  /** the local CA folder; default `$XDG_DATA_HOME/payments-sandbox/ca` (or ~/.local/share/payments-sandbox/ca) */
  caDir?: string;
  /** every merchant's notification URL unless it sets its own (`--webhook-url`; README, "Notifications"); absent: none */
  webhookUrl?: string;
  /** milliseconds of silence before its first request after which a connection is closed (`--idle-timeout`, in seconds); default DEFAULT_IDLE_TIMEOUT_MS (30 s); between requests, the shorter of this and 5 s */
  idleTimeoutMs?: number;
  /** connections each listener holds open at once, a new one beyond it closed at once (`--max-connections`); default DEFAULT_MAX_CONNECTIONS (2000) */
  maxConnections?: number;
  /** a snapshot file (GET /__sandbox/snapshot) loaded at start, before `fixtures` (`--snapshot`; README, "Known states") */
  snapshot?: string;
  /** fixtures files loaded at start, in order, after `snapshot` (`--fixtures`); with `snapshot`, the baseline POST /__sandbox/reset returns to */
  fixtures?: string[];
  /**
   * a PostgreSQL connection string (`--store postgres://user:pass@host:port/db`, env SANDBOX_STORE_URL):
   * the state is kept there and shared with every replica pointed at it, instead of `dataFile`
   * (docs/decisions.md#d84-shared-store; README, "Deploy")
   */
  storeUrl?: string;
  /** the most merchants (key pairs) the store keeps, a new one beyond it refused with 503 (`--max-merchants`); default DEFAULT_MAX_MERCHANTS (1000; README, "Security") */
  maxMerchants?: number;
}

/** A running sandbox. */
export interface Sandbox {
  /** the origin it listens on, e.g. http://127.0.0.1:4010; with `listen: false`, `publicUrl` or SOCKETLESS_URL, on which nothing listens */
  url: string;
  /** the Payments API base, `${url}/api/v2` */
  apiBase: string;
  /** the base of the links it hands out (`--public-url`, or `url`) */
  publicUrl: string;
  app: Express;
  /** the HTTP listener; absent with `listen: false` */
  server?: Server;
  store: Store;
  engine: ScenarioEngine;
  selector: ScenarioSelector;
  journal: Journal;
  /** the seed of the random draws, to repeat a run exactly with `seed` */
  seed: string;
  /** the HTTPS origin, e.g. https://127.0.0.1:4443, when `httpsPort` or `proxyPort` was given */
  httpsUrl?: string;
  /** the HTTPS listener, serving `app` */
  httpsServer?: HttpsServer;
  /** the forward proxy, e.g. http://127.0.0.1:4080, when `proxyPort` was given */
  proxyUrl?: string;
  /** the local CA's certificate file, for NODE_EXTRA_CA_CERTS and the like, when HTTPS is on */
  caCertificate?: string;
  /** notifications from a test: set a URL, list deliveries, wait for one (README, "Notifications") */
  webhooks: SandboxWebhooks;
  /** each merchant's clock (README, "Time") */
  clocks: MerchantClocks;
  /** what the start found worth a warning, one paragraph each (the CLI prints them in its banner; the log has them too): a store folder other users can write to, a control API open to the network without a token (README, "Security") */
  warnings: readonly string[];
  /** what falls due and when; `agenda.advance(publicKey, ms)` moves a merchant's clock as the control API does */
  agenda: Agenda;
  /** the live events GET /__sandbox/events streams: every change of the store, the overrides and the notification faults (docs/decisions.md#d80-server-sent-events) */
  events: SandboxEvents;
  /**
   * Serves one request in process, without a socket, as the listener would
   * have answered it (src/http/handle.ts): a Payments API target straight to
   * the API's core (src/api/handle.ts), the control API and the pages
   * through the express app; journalled and logged the same way, a Payments
   * API request once answered. Works whether the sandbox listens or not. A
   * request without `Host` is sent with the host of `url`, one with a body
   * but no Content-Length with its length. The rule's delay is waited; a
   * fault resolves with `fault` and status 0, a `hang` at once (journalled
   * then, as if the client had given up at once).
   * @throws only when the sandbox itself fails (never for an error answer, which is a status)
   */
  handle(request: SandboxRequest): Promise<SandboxAnswer>;
  /** stops accepting connections, waits for pending writes, writes a last snapshot */
  close(): Promise<void>;
}

let paymentsOnce: Promise<HttpOperation[]> | undefined;
let controlOnce: Promise<HttpOperation[]> | undefined;

/** The parsed Payments API document, parsed once per process and shared (prism caches validators by schema identity). */
export function paymentsOperations(): Promise<HttpOperation[]> {
  paymentsOnce ??= loadOperations(PAYMENTS_API_DOCUMENT);
  return paymentsOnce;
}

/** The parsed control API document, parsed once per process and shared. */
export function controlOperations(): Promise<HttpOperation[]> {
  controlOnce ??= loadOperations(CONTROL_API_DOCUMENT);
  return controlOnce;
}

/**
 * Starts a sandbox: loads the OpenAPI document and the scenario catalogue,
 * opens the store, and listens.
 * Listening beyond loopback without `controlToken` is allowed, with a warning
 * in `Sandbox.warnings` and in the log (README, "Security").
 * @throws StoreOpenError or CatalogueError, naming the file, when either cannot be read;
 *   Error when `scenario` names no rule of the catalogue, an `allowedHosts` or `tlsHosts` entry is no host name,
 *   or `idleTimeoutMs` or `maxConnections` is not a positive number (a whole one for `maxConnections`);
 *   CertificateAuthorityError when HTTPS is asked for and the CA folder cannot be used.
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const limits = connectionLimits(options);
  const listen = options.listen ?? true;
  if (!listen && (options.httpsPort !== undefined || options.proxyPort !== undefined)) throw new Error('httpsPort and proxyPort need a listening sandbox: they cannot be given with listen: false');
  // The log's module loads while the documents are read.
  const logging = requestLog(options.logLevel ?? 'silent', options.logFormat ?? 'pretty', options.logDestination);
  const [operations, controls, scenarios] = await Promise.all([
    paymentsOperations(),
    controlOperations(),
    loadCatalogue([SHIPPED_SCENARIOS, ...(options.scenarioFolders ?? [])]),
    logging,
  ]);
  const seed = options.seed ?? randomBytes(4).toString('hex');
  const engine = new ScenarioEngine(scenarios, seedrandom(seed));
  const now = isoClock();
  const selector = new ScenarioSelector(engine, new OverrideBook());
  // The live events hear each source of change where it changes, so no writer can forget to announce one.
  const events = new SandboxEvents(now);
  if (options.scenario !== undefined && !engine.find(options.scenario)) throw new Error(`unknown scenario ${options.scenario}: \`payments-sandbox scenarios list\` lists them`);
  // The HTTPS listener and the proxy serve the --tls-host names; the listening and public names are added once known.
  const allowedHosts = new AllowedHosts([...(options.allowedHosts ?? []), ...(options.tlsHosts ?? [])]);
  const store = await Store.open({ url: options.storeUrl, file: options.dataFile, snapshotEvery: options.snapshotEvery, sync: options.sync, maxMerchants: options.maxMerchants });
  // On a shared store each replica numbers its events from its start time in microseconds: another replica's id is outside its range.
  events.numberFrom(store.eventNumberBase());
  const log = await logging;
  const journal = new Journal(options.journalSize ?? DEFAULT_JOURNAL_SIZE, options.journalMaxBytes ?? DEFAULT_JOURNAL_MAX_BYTES);
  const hung = new HungConnections();
  if (options.webhookUrl !== undefined && !isHttpUrl(options.webhookUrl)) {
    await store.close();
    throw new Error(`--webhook-url must be an absolute http or https URL, not ${JSON.stringify(options.webhookUrl)}`);
  }
  const clocks = new MerchantClocks(store);
  const faults = new NotificationFaults();
  // The books' changes go to the live events and, on a shared store, into the unit that made them.
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
  // The journal's bounded shared part: each replica's entries reach the others (docs/decisions.md#d84-shared-store).
  journal.onRecord = (entry, text) => store.sendJournal(entry.publicKey, text);
  await store.shareJournal({ capacity: journal.capacity, receive: (entry) => journal.receive(entry as unknown as JournalEntry), clear: (publicKey) => journal.clear(publicKey) });
  if (options.scenario !== undefined) {
    const scenario = options.scenario;
    // One sticky override, however many replicas of a shared store start with it.
    const held = () => selector.overrides.list().some((override) => override.publicKey === undefined && override.scenario === scenario && override.times === undefined);
    await store.transaction(() => {
      if (!held()) selector.overrides.add({ scenario }, now());
    });
  }
  store.watch(events.onStoreChange);
  const outbox = new NotificationOutbox({ store, clocks, faults, engine, defaultUrl: options.webhookUrl });
  const dispatcher = new Dispatcher({ store, clocks, outbox, onAttempt: log?.attempt });
  const agenda = new Agenda({ store, clocks, engine, outbox, dispatcher });
  let state: 'starting' | 'ok' | 'stopping' = 'starting';
  // Fixture steps are requests like any other, served in process by handle(), made just below.
  let serve: Sandbox['handle'] | undefined;
  let control: ControlCore | undefined;
  const knownStates = new KnownStates({
    store, overrides: selector.overrides, faults, controlToken: options.controlToken,
    send: (request) => serve!(request),
    wholeState: (method, path) => wholeState(control!, method, path),
    clearJournal: (publicKey) => {
      journal.clear(publicKey);
      store.journalCleared(publicKey);
    },
    isScenario: (name) => engine.find(name) !== undefined,
  });
  let publicUrl = '';
  let url = '';
  const { app, listener, handle, control: core } = createApp({
    operations,
    controlOperations: controls,
    store,
    dataFile: options.dataFile,
    selector,
    journal,
    hung,
    now,
    clocks,
    outbox,
    notifications: { store, clocks, agenda, outbox, faults },
    knownStates,
    events,
    strict: options.strict ?? false,
    state: () => state,
    allowedHosts,
    controlToken: options.controlToken,
    cors: options.cors ?? false,
    log,
    documents: { 'payments-api': PAYMENTS_API_DOCUMENT, 'control-api': CONTROL_API_DOCUMENT },
    publicUrl: () => publicUrl,
    host: () => new URL(url).host,
    links: {
      authenticate: (linkingReference) => `${publicUrl}/pages/authenticate/${encodeURIComponent(linkingReference)}`,
      checkout: (linkingReference) => `${publicUrl}/pages/checkout/${encodeURIComponent(linkingReference)}`,
    },
  });
  // Every listener (HTTP, HTTPS, proxy) shapes its parser's refusals and bounds its connections alike.
  const prepare = (each: Server | HttpsServer) => {
    tolerateTrailingBytes(each);
    reapConnections(each, limits);
  };
  const host = options.host ?? '127.0.0.1';
  let server: Server | undefined;
  let address = '127.0.0.1';
  if (listen) {
    // Without a Host, Node would answer its own bodiless 400: the Host guard answers instead, in the API's shape.
    const http = createServer({ requireHostHeader: false }, listener);
    prepare(http);
    try {
      await new Promise<void>((resolve, reject) => {
        http.once('error', reject);
        http.listen(options.port ?? 0, host, () => resolve());
      });
    } catch (error) {
      // A taken port or an unknown host: the store opened for this start must be let go of.
      await store.close().catch(() => undefined);
      throw error;
    }
    server = http;
    const bound = http.address() as AddressInfo;
    address = bound.address;
    url = `http://${host.includes(':') ? `[${host}]` : host}:${bound.port}`;
    // Every interface is no address to hand out: links name this machine, which is what a client here can reach.
    publicUrl = (options.publicUrl ?? (EVERY_INTERFACE.has(host) ? `http://localhost:${bound.port}` : url)).replace(/\/+$/, '');
    allowedHosts.addListening(host);
  } else {
    // Nothing listens: the url only names the sandbox, for its links and the Host of handle()'s requests.
    publicUrl = (options.publicUrl ?? SOCKETLESS_URL).replace(/\/+$/, '');
    url = publicUrl;
  }
  allowedHosts.addUrl(publicUrl);
  let tls: TlsListeners | undefined;
  if (server && (options.httpsPort !== undefined || options.proxyPort !== undefined)) {
    try {
      // Loaded only when asked for: the certificate code brings a crypto library the plain HTTP sandbox never needs.
      const { startTlsListeners } = await import('./tls/listeners.js');
      tls = await startTlsListeners(listener, { host, httpsPort: options.httpsPort, proxyPort: options.proxyPort, tlsHosts: options.tlsHosts, caDir: options.caDir, prepare, handshakeTimeoutMs: limits.idleTimeoutMs });
    } catch (error) {
      await new Promise<void>((resolve) => server!.close(() => resolve()));
      await store.close();
      throw error;
    }
  }
  const port = Number(new URL(url).port || 80);
  const warnings = [...store.warnings, ...(server && !isLoopback(address) && !options.controlToken ? [openWarning(host, port)] : [])];
  for (const warning of warnings) warnInLog(warning, options);
  agenda.start();
  serve = handle;
  control = core;
  try {
    await loadStartFiles(knownStates, controls, { snapshot: options.snapshot, fixtures: options.fixtures }, (line) => writeInLog(line, 'info', options));
  } catch (error) {
    await agenda.stop();
    await Promise.all([server && new Promise<void>((resolve) => server.close(() => resolve())), tls?.close()]);
    await store.close().catch(() => undefined);
    throw error;
  }
  state = 'ok';
  let closing: Promise<void> | undefined;
  return {
    url,
    apiBase: `${url}${API_BASE}`,
    publicUrl,
    app,
    server,
    store,
    engine,
    selector,
    journal,
    seed,
    httpsUrl: tls?.httpsUrl,
    httpsServer: tls?.httpsServer,
    proxyUrl: tls?.proxyUrl,
    caCertificate: tls?.caCertificate,
    webhooks: new SandboxWebhooks(store),
    clocks,
    agenda,
    events,
    warnings,
    handle,
    close: () =>
      (closing ??= (async () => {
        state = 'stopping';
        hung.releaseAll();
        // Event streams never end by themselves: end them, or server.close() would wait for them.
        events.close();
        await Promise.all([
          server &&
            new Promise<void>((resolve) => {
              server.close(() => resolve());
              server.closeIdleConnections();
            }),
          tls?.close(),
        ]);
        await agenda.stop();
        await store.close();
      })()),
  };
}

// Whether a control step's path (below the control base) is, as the control core routes it, that of an operation
// that replaces the state as a whole, whatever the step's method; a path it cannot decode is refused by the core itself.
function wholeState(control: ControlCore, _method: string, path: string): boolean {
  try {
    return control.operationsAt(path.split(/[?#]/)[0]!).some((routed) => routed.entry.wholeState);
  } catch {
    return false;
  }
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

// The connection bounds of the options, checked: a zero or negative one would close every connection, or none.
function connectionLimits(options: SandboxOptions): { idleTimeoutMs: number; maxConnections: number } {
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  if (!Number.isFinite(idleTimeoutMs) || idleTimeoutMs <= 0) throw new Error(`idleTimeoutMs must be a positive number of milliseconds, not ${idleTimeoutMs}`);
  if (!Number.isInteger(maxConnections) || maxConnections < 1) throw new Error(`maxConnections must be a whole number of at least 1, not ${maxConnections}`);
  return { idleTimeoutMs, maxConnections };
}

/**
 * True for an address only this machine can reach: 127.0.0.0/8 and ::1, as
 * `server.address()` writes them (an IPv4-mapped one included). A host name
 * is judged by the address it was resolved to.
 */
export function isLoopback(address: string): boolean {
  return address.startsWith('127.') || address === '::1' || address.startsWith('::ffff:127.');
}

// What a control API open to the network means, and how to close it (README, "Security").
function openWarning(host: string, port: number): string {
  const where = EVERY_INTERFACE.has(host) ? `every interface (${host})` : host;
  return (
    `the control API is open to the network: listening on ${where} with no control token, so anyone who can reach port ${port} ` +
    "can reset the sandbox, change its scenarios, settle payments, point notifications anywhere and read every merchant's journal. " +
    'Set a token (--control-token <token>, or SANDBOX_CONTROL_TOKEN) and send Authorization: Bearer <token> to the control API, or listen on 127.0.0.1.'
  );
}

// A warning as one line of the log, in its format (README, "Logs"): the request log has lines for requests and
// notifications only, and a warning at start-up precedes both. Silent and error-only logs leave it out.
function warnInLog(warning: string, options: SandboxOptions): void {
  writeInLog(warning, 'warn', options);
}

// A line of the start-up in the request log's format, at its level (pino's numbers in JSON).
function writeInLog(message: string, level: 'info' | 'warn', options: SandboxOptions): void {
  const shown = options.logLevel ?? 'silent';
  if (shown === 'silent' || shown === 'error') return;
  const now = new Date();
  const line =
    options.logFormat === 'json'
      ? JSON.stringify({ level: level === 'warn' ? 40 : 30, time: now.getTime(), msg: message })
      : `[${now.toTimeString().slice(0, 8)}.${String(now.getMilliseconds()).padStart(3, '0')}] ${level.toUpperCase()}: ${message}`;
  (options.logDestination ?? process.stdout).write(`${line}\n`);
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

/** A fresh test key pair that the sandbox accepts (any well-formed test pair is). */
export const sampleKeyPair = (): KeyPair => newTestKeyPair(() => randomBytes(8).toString('hex'));

export { Store, StoreOpenError, StoreUnavailableError, SYNC_LEVELS, type SyncLevel } from './store/store.js';
export { CatalogueError, loadCatalogue } from './scenarios/catalogue.js';
export { ScenarioEngine } from './scenarios/engine.js';
export { ApiError } from './errors.js';
export { CertificateAuthorityError, defaultCaDir } from './tls/ca-folder.js';
export type { Payment, Order, PaymentStatus } from './model/records.js';
export type { LogFormat, LogLevel } from './log/request-log.js';
export type { SandboxAnswer, SandboxRequest } from './http/handle.js';
export { KnownStateError } from './known-states/files.js';
export type { FixturesDocument, FixturesResult, FixtureStep, FixtureKeyPair } from './known-states/fixtures.js';
export type { SnapshotDocument } from './known-states/known-states.js';
