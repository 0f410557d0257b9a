/**
 * `payments-sandbox/testing`: a sandbox for a test suite (docs/testing.md).
 * `startForTests()` starts one on a free port, in memory, with fixtures or a
 * snapshot loaded, and hands back its URLs, a key pair and a typed control
 * client (whose `goLive()` asks whether the integration is ready for
 * production); `vitestGlobalSetup()` and `jestGlobalSetup()` /
 * `jestGlobalTeardown()` run it once for a whole run, and
 * `connectToSandbox()` reaches it from the tests through the environment
 * variables they set (SANDBOX_URL and the rest), as it reaches one a CI job
 * started (docs/decisions.md#d74-testing-entry).
 */
import type { Sandbox, SandboxOptions } from '../index.js';
import type { KeyPair } from '../domain/merchants.js';
import { API_BASE } from '../model/bases.js';
import { SandboxControl } from './control.js';

export { ControlApiError, SandboxControl } from './control.js';
export type { ControlErrorBody, DeliveryFilter, SandboxControlOptions } from './control.js';
export type { FixtureKeyPair, FixtureStep, FixturesDocument, FixturesResult } from '../known-states/fixtures.js';
export type { SnapshotDocument } from '../known-states/known-states.js';
export type { Delivery, DeliveryState, NotificationEventType } from '../model/notifications.js';
export type { GoLiveCheck, GoLiveCheckId, GoLiveCheckStatus, GoLiveEvidence, GoLiveReport, GoLiveRun, GoLiveRunStep, GoLiveVerdict } from '../model/go-live.js';
export type { KeyPair } from '../domain/merchants.js';

/** How to start a sandbox for tests: every option of `startSandbox` (`port` 0 and memory only unless given), and what to load. */
export type StartForTestsOptions = SandboxOptions & {
  /** fixtures files (JSON or YAML) loaded, in order, before the sandbox answers; a reset goes back to them */
  fixtures?: string[];
  /** a snapshot file (`GET /__sandbox/snapshot`, or a stopped sandbox's store file) loaded first; a reset goes back to it */
  snapshot?: string;
  /** the key pair the tests use; default the first merchant the fixtures or the snapshot made, else a new test pair */
  keyPair?: KeyPair;
};

/** A sandbox started for tests. */
export interface TestSandbox {
  /** its origin, e.g. http://127.0.0.1:38211 */
  url: string;
  /** the Payments API base, `${url}/api/v2` */
  apiBase: string;
  /** the test key pair to authenticate as (see StartForTestsOptions.keyPair) */
  keyPair: KeyPair;
  /** a client of its control API, over HTTP */
  control: SandboxControl;
  /** the sandbox itself, for what only the same process can do (`sandbox.handle()`, `sandbox.webhooks.waitFor()`) */
  sandbox: Sandbox;
  /** closes it: stops listening, waits for pending writes */
  stop(): Promise<void>;
}

/**
 * Starts a sandbox for a test suite: on a free loopback port, in memory
 * unless `dataFile` is given, silent, with `snapshot` and then `fixtures`
 * loaded before it answers, and its key pair a merchant the sandbox knows.
 * @throws what `startSandbox` throws: a fixtures file whose step fails or a snapshot that does not load stops the start with an Error naming the file and the step or field;
 *   Error when the key pair's exchange is refused (a `keyPair` whose public key the store holds with another secret key)
 */
export async function startForTests(options: StartForTestsOptions = {}): Promise<TestSandbox> {
  // Loaded here, not with this module: a test file that only reaches a sandbox (connectToSandbox) does not load the server.
  const { sampleKeyPair, startSandbox } = await import('../index.js');
  const { keyPair: given, ...sandboxOptions } = options;
  const sandbox = await startSandbox({ port: 0, ...sandboxOptions });
  const known = sandbox.store.merchants().find((merchant) => !merchant.released);
  const keyPair = given ?? (known ? { publicKey: known.publicKey, secretKey: known.secretKey } : sampleKeyPair());
  try {
    await exchangeKeys(sandbox, keyPair);
  } catch (error) {
    await sandbox.close();
    throw error;
  }
  return {
    url: sandbox.url,
    apiBase: sandbox.apiBase,
    keyPair,
    control: new SandboxControl({ url: sandbox.url, controlToken: options.controlToken }),
    sandbox,
    stop: () => sandbox.close(),
  };
}

