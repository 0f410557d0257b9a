import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { Command, Help, InvalidArgumentError, Option } from 'commander';
import type { SandboxOptions } from '../index.js';
import { DEFAULT_JOURNAL_MAX_BYTES, DEFAULT_JOURNAL_SIZE, DEFAULT_MAX_MERCHANTS } from '../defaults.js';
import { escapeControls } from '../redaction/controls.js';
import { redactUrlCredentials } from '../redaction/url-credentials.js';
import { describeUrl } from '../store/store-url.js';
import { listenProblem, storeProblem } from './listen-and-store-problems.js';
import type { BannerFacts } from './banner.js';
import type { Given } from './start-up-checks.js';
import { caDirOption, tlsHosts } from './tls-options.js';
import { CANNOT_TELL, exitCodeOf, formatReport, GO_LIVE_FORMATS, goLiveReport, type GoLiveFormat } from './go-live.js';
import { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MAX_CONNECTIONS } from '../http/client-errors.js';
import { hostName } from '../guards/host.js';
import { NOTIFICATION_EVENT_TYPES } from '../model/notifications.js';
import { LOG_LEVELS } from '../log/request-log.js';
import { SYNC_LEVELS, type SyncLevel } from '../store/sync-level.js';

// Each sub-command loads what it needs when it runs: `--help` and `scenarios list` never load the server.

/** The package's version, as `-v` and `--version` print it. */
const VERSION = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

/** The store file used when neither --data nor --in-memory is given: in the working directory. */
export const DEFAULT_DATA_FILE = 'payments-sandbox.json';

const EXAMPLES = `
Examples:
  $ payments-sandbox                                   # http://127.0.0.1:4010/api/v2, state in ./${DEFAULT_DATA_FILE}
  $ payments-sandbox --port 4010 --data /tmp/sb.json   # state in /tmp/sb.json (and /tmp/sb.json.wal)
  $ payments-sandbox --in-memory --port 0              # nothing written; a free port
  $ payments-sandbox --host 0.0.0.0 --public-url http://sandbox:4010 --control-token "$SANDBOX_TOKEN"   # in a container, behind a service name
  $ payments-sandbox --scenario flaky-internal-error --seed 42         # one request in five fails, the same ones each run
  $ payments-sandbox scenarios list                    # the scenario catalogue
  $ payments-sandbox --https-port 4443 --proxy-port 4080 --tls-host seerbitapi.com   # for an SDK with a hard-wired host
  $ NODE_EXTRA_CA_CERTS=$(payments-sandbox ca) node app.js                       # trust the local CA
  $ SANDBOX_PORT=5000 SANDBOX_IN_MEMORY=1 payments-sandbox   # the same settings from the environment
  $ payments-sandbox --webhook-url http://127.0.0.1:3000/webhook   # every merchant's notifications go there
  $ payments-sandbox trigger transaction --reference SBREF-1       # send a payment's event now
  $ payments-sandbox --fixtures examples/fixtures/merchant-day.yaml   # start from a known state; POST /__sandbox/reset returns to it
  $ payments-sandbox go-live --public-key SBTESTPUBK_MerchantDay01 --run --format junit --output go-live.xml   # ready for production? exit 0 if so
  $ payments-sandbox snapshot save state.json     # the running sandbox's state, to load later with --snapshot or snapshot load
  $ payments-sandbox mcp                          # MCP on stdio for a coding agent, with a sandbox in memory; --url http://127.0.0.1:4010 for a running one
`;

interface Flags {
  port: number;
  host: string;
  data?: string;
  inMemory?: boolean;
  store?: string;
  sync?: SyncLevel;
  publicUrl?: string;
  scenarios?: string[];
  scenario?: string;
  journalSize: number;
  journalMaxMb: number;
  allowedHost?: string[];
  controlToken?: string;
  seed?: string;
  strict?: boolean;
  cors?: boolean;
  logLevel: 'silent' | 'error' | 'info' | 'debug';
  logFormat: 'pretty' | 'json';
  httpsPort?: number;
  proxyPort?: number;
  tlsHost?: string[];
  caDir?: string;
  webhookUrl?: string;
  idleTimeout: number;
  maxConnections: number;
  maxMerchants: number;
  snapshot?: string;
  fixtures?: string[];
}

