import type { Server } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Express } from 'express';
import type { Agenda } from '../agenda/agenda.js';
import type { MerchantClocks } from '../clock/clocks.js';
import { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MAX_CONNECTIONS } from '../http/client-errors.js';
import type { SandboxAnswer, SandboxRequest } from '../http/handle.js';
import type { Journal } from '../journal/journal.js';
import type { LogFormat, LogLevel } from '../log/request-log.js';
import type { SandboxEvents } from '../events/source.js';
import type { SandboxWebhooks } from '../notifications/webhooks.js';
import type { ScenarioEngine } from '../scenarios/engine.js';
import type { ScenarioSelector } from '../scenarios/selector.js';
import type { Store, SyncLevel } from '../store/store.js';

/** The hosts that mean "listen on every interface": links cannot name them (README, "Configuration"). */
export const EVERY_INTERFACE = new Set(['0.0.0.0', '::', '[::]']);

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
   * the API's core (src/api/handle.ts), a control API target straight to
   * its core (src/control/core.ts; the live event stream, which never ends,
   * is refused), the pages through the express app over an HTTP connection
   * in memory; journalled and logged the same way, a Payments API request
   * once answered. Works whether the sandbox listens or not. A
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

/** The connection bounds of a start, checked. */
export interface ConnectionLimits {
  /** milliseconds of silence before a connection's first request */
  idleTimeoutMs: number;
  /** connections each listener holds open at once */
  maxConnections: number;
}

/**
 * The connection bounds of the options, checked: a zero or negative one would close every connection, or none.
 * @throws Error naming the option that is not a positive number (a whole one for `maxConnections`)
 */
export function connectionLimits(options: SandboxOptions): ConnectionLimits {
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  if (!Number.isFinite(idleTimeoutMs) || idleTimeoutMs <= 0) throw new Error(`idleTimeoutMs must be a positive number of milliseconds, not ${idleTimeoutMs}`);
  if (!Number.isInteger(maxConnections) || maxConnections < 1) throw new Error(`maxConnections must be a whole number of at least 1, not ${maxConnections}`);
  return { idleTimeoutMs, maxConnections };
}
