import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { API_BASE } from './http/app.js';
import { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MAX_CONNECTIONS } from './http/client-errors.js';
import { requestLog } from './log/request-log.js';
import { DEFAULT_JOURNAL_MAX_BYTES, DEFAULT_JOURNAL_SIZE } from './defaults.js';
import { AllowedHosts } from './guards/host.js';
import { loadCatalogue, SHIPPED_SCENARIOS } from './scenarios/catalogue.js';
import { loadOperations, type HttpOperation } from './validation/operations.js';
import { newTestKeyPair, type KeyPair } from './domain/merchants.js';
import { isHttpUrl, SandboxWebhooks } from './notifications/webhooks.js';
import { loadStartFiles } from './known-states/files.js';
import { listenFor, type Listening } from './start/listen.js';
import { connectionLimits, type ConnectionLimits, type Sandbox, type SandboxOptions } from './start/options.js';
import { openParts, type SandboxParts } from './start/parts.js';
import { httpSurface, type SandboxSurface, type Where } from './start/surface.js';
import { isLoopback, openWarning, writeInLog } from './start/warnings.js';

/** The OpenAPI document of the Payments API, shipped in openapi/. */
export const PAYMENTS_API_DOCUMENT = fileURLToPath(new URL('../openapi/payments-api.yaml', import.meta.url));

/** The OpenAPI document of the control API under /__sandbox, shipped in openapi/. */
export const CONTROL_API_DOCUMENT = fileURLToPath(new URL('../openapi/control-api.yaml', import.meta.url));

export { EVERY_INTERFACE, SOCKETLESS_URL, type Sandbox, type SandboxOptions } from './start/options.js';
export { isLoopback } from './start/warnings.js';

/** How many requests the journal keeps when `journalSize` is not given, and its memory bound when `journalMaxBytes` is not (32 MiB, `--journal-max-mb 32`). */
export { DEFAULT_JOURNAL_MAX_BYTES, DEFAULT_JOURNAL_SIZE };

/** How long a connection may stay silent before its first request (30 s), and how many each listener holds open at once (2000), unless `idleTimeoutMs` and `maxConnections` say otherwise (README, "Security"). */
export { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MAX_CONNECTIONS };

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
 * Starts a sandbox: loads the OpenAPI documents and the scenario catalogue,
 * opens the store, makes both APIs over it, listens, and loads the start
 * files (`snapshot`, `fixtures`). Each step is one function of src/start/.
 * Listening beyond loopback without `controlToken` is allowed, with a warning
 * in `Sandbox.warnings` and in the log (README, "Security").
 * @throws StoreOpenError or CatalogueError, naming the file, when either cannot be read;
 *   Error when `scenario` names no rule of the catalogue, an `allowedHosts` or `tlsHosts` entry is no host name,
 *   or `idleTimeoutMs` or `maxConnections` is not a positive number (a whole one for `maxConnections`);
 *   CertificateAuthorityError when HTTPS is asked for and the CA folder cannot be used;
 *   KnownStateError when a start file cannot be loaded. Nothing is left open when it throws.
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const limits = checkOptions(options);
  // The log's module loads while the documents are read.
  const logging = requestLog(options.logLevel ?? 'silent', options.logFormat ?? 'pretty', options.logDestination);
  const [operations, controls, scenarios, log] = await Promise.all([
    paymentsOperations(), controlOperations(), loadCatalogue([SHIPPED_SCENARIOS, ...(options.scenarioFolders ?? [])]), logging,
  ]);
  if (options.scenario !== undefined && !scenarios.some((scenario) => scenario.name === options.scenario)) {
    throw new Error(`unknown scenario ${options.scenario}: \`payments-sandbox scenarios list\` lists them`);
  }
  // The HTTPS listener and the proxy serve the --tls-host names; the listening and public names are added once known.
  const allowedHosts = new AllowedHosts([...(options.allowedHosts ?? []), ...(options.tlsHosts ?? [])]);
  const parts = await openParts(options, scenarios, log);
  const where: Where = { url: '', publicUrl: '', state: 'starting' };
  const files = { 'payments-api': PAYMENTS_API_DOCUMENT, 'control-api': CONTROL_API_DOCUMENT };
  const surface = httpSurface(options, { operations, controls, files }, parts, log, allowedHosts, where);
  const listening = await listenFor(options, surface.listener, limits, allowedHosts).catch(async (error: unknown) => {
    // A taken port or an unknown host: the store opened for this start must be let go of.
    await parts.store.close().catch(() => undefined);
    throw error;
  });
  Object.assign(where, { url: listening.url, publicUrl: listening.publicUrl });
  const warnings = startWarnings(options, parts, listening);
  parts.agenda.start();
  const close = closer(parts, surface, listening, where);
  try {
    await loadStartFiles(surface.knownStates, controls, { snapshot: options.snapshot, fixtures: options.fixtures }, (line) => writeInLog(line, 'info', options));
  } catch (error) {
    await close();
    throw error;
  }
  where.state = 'ok';
  return sandboxOf(parts, surface, listening, warnings, close);
}