/**
 * The exit code of a start-up refusal: the flags, the environment or a path
 * they name cannot be used, and the message says what to do
 * (docs/decisions.md#d68-start-up-refusals).
 */
export const REFUSED = 2;

/** The generic variable of the port, read when SANDBOX_PORT is not set (README, "Configuration"). */
export const GENERIC_PORT_VARIABLE = 'PORT';

/**
 * Defaults the help shows though the option holds none, so that leaving it
 * out stays distinguishable (`--data` and `--in-memory` conflict only when
 * both are given), by the option's attribute name.
 */
const SHOWN_DEFAULTS: Record<string, string> = {
  data: `./${DEFAULT_DATA_FILE}`,
  caDir: '$XDG_DATA_HOME/payments-sandbox/ca, or ~/.local/share/payments-sandbox/ca',
};

/** What the help adds after an option's variable, by attribute name: the form of a list, or the port's fallback. */
const VARIABLE_NOTES: Record<string, string> = {
  allowedHost: 'comma-separated',
  tlsHost: 'comma-separated',
  fixtures: 'comma-separated',
  port: `else ${GENERIC_PORT_VARIABLE}`,
};

/** The command-line program (README, "Configuration"). */
export function program(): Command {
  const command: Command = new Command('payments-sandbox')
    .description('A local sandbox of the merchant Payments API v2.')
    .configureHelp({ optionDescription })
    // An argument refused names its value: a --url's user and password are not printed (sub-commands inherit this).
    .configureOutput({ outputError: (text, write) => write(redactUrlCredentials(text)) })
    .addOption(portOption('TCP port (0: any free one)'))
    .addOption(new Option('--host <host>', 'interface to listen on').env('SANDBOX_HOST').default('127.0.0.1'))
    .addOption(new Option('--data <file>', 'JSON store file').env('SANDBOX_DATA').conflicts('inMemory'))
    .addOption(new Option('--in-memory', 'keep state in memory only (env: SANDBOX_IN_MEMORY=1|0, true|false, yes|no)'))
    .addOption(new Option('--store <url>', 'keep state in PostgreSQL, shared by every replica given the same URL: postgres://user:pass@host:port/db (README, "Deploy")').env('SANDBOX_STORE_URL'))
    .addOption(
      new Option('--sync <level>', 'durability of the store file: normal (each change written before its answer, fdatasync\'d within a second) or full (fdatasync\'d before its answer)')
        .choices(SYNC_LEVELS)
        .env('SANDBOX_SYNC')
        .conflicts('inMemory'),
    )
    .addOption(new Option('--public-url <url>', 'base URL of the links it hands out (behind a proxy or in a container)').env('SANDBOX_PUBLIC_URL').argParser(httpUrl))
    .addOption(new Option('--scenarios <dir...>', 'folders of extra scenario files').env('SANDBOX_SCENARIOS'))
    .addOption(new Option('--scenario <name>', 'force a scenario on every request it applies to (a sticky override)').env('SANDBOX_SCENARIO'))
    .addOption(new Option('--journal-size <n>', 'requests the journal keeps').env('SANDBOX_JOURNAL_SIZE').default(DEFAULT_JOURNAL_SIZE).argParser(positive))
    .addOption(new Option('--journal-max-mb <n>', 'memory the journal may take, in MiB; the oldest entries go beyond it').env('SANDBOX_JOURNAL_MAX_MB').default(DEFAULT_JOURNAL_MAX_BYTES / 2 ** 20).argParser(megabytes))
    .addOption(new Option('--allowed-host <name>', 'a Host name it answers to beside localhost, --host and --public-url (repeatable)').env('SANDBOX_ALLOWED_HOSTS').argParser(allowedHosts))
    .addOption(new Option('--control-token <token>', 'require Authorization: Bearer <token> on the control API (all but /__sandbox/health)').env('SANDBOX_CONTROL_TOKEN'))
    .addOption(new Option('--seed <seed>', 'seed of random draws (probabilistic scenarios, ranged delays), to repeat a run').env('SANDBOX_SEED'))
    .addOption(new Option('--log-level <level>', 'what goes to stdout: nothing, failed answers, one line per request, or the (redacted) bodies too').choices(LOG_LEVELS).env('SANDBOX_LOG_LEVEL').default('info'))
    .addOption(new Option('--log-format <format>', 'one line for a person, or JSON (pino)').choices(['pretty', 'json']).env('SANDBOX_LOG_FORMAT').default('pretty'))
    .addOption(new Option('--cors', 'answer browser clients of any origin on the Payments API (preflights, Access-Control-Allow-Origin) (env: SANDBOX_CORS=1|0)'))
    .addOption(new Option('--strict', "refuse with 400 INPUT what the spec's types forbid but the provider's clients send (a number amount, a null field) (env: SANDBOX_STRICT=1|0)"))
    .addOption(new Option('--https-port <n>', 'also serve HTTPS, with a certificate from the local CA (0: any free port)').env('SANDBOX_HTTPS_PORT').argParser(port))
    .addOption(new Option('--proxy-port <n>', 'forward proxy that takes the --tls-host names to the sandbox (0: any free port)').env('SANDBOX_PROXY_PORT').argParser(port))
    .addOption(new Option('--tls-host <name>', 'a host name the certificate covers and the proxy reaches (repeatable)').env('SANDBOX_TLS_HOSTS').argParser(tlsHosts))
    .addOption(caDirOption())
    .addOption(new Option('--webhook-url <url>', "every merchant's notification URL, unless it sets its own over the control API").env('SANDBOX_WEBHOOK_URL').argParser(httpUrl))
    .addOption(new Option('--idle-timeout <s>', 'close a connection that sends nothing for this many seconds before its first request').env('SANDBOX_IDLE_TIMEOUT').default(DEFAULT_IDLE_TIMEOUT_MS / 1000).argParser(seconds))
    .addOption(new Option('--max-connections <n>', 'connections each listener holds open at once; one more is closed at once').env('SANDBOX_MAX_CONNECTIONS').default(DEFAULT_MAX_CONNECTIONS).argParser(positive))
    .addOption(new Option('--snapshot <file>', 'load a snapshot (GET /__sandbox/snapshot) at start; a reset returns to it').env('SANDBOX_SNAPSHOT'))
    .addOption(new Option('--fixtures <file>', 'load a fixtures document (JSON or YAML) at start, after --snapshot (repeatable, in order); a reset returns to it').env('SANDBOX_FIXTURES').argParser(paths))
    .addOption(new Option('--max-merchants <n>', 'key pairs the sandbox keeps; a key exchange of a new one beyond it answers 503').env('SANDBOX_MAX_MERCHANTS').default(DEFAULT_MAX_MERCHANTS).argParser(positive))
    .version(VERSION, '-v, --version', 'print the version')
    // -V, which commander's default and earlier releases took, still answers.
    .addOption(new Option('-V').hideHelp())
    .on('option:V', () => {
      console.log(VERSION);
      process.exit(0);
    })
    .addHelpText('after', EXAMPLES)
    // One line and where to look, not thirty lines of help after every mistake.
    .showHelpAfterError("(run 'payments-sandbox --help' for the options)")
    // Options after a subcommand are the subcommand's: `scenarios list --scenarios DIR` must reach `list`.
    .enablePositionalOptions()
    .action((flags: Flags) => serve(flags, command))
    // PORT, the generic variable, fills a port that neither --port nor SANDBOX_PORT gave, for every command that takes one.
    .hook('preAction', (_, action) => genericPort(action));
  const list = command
    .command('scenarios')
    .description('the scenario catalogue')
    .command('list')
    .description('list the scenarios: name, how to trigger them, what they answer')
    .addOption(new Option('--scenarios <dir...>', 'folders of extra scenario files').env('SANDBOX_SCENARIOS'))
    .option('--json', 'print JSON instead of a table')
    .action(async (flags: { scenarios?: string[]; json?: boolean }) => {
      const [{ CatalogueError, loadCatalogue, SHIPPED_SCENARIOS }, { scenarioTable }] = await Promise.all([import('../scenarios/catalogue.js'), import('./scenario-table.js')]);
      let scenarios;
      const folders = (flags.scenarios ?? []).map((folder) => resolve(folder));
      await refuseUnusableScenarioFolders(folders, given(list, 'scenarios'));
      try {
        scenarios = await loadCatalogue([SHIPPED_SCENARIOS, ...folders]);
      } catch (error) {
        if (error instanceof CatalogueError) fail(error.message, REFUSED);
        await refuseOnFileSystemError(error);
        throw error;
      }
      console.log(flags.json ? JSON.stringify(scenarios, null, 2) : scenarioTable(scenarios));
    });
  command
    .command('healthcheck')
    .description("exit 0 when the sandbox on this machine answers 200 on /__sandbox/health, else 1 (a container's HEALTHCHECK, without curl)")
    .addOption(portOption('the port it listens on'))
    .option('--timeout <ms>', 'how long to wait for the answer', positive, 3000)
    .action(async (flags: { port: number; timeout: number }) => {
      const { checkHealth } = await import('./healthcheck.js');
      const problem = await checkHealth(flags.port, flags.timeout);
      if (problem) fail(problem);
    });
  command
    .command('trigger')
    .description("send a payment's notification now, through a running sandbox's control API (like `stripe trigger`)")
    .argument('<eventType>', NOTIFICATION_EVENT_TYPES.join(', '))
    .requiredOption('--reference <paymentReference>', 'the payment')
    .option('--public-key <key>', 'its merchant, when several merchants used the reference')
    .addOption(portOption('the port the sandbox listens on'))
    .addOption(new Option('--url <origin>', 'the sandbox, instead of 127.0.0.1 and --port').argParser(httpUrl))
    .addOption(new Option('--control-token <token>', "the sandbox's control token").env('SANDBOX_CONTROL_TOKEN'))
    .action(async (eventType: string, flags: { reference: string; publicKey?: string; port: number; url?: string; controlToken?: string }) => {
      if (!(NOTIFICATION_EVENT_TYPES as readonly string[]).includes(eventType)) fail(`unknown event type ${eventType}: ${NOTIFICATION_EVENT_TYPES.join(', ')}`);
      const { trigger } = await import('./trigger.js');
      try {
        const lines = await trigger({
          eventType, paymentReference: flags.reference, publicKey: flags.publicKey, origin: flags.url ?? `http://127.0.0.1:${flags.port}`, controlToken: flags.controlToken || undefined,
        });
        for (const line of lines) console.log(line);
      } catch (error) {
        fail((error as Error).message);
      }
    });
  command
    .command('go-live')
    .description("is a merchant's integration ready for production? its go-live report from a running sandbox (GET /__sandbox/go-live/{publicKey}); exit 0 ready, 1 not ready or incomplete, 2 no verdict")
    .requiredOption('--public-key <key>', "the merchant's test public key")
    .option('--run', "first test the merchant's notification receiver (POST /__sandbox/go-live/{publicKey}/runs) and wait until the run is done")
    .addOption(new Option('--format <format>', 'text for a person, json as the control API answers, junit for a CI test report').choices(GO_LIVE_FORMATS).default('text'))
    .option('--output <file>', 'write the report to FILE instead of stdout')
    .addOption(portOption('the port the sandbox listens on'))
    .addOption(new Option('--url <origin>', 'the sandbox, instead of 127.0.0.1 and --port').argParser(httpUrl))
    .addOption(new Option('--control-token <token>', "the sandbox's control token").env('SANDBOX_CONTROL_TOKEN'))
    // A flag it cannot use gives no verdict either: exit 2, not the 1 of an integration that is not ready.
    .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : CANNOT_TELL))
    .action(async (flags: { publicKey: string; run?: boolean; format: GoLiveFormat; output?: string; port: number; url?: string; controlToken?: string }) => {
      const { stepText } = await import('./go-live-text.js');
      const target = { origin: flags.url ?? `http://127.0.0.1:${flags.port}`, controlToken: flags.controlToken || undefined };
      let report;
      try {
        // Only the text is for a person watching: json and junit write nothing but the report.
        report = await goLiveReport({ ...target, publicKey: flags.publicKey, run: flags.run }, { onStep: flags.format === 'text' ? (step) => console.error(stepText(step)) : undefined });
      } catch (error) {
        fail((error as Error).message, CANNOT_TELL);
      }
      const written = await formatReport(report, flags.format);
      if (flags.output === undefined) process.stdout.write(written);
      else {
        try {
          await writeFile(resolve(flags.output), written);
        } catch (error) {
          fail(`cannot write ${flags.output}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, CANNOT_TELL);
        }
        console.error(`go-live: ${report.verdict}; the report is in ${flags.output}`);
      }
      // Not process.exit: stdout may still be writing the report to a pipe.
      process.exitCode = exitCodeOf(report.verdict);
    });
  const snapshot = command.command('snapshot').description("save a running sandbox's state to a file, or load one into it (GET and PUT /__sandbox/snapshot)");
  for (const [verb, what] of [['save', 'write its state to FILE (mode 0600: it holds the test secret keys)'], ['load', "replace its state with FILE's"]] as const) {
    snapshot
      .command(verb)
      .description(what)
      .argument('<file>', 'the snapshot file')
      .option('--public-key <key>', "one merchant's state only")
      .addOption(portOption('the port the sandbox listens on'))
      .addOption(new Option('--url <origin>', 'the sandbox, instead of 127.0.0.1 and --port').argParser(httpUrl))
      .addOption(new Option('--control-token <token>', "the sandbox's control token").env('SANDBOX_CONTROL_TOKEN'))
      .action(async (file: string, flags: { publicKey?: string; port: number; url?: string; controlToken?: string }) => {
        const { loadSnapshot, saveSnapshot } = await import('./snapshot.js');
        const target = { origin: flags.url ?? `http://127.0.0.1:${flags.port}`, controlToken: flags.controlToken || undefined, publicKey: flags.publicKey };
        try {
          console.log(await (verb === 'save' ? saveSnapshot : loadSnapshot)(target, resolve(file)));
        } catch (error) {
          fail((error as Error).message);
        }
      });
  }
  command
    .command('mcp')
    .description('serve MCP (Model Context Protocol) on stdin and stdout, for a coding agent: a sandbox in memory in this process, or the running one at --url')
    .addOption(new Option('--url <origin>', 'drive the sandbox running there (its /__sandbox/mcp) instead of one in memory').argParser(httpUrl))
    .addOption(new Option('--control-token <token>', "the sandbox's control token").env('SANDBOX_CONTROL_TOKEN'))
    .addOption(new Option('--seed <seed>', 'seed of the sandbox in memory').env('SANDBOX_SEED'))
    .addOption(new Option('--fixtures <file>', 'a fixtures document the sandbox in memory loads at start (repeatable)').env('SANDBOX_FIXTURES').argParser(paths))
    .action(async (flags: { url?: string; controlToken?: string; seed?: string; fixtures?: string[] }, mcp: Command) => {
      // Given on the command line they would be ignored without a word; from the environment, they are defaults.
      const inMemoryOnly = ['seed', 'fixtures'].filter((key) => mcp.getOptionValueSource(key) === 'cli');
      if (flags.url !== undefined && inMemoryOnly.length > 0) fail(`--${inMemoryOnly.join(' and --')} ${inMemoryOnly.length === 1 ? 'is' : 'are'} for a sandbox in memory: leave ${inMemoryOnly.length === 1 ? 'it' : 'them'} out with --url`, REFUSED);
      // stdout carries MCP's messages alone: anything else printed there would break the protocol.
      console.log = console.error;
      const [{ serveMcp }, { KnownStateError }] = await Promise.all([import('./mcp.js'), import('../index.js')]);
      try {
        await serveMcp({ url: flags.url, controlToken: flags.controlToken || undefined, seed: flags.seed, fixtures: flags.fixtures?.map((file) => resolve(file)) });
      } catch (error) {
        fail((error as Error).message, error instanceof KnownStateError ? REFUSED : 1);
      }
    });
  command
    .command('ca')
    .description("print the local CA certificate's path, creating the CA if needed (for NODE_EXTRA_CA_CERTS=$(payments-sandbox ca))")
    .addOption(caDirOption())
    .action(async (flags: { caDir?: string }) => {
      // `payments-sandbox --ca-dir DIR ca` names the folder before the sub-command.
      const dir = flags.caDir ?? command.opts<Flags>().caDir;
      const { CertificateAuthorityError, defaultCaDir, openCertificateAuthority } = await import('../tls/certificate-authority.js');
      try {
        console.log((await openCertificateAuthority(dir ? resolve(dir) : defaultCaDir())).certificatePath);
      } catch (error) {
        if (error instanceof CertificateAuthorityError) fail(error.message, REFUSED);
        throw error;
      }
    });
  return command;
}

// `-p, --port <n>` of the server and of the commands that reach it: SANDBOX_PORT, else PORT (genericPort).
function portOption(description: string): Option {
  return new Option('-p, --port <n>', description).env('SANDBOX_PORT').default(4010).argParser(port);
}

/**
 * Sets `--port` from PORT when neither the flag nor SANDBOX_PORT gave it: the
 * generic name is what platforms set, but in a CI job it may be the port of the
 * application under test, so the sandbox's own name wins (README, "Configuration").
 * A value that is no port stops as commander stops a bad SANDBOX_PORT.
 */
function genericPort(action: Command): void {
  const value = process.env[GENERIC_PORT_VARIABLE];
  if (value === undefined || action.getOptionValueSource('port') !== 'default') return;
  try {
    action.setOptionValueWithSource('port', port(value), 'env');
  } catch (error) {
    action.error(`error: option '-p, --port <n>' value '${value}' from env '${GENERIC_PORT_VARIABLE}' is invalid. ${(error as Error).message}`);
  }
}

// Commander's description of an option, with the defaults it cannot know of and the notes on variables.
function optionDescription(this: Help, option: Option): string {
  const key = option.attributeName();
  let text = Help.prototype.optionDescription.call(this, option);
  const note = VARIABLE_NOTES[key];
  if (option.envVar !== undefined && note !== undefined) text = text.replace(`env: ${option.envVar})`, `env: ${option.envVar}, ${note})`);
  const shown = SHOWN_DEFAULTS[key];
  if (shown === undefined) return text;
  return option.envVar === undefined ? `${text} (default: ${shown})` : text.replace(`(env: ${option.envVar})`, `(default: ${shown}, env: ${option.envVar})`);
}

// Where an option's value came from, to name it as the user gave it.
function given(command: Command, key: string, flag = `--${key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`): Given {
  const source = command.getOptionValueSource(key);
  if (source === 'env') return { variable: command.options.find((option) => option.attributeName() === key)?.envVar ?? flag };
  return source === 'cli' ? { flag } : 'default';
}

/** Runs the CLI with `argv` (process.argv). */
export async function main(argv: string[]): Promise<void> {
  await program().parseAsync(argv);
}

// Starts the sandbox, prints where it is, and stops it cleanly on SIGINT/SIGTERM, or when npm's shell that ran it exits.
async function serve(flags: Flags, command: Command): Promise<void> {
  // A name given for a listener that is not asked for would be ignored without a word.
  if (flags.tlsHost?.length && flags.httpsPort === undefined && flags.proxyPort === undefined) {
    fail('--tls-host names hosts for HTTPS: add --https-port <n> or --proxy-port <n>', REFUSED);
  }
  // Commander would take any value of a boolean variable as true, SANDBOX_IN_MEMORY=0 included.
  const inMemory = flags.inMemory ?? envFlag('SANDBOX_IN_MEMORY');
  const strict = flags.strict ?? envFlag('SANDBOX_STRICT');
  const corsOn = flags.cors ?? envFlag('SANDBOX_CORS');
  if (inMemory && flags.data !== undefined) fail('--data and --in-memory (or SANDBOX_IN_MEMORY) cannot be used together: keep one', REFUSED);
  if (inMemory && flags.sync !== undefined) fail('--sync (or SANDBOX_SYNC) sets how a store file is written: it has no meaning with --in-memory', REFUSED);
  const storeUrl = flags.store || undefined;
  if (storeUrl !== undefined) {
    if (!/^postgres(ql)?:\/\//.test(storeUrl)) fail('--store (or SANDBOX_STORE_URL) takes a PostgreSQL URL: postgres://user:pass@host:port/db', REFUSED);
    // A store file given on the command line beside it would be ignored without a word; the image's SANDBOX_DATA is a default, not a choice.
    const file = given(command, 'data');
    if (inMemory || (file !== 'default' && 'flag' in file)) fail('--store keeps the state in PostgreSQL: leave out --data and --in-memory', REFUSED);
  }
  const options: SandboxOptions = {
    port: flags.port,
    host: flags.host,
    storeUrl,
    dataFile: inMemory || storeUrl !== undefined ? undefined : resolve(flags.data ?? DEFAULT_DATA_FILE),
    sync: flags.sync,
    publicUrl: flags.publicUrl,
    scenarioFolders: flags.scenarios?.map((folder) => resolve(folder)),
    scenario: flags.scenario,
    journalSize: flags.journalSize,
    journalMaxBytes: Math.floor(flags.journalMaxMb * 2 ** 20),
    allowedHosts: flags.allowedHost,
    controlToken: flags.controlToken || undefined,
    seed: flags.seed,
    strict,
    cors: corsOn,
    logLevel: flags.logLevel,
    logFormat: flags.logFormat,
    httpsPort: flags.httpsPort,
    proxyPort: flags.proxyPort,
    tlsHosts: flags.tlsHost,
    caDir: flags.caDir === undefined ? undefined : resolve(flags.caDir),
    webhookUrl: flags.webhookUrl,
    idleTimeoutMs: flags.idleTimeout * 1000,
    maxConnections: flags.maxConnections,
    maxMerchants: flags.maxMerchants,
    snapshot: flags.snapshot === undefined ? undefined : resolve(flags.snapshot),
    fixtures: flags.fixtures?.map((file) => resolve(file)),
  };
  // Before anything is opened: a folder that cannot serve is named with its fix, and the store never creates one.
  await refuseUnusableScenarioFolders(options.scenarioFolders ?? [], given(command, 'scenarios'));
  if (options.dataFile !== undefined) {
    const { dataFolderProblem } = await import('./start-up-checks.js');
    const problem = dataFolderProblem(options.dataFile, given(command, 'data'));
    if (problem) fail(problem, REFUSED);
  }
  const [{ CatalogueError, CertificateAuthorityError, EVERY_INTERFACE, KnownStateError, sampleKeyPair, startSandbox, StoreOpenError }, { bannerKeyPair, bannerRecord, bannerText, noticeLine }, { closesWithParent, watchParent }] = await Promise.all([
    import('../index.js'),
    import('./banner.js'),
    import('./parent-watch.js'),
  ]);
  let sandbox;
  try {
    sandbox = await startSandbox(options);
  } catch (error) {
    if (error instanceof StoreOpenError && storeUrl !== undefined) fail(storeProblem(error.message, storeUrl), REFUSED);
    if (error instanceof StoreOpenError || error instanceof CatalogueError || error instanceof CertificateAuthorityError || error instanceof KnownStateError || /^unknown scenario/.test((error as Error).message)) fail((error as Error).message, REFUSED);
    const listening = listenProblem(error, options);
    if (listening) fail(listening, REFUSED);
    await refuseOnFileSystemError(error);
    throw error;
  }
  const format = options.logFormat ?? 'pretty';
  const { keys, keysStored } = bannerKeyPair(sandbox.store.merchants(), sampleKeyPair);
  // On every interface, the addresses shown are this machine's: 0.0.0.0 is nowhere a client can go.
  const everywhere = EVERY_INTERFACE.has(options.host ?? '') && options.publicUrl === undefined;
  const facts: BannerFacts = {
    origin: everywhere ? sandbox.publicUrl : sandbox.url,
    publicUrl: sandbox.publicUrl,
    everyInterface: everywhere ? sandbox.url : undefined,
    store: options.dataFile,
    sharedStore: storeUrl === undefined ? undefined : describeUrl(storeUrl),
    sync: options.sync,
    seed: sandbox.seed,
    scenario: options.scenario,
    https: sandbox.httpsUrl && sandbox.caCertificate ? { url: sandbox.httpsUrl, tlsHosts: options.tlsHosts ?? [], proxyUrl: sandbox.proxyUrl, caCertificate: sandbox.caCertificate } : undefined,
    webhookUrl: options.webhookUrl,
    keys,
    keysStored,
    warnings: sandbox.warnings,
  };
  let stopping = false;
  // Once, whichever comes first: a signal, or npm's shell gone (a SIGTERM that npm passed to it and it did not pass on).
  const stop = (why: string) => {
    if (stopping) return;
    stopping = true;
    console.log(noticeLine(format, `${why}, closing`));
    sandbox.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('payments-sandbox: could not close cleanly:', error);
        process.exit(1);
      },
    );
  };
  if (closesWithParent(process.env, process.ppid)) watchParent(() => stop('the process that started it exited'));
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  // Printed once a stop is handled: a supervisor may signal as soon as it reads that the sandbox serves.
  // In JSON, stdout carries JSON lines only: a log collector reads the banner as a record like the others.
  console.log(format === 'json' ? bannerRecord(facts) : bannerText(facts));
}

