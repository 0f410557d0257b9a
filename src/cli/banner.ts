import { escapeControls } from '../redaction/controls.js';
import type { SyncLevel } from '../store/sync-level.js';
import { serverNames } from '../tls/host-names.js';

/**
 * The start-up banner (README, "Configuration" and "Logs"): where the sandbox
 * serves, where it keeps its state, and a test key pair. `--log-format pretty`
 * prints it as text for a person; `--log-format json` as one JSON line with the
 * same facts, so that stdout holds nothing but JSON lines
 * (docs/decisions.md#d67-json-stdout).
 */

/** What the banner says, gathered from the options and the started sandbox. */
export interface BannerFacts {
  /** where a client on this machine reaches it, `http://127.0.0.1:4010` (no trailing slash) */
  origin: string;
  /** the base of the links it hands out (`--public-url`, or the listening address) */
  publicUrl: string;
  /** the listening URL, set only when it listens on every interface (the origin then names this machine) */
  everyInterface?: string;
  /** the absolute path of the store file; undefined in memory */
  store?: string;
  /** the PostgreSQL database the state is shared in (`--store`), as host:port/db, never with its password */
  sharedStore?: string;
  /** the store's durability level; only with a store file */
  sync?: SyncLevel;
  seed: string;
  /** the sticky `--scenario` override */
  scenario?: string;
  /** the HTTPS listener, its proxy and the CA file, when HTTPS is on */
  https?: { url: string; tlsHosts: readonly string[]; proxyUrl?: string; caCertificate: string };
  /** `--webhook-url` */
  webhookUrl?: string;
  /** a test key pair the sandbox accepts */
  keys: { publicKey: string; secretKey: string };
  /** the pair is a merchant the store held at start (bannerKeyPair), so the same at each start on this store */
  keysStored?: boolean;
  /** what the start found worth a warning, one paragraph each */
  warnings: readonly string[];
}

/**
 * The key pair the banner shows: the first merchant the store holds (one
 * still bound first, as payments-sandbox/testing picks it), so that a
 * restart on the same store shows the pair a user already configured;
 * else a new one from `sample`.
 */
export function bannerKeyPair(merchants: readonly { publicKey: string; secretKey: string; released?: boolean }[], sample: () => { publicKey: string; secretKey: string }): { keys: { publicKey: string; secretKey: string }; keysStored: boolean } {
  const known = merchants.find((merchant) => !merchant.released) ?? merchants[0];
  return known ? { keys: { publicKey: known.publicKey, secretKey: known.secretKey }, keysStored: true } : { keys: sample(), keysStored: false };
}

/** The message of the JSON banner record, which a reader of the log waits for. */
export const SERVING = 'payments-sandbox is serving';

/** pino's number for the info level, which the request log's other records use too. */
const INFO = 30;

/** What each durability level promises, for the banner (README, "Durability levels"). */
const SYNC_MEANING: Record<SyncLevel, string> = {
  normal: "normal: each change written before its answer, fdatasync'd within a second (--sync full: before its answer)",
  full: "full: each change fdatasync'd before its answer",
};

/** The banner for a person: several lines, warnings first, each wrapped under a WARNING heading; its last line is empty. */
export function bannerText(facts: BannerFacts): string {
  const { origin } = facts;
  const listening = facts.everyInterface ? `\n  listening     ${facts.everyInterface} (every interface); links use localhost: --public-url names this machine for others` : '';
  // First, where it cannot be missed.
  const warnings = facts.warnings.map((warning) => `\n  WARNING: ${wrap(warning, 72).join('\n           ')}\n`).join('');
  const store = facts.sharedStore !== undefined ? `PostgreSQL ${facts.sharedStore} (shared by every replica given it)` : facts.store === undefined ? '(in memory)' : `${facts.store}\n  sync          ${SYNC_MEANING[facts.sync ?? 'normal']}`;
  return `payments-sandbox is serving the Payments API v2
${warnings}
  API base      ${origin}/api/v2
  links base    ${facts.publicUrl}${listening}
  control API   ${origin}/__sandbox  (health: ${origin}/__sandbox/health)
  dashboard     ${origin}/__sandbox/dashboard/
  API reference ${origin}/__sandbox/docs
  store         ${store}
  seed          ${facts.seed}${facts.scenario ? `\n  scenario      ${facts.scenario} (sticky override)` : ''}${httpsLines(facts.https)}
  webhooks      ${facts.webhookUrl ? `${facts.webhookUrl} (every merchant without its own)` : `none until set: PUT ${origin}/__sandbox/webhooks/<publicKey>`}

  ${facts.keysStored ? 'The first merchant this store holds, the same at each start on it:' : 'A test key pair (any SBTESTPUBK_/SBTESTSECK_ pair works; once used, each start on this store shows it):'}
    public key  ${facts.keys.publicKey}
    secret key  ${facts.keys.secretKey}
  Get a token:
    curl -s ${origin}/api/v2/encrypt/keys -H 'Content-Type: application/json' -d '{"key":"${facts.keys.secretKey}.${facts.keys.publicKey}"}'
`;
}