/**
 * Makes the key pair a merchant the sandbox knows, through its own key
 * exchange, unless it knows it already: the control API stores a
 * notification URL or a clock only for a known merchant, and a test's first
 * call is often `setWebhook` (docs/decisions.md#d42-webhook-urls-and-clocks-stored).
 * @throws Error naming the key pair when the exchange is refused (another secret key for a stored public key)
 */
async function exchangeKeys(sandbox: Sandbox, keyPair: KeyPair): Promise<void> {
  if (sandbox.store.merchant(keyPair.publicKey) !== undefined) return;
  const answer = await sandbox.handle({
    method: 'POST', url: `${API_BASE}/encrypt/keys`, headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ key: `${keyPair.secretKey}.${keyPair.publicKey}` }),
  });
  if (answer.status !== 200) {
    throw new Error(`the key pair of ${keyPair.publicKey} could not be exchanged: the sandbox answered ${answer.status} ${answer.body.toString('utf8').slice(0, 300)}`);
  }
}

/** What a global set-up tells the tests: through `provide` (Vitest) and the environment variables of SANDBOX_ENV. Plain JSON. */
export interface ProvidedSandbox {
  url: string;
  apiBase: string;
  publicKey: string;
  secretKey: string;
  controlToken?: string;
}

/** The environment variables a global set-up sets for the tests, and `connectToSandbox()` reads. */
export const SANDBOX_ENV = {
  url: 'SANDBOX_URL',
  apiBase: 'SANDBOX_API_BASE',
  publicKey: 'SANDBOX_PUBLIC_KEY',
  secretKey: 'SANDBOX_SECRET_KEY',
  controlToken: 'SANDBOX_CONTROL_TOKEN',
} as const satisfies Record<keyof ProvidedSandbox, string>;

/** The key under which the Vitest global set-up provides the ProvidedSandbox: `inject('paymentsSandbox')`. */
export const PROVIDED_KEY = 'paymentsSandbox';

/** A sandbox reached from a test: its URLs, its key pair when the environment names one, and a control client. */
export interface ConnectedSandbox {
  url: string;
  apiBase: string;
  /** absent when SANDBOX_PUBLIC_KEY or SANDBOX_SECRET_KEY is */
  keyPair?: KeyPair;
  control: SandboxControl;
}

/**
 * The sandbox named by the environment: the one a global set-up of this
 * module started (it sets SANDBOX_URL, SANDBOX_API_BASE, SANDBOX_PUBLIC_KEY,
 * SANDBOX_SECRET_KEY and, when there is one, SANDBOX_CONTROL_TOKEN), or one a
 * CI job started and named in SANDBOX_URL.
 * @param env where to read them; default `process.env`
 * @throws Error when SANDBOX_URL is not set, saying how it is set
 */
export function connectToSandbox(env: Record<string, string | undefined> = process.env): ConnectedSandbox {
  const url = env[SANDBOX_ENV.url]?.replace(/\/+$/, '');
  if (!url) {
    throw new Error(`${SANDBOX_ENV.url} is not set: run the tests with the global set-up of payments-sandbox/testing (docs/testing.md), or set it to the origin of a running sandbox, e.g. http://127.0.0.1:4010`);
  }
  const publicKey = env[SANDBOX_ENV.publicKey];
  const secretKey = env[SANDBOX_ENV.secretKey];
  const controlToken = env[SANDBOX_ENV.controlToken] || undefined;
  return {
    url,
    apiBase: env[SANDBOX_ENV.apiBase] || `${url}/api/v2`,
    ...(publicKey && secretKey ? { keyPair: { publicKey, secretKey } } : {}),
    control: new SandboxControl({ url, controlToken }),
  };
}