/**
 * Ends the process with one line on stderr: a start-up refusal exits with
 * REFUSED (2), a command that ran and failed with 1. The line stays one line
 * whatever a path in it holds.
 */
function fail(message: string, code = 1): never {
  // A --url may carry a user and password: no error line prints them.
  console.error(`payments-sandbox: ${escapeControls(redactUrlCredentials(message))}`);
  process.exit(code);
}

// Each --scenarios folder that cannot be read as one stops the start-up, with the first problem found.
async function refuseUnusableScenarioFolders(folders: readonly string[], from: Given): Promise<void> {
  if (folders.length === 0) return;
  const { scenarioFolderProblem } = await import('./start-up-checks.js');
  for (const folder of folders) {
    const problem = scenarioFolderProblem(folder, from);
    if (problem) fail(problem, REFUSED);
  }
}

// An error of the file system on a path the checks could not foresee (a scenario file the user cannot read): one line, not a stack.
async function refuseOnFileSystemError(error: unknown): Promise<void> {
  const { fileSystemProblem } = await import('./start-up-checks.js');
  const problem = fileSystemProblem(error);
  if (problem) fail(problem, REFUSED);
}

/**
 * Reads a boolean environment variable: 1/true/yes or 0/false/no, in any
 * case; unset or empty is undefined. Anything else stops the start-up.
 */
function envFlag(name: string): boolean | undefined {
  const value = process.env[name]?.trim().toLowerCase();
  if (value === undefined || value === '') return undefined;
  if (['1', 'true', 'yes'].includes(value)) return true;
  if (['0', 'false', 'no'].includes(value)) return false;
  fail(`${name}=${process.env[name]} is neither 1/true/yes nor 0/false/no`, REFUSED);
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('a port is a whole number from 0 to 65535');
  return n;
}

function positive(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('a whole number of at least 1');
  return n;
}

function allowedHosts(value: string, previous: string[] = []): string[] {
  try {
    return [...previous, ...value.split(',').filter((name) => name.trim() !== '').map(hostName)];
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

// A repeatable path option: each use adds one; the variable's value is a comma-separated list.
function paths(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(',').filter((path) => path.trim() !== '')];
}

function seconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('a positive number of seconds');
  return n;
}

function megabytes(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('a positive number of MiB');
  return n;
}

function httpUrl(value: string): string {
  if (!/^https?:\/\/[^/]+/.test(value)) throw new InvalidArgumentError('an http:// or https:// URL');
  return value;
}