/**
 * The banner as one JSON log record, in pino's shape (`level` 30, `time` in
 * milliseconds since the epoch, `msg`), the facts as fields; no trailing newline.
 * Absent facts are `null` (`store` in memory, `webhookUrl` unset), so a reader
 * finds every field in every record.
 * @param time the record's time, milliseconds since the epoch (default: now)
 */
export function bannerRecord(facts: BannerFacts, time = Date.now()): string {
  const { origin, keys } = facts;
  const record = {
    level: INFO,
    time,
    msg: SERVING,
    apiBase: `${origin}/api/v2`,
    linksBase: facts.publicUrl,
    listening: facts.everyInterface ?? null,
    controlApi: `${origin}/__sandbox`,
    health: `${origin}/__sandbox/health`,
    dashboard: `${origin}/__sandbox/dashboard/`,
    apiReference: `${origin}/__sandbox/docs`,
    store: facts.store ?? (facts.sharedStore === undefined ? null : `postgres://${facts.sharedStore}`),
    sync: facts.store === undefined ? null : (facts.sync ?? 'normal'),
    seed: facts.seed,
    scenario: facts.scenario ?? null,
    https: facts.https
      ? { apiBase: `${facts.https.url}/api/v2`, certificateNames: serverNames(facts.https.tlsHosts), proxy: facts.https.proxyUrl ?? null, proxyHosts: facts.https.tlsHosts, caCertificate: facts.https.caCertificate }
      : null,
    webhookUrl: facts.webhookUrl ?? null,
    publicKey: keys.publicKey,
    secretKey: keys.secretKey,
    tokenRequest: { method: 'POST', url: `${origin}/api/v2/encrypt/keys`, body: { key: `${keys.secretKey}.${keys.publicKey}` } },
    warnings: facts.warnings,
  };
  // A path or a name from the command line may hold a line separator JSON.stringify leaves raw.
  return escapeControls(JSON.stringify(record));
}

/**
 * A one-line record of the sandbox's own (closing on a signal), in the format of the log:
 * `payments-sandbox: <msg>` for a person, a pino-shaped JSON record otherwise; no trailing newline.
 */
export function noticeLine(format: 'pretty' | 'json', msg: string, time = Date.now()): string {
  return format === 'json' ? escapeControls(JSON.stringify({ level: INFO, time, msg })) : `payments-sandbox: ${msg}`;
}

// The lines for the HTTPS listener, the proxy and the CA file; empty when HTTPS is off.
function httpsLines(https: BannerFacts['https']): string {
  if (!https) return '';
  const lines = [`  HTTPS         ${https.url}/api/v2  (certificate for ${serverNames(https.tlsHosts).join(', ')})`];
  if (https.proxyUrl) lines.push(`  proxy         ${https.proxyUrl}  (reaches the sandbox as ${https.tlsHosts.join(', ') || 'no host: add --tls-host'}; refuses the rest)`);
  lines.push(`  CA            ${https.caCertificate}  (trust it: NODE_EXTRA_CA_CERTS, REQUESTS_CA_BUNDLE, SSL_CERT_FILE, curl --cacert)`);
  return `\n${lines.join('\n')}`;
}

/** Words in lines of at most `width` characters (a longer word has a line of its own). */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return line === '' ? lines : [...lines, line];
}