/** The ProvidedSandbox of a started sandbox. */
function provided(started: TestSandbox, controlToken: string | undefined): ProvidedSandbox {
  return { url: started.url, apiBase: started.apiBase, ...started.keyPair, ...(controlToken ? { controlToken } : {}) };
}

/**
 * Sets the SANDBOX_ENV variables for `provided` in this process (the test
 * workers a runner starts afterwards inherit them).
 * @returns a function that puts the variables back as they were
 */
function exportToEnv(sandbox: ProvidedSandbox): () => void {
  const before = Object.values(SANDBOX_ENV).map((name) => [name, process.env[name]] as const);
  for (const [field, name] of Object.entries(SANDBOX_ENV)) {
    const value = sandbox[field as keyof ProvidedSandbox];
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  return () => {
    for (const [name, value] of before) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}

/** What Vitest hands a global set-up; only `provide` is used. Vitest's `TestProject` is one. */
export interface VitestSetupContext {
  provide(key: string, value: unknown): void;
}

/**
 * A Vitest global set-up (`test.globalSetup` in the config, through a file
 * whose default export is this function's result): starts one sandbox for
 * the run with `options`, provides its ProvidedSandbox as `paymentsSandbox`
 * (`inject('paymentsSandbox')`) and sets the SANDBOX_ENV variables
 * (`connectToSandbox()`), and returns the teardown that stops it and puts
 * the variables back. `payments-sandbox/testing/vitest-global-setup` is one
 * with the default options.
 * @throws (the returned set-up rejects) what `startForTests` throws, which fails the run before any test
 */
export function vitestGlobalSetup(options: StartForTestsOptions = {}): (context: VitestSetupContext) => Promise<() => Promise<void>> {
  return async function setup(context) {
    const started = await startForTests(options);
    const told = provided(started, options.controlToken);
    context.provide(PROVIDED_KEY, told);
    const restore = exportToEnv(told);
    return async function teardown() {
      restore();
      await started.stop();
    };
  };
}

/** Where a Jest global set-up leaves what its teardown needs: Jest runs both in its main process, and may load them as two copies of this module. */
const JEST_STATE = Symbol.for('payments-sandbox/testing jest');

interface JestState {
  started: TestSandbox;
  restore: () => void;
}

/**
 * A Jest global set-up (`globalSetup` in the config, a file whose default
 * export is this function's result): starts one sandbox for the run with
 * `options` and sets the SANDBOX_ENV variables, which the test workers Jest
 * starts afterwards inherit (`connectToSandbox()`). Pair it with
 * `jestGlobalTeardown`. `payments-sandbox/testing/jest-global-setup` is one
 * with the default options.
 * @throws (the returned set-up rejects) what `startForTests` throws; Error when a sandbox of this set-up is running already
 */
export function jestGlobalSetup(options: StartForTestsOptions = {}): () => Promise<void> {
  return async function globalSetup() {
    const state = globalThis as { [JEST_STATE]?: JestState };
    if (state[JEST_STATE]) throw new Error('a sandbox of the Jest global set-up is running already: jestGlobalTeardown stops it');
    const started = await startForTests(options);
    state[JEST_STATE] = { started, restore: exportToEnv(provided(started, options.controlToken)) };
  };
}

/**
 * The Jest global teardown (`globalTeardown`; its module is
 * `payments-sandbox/testing/jest-global-teardown`): stops the sandbox of
 * `jestGlobalSetup` and puts the environment variables back. Does nothing
 * when none runs.
 */
export async function jestGlobalTeardown(): Promise<void> {
  const state = globalThis as { [JEST_STATE]?: JestState };
  const running = state[JEST_STATE];
  if (!running) return;
  delete state[JEST_STATE];
  running.restore();
  await running.started.stop();
}