// The options a start cannot go on with, refused before anything is opened; the connection bounds.
function checkOptions(options: SandboxOptions): ConnectionLimits {
  const limits = connectionLimits(options);
  if (options.listen === false && (options.httpsPort !== undefined || options.proxyPort !== undefined)) {
    throw new Error('httpsPort and proxyPort need a listening sandbox: they cannot be given with listen: false');
  }
  if (options.webhookUrl !== undefined && !isHttpUrl(options.webhookUrl)) {
    throw new Error(`--webhook-url must be an absolute http or https URL, not ${JSON.stringify(options.webhookUrl)}`);
  }
  return limits;
}

// What the start found worth a warning (the store's, a control API open to the network), each also written to the log.
function startWarnings(options: SandboxOptions, parts: SandboxParts, listening: Listening): string[] {
  const open = listening.server && !isLoopback(listening.address) && !options.controlToken;
  const warnings = [...parts.store.warnings, ...(open ? [openWarning(options.host ?? '127.0.0.1', Number(new URL(listening.url).port || 80))] : [])];
  for (const warning of warnings) writeInLog(warning, 'warn', options);
  return warnings;
}

// Stops a sandbox once, whoever asks: no new connection, the held and streaming ones let go, the agenda stopped, the store closed.
function closer(parts: SandboxParts, surface: SandboxSurface, listening: Listening, where: Where): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () =>
    (closing ??= (async () => {
      where.state = 'stopping';
      surface.hung.releaseAll();
      // Event streams never end by themselves: end them, or server.close() would wait for them.
      parts.events.close();
      const { server, tls } = listening;
      await Promise.all([
        server &&
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeIdleConnections();
          }),
        tls?.close(),
      ]);
      // A run's attempt under way is recorded before the store closes; its steps not yet sent are cut off.
      await parts.goLiveRuns.stop();
      await parts.agenda.stop();
      await parts.store.close();
    })());
}

// The running sandbox, as startSandbox answers it.
function sandboxOf(parts: SandboxParts, surface: SandboxSurface, listening: Listening, warnings: readonly string[], close: () => Promise<void>): Sandbox {
  const { store, engine, selector, journal, seed, clocks, agenda, events } = parts;
  const { url, publicUrl, server, tls } = listening;
  return {
    url, apiBase: `${url}${API_BASE}`, publicUrl, app: surface.app, server, store, engine, selector, journal, seed,
    httpsUrl: tls?.httpsUrl, httpsServer: tls?.httpsServer, proxyUrl: tls?.proxyUrl, caCertificate: tls?.caCertificate,
    webhooks: new SandboxWebhooks(store), clocks, agenda, events, warnings, handle: surface.handle, close,
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
