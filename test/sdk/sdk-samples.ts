import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { ControlClient } from '../support/control.js';
import { cleanEnv, EXIT_WITHIN, ROOT, within } from '../support/process.js';
import { ApiClient, listeningSandbox, type TestMerchant } from '../support/sandbox.js';

/**
 * Runs the samples of the provider's Node SDK (seerbit-nodejs) as a merchant
 * would: each in its own node process, its code and payload as shipped, with
 * the merchant's own configuration module, reaching the sandbox only through
 * the environment (HTTPS_PROXY, NODE_EXTRA_CA_CERTS and the env-proxy preload).
 */

/** The SDK as installed. */
export const SDK = join(ROOT, 'node_modules', 'seerbit-nodejs');

/** The key pair of the SDK's samples/config.js. */
export const SAMPLE_KEYS = {
  publicKey: 'SBTESTPUBK_RQ1FN3iuPMBtKs8gocxp5DzIZNHdDv8x',
  secretKey: 'SBTESTSECK_eTrsLsdzJyf7ZuKXbXhre1uofX4Kn3HaI4YxRs1z',
};

/** How one sample run ended and what it printed. */
export interface SampleRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** the last line the sample printed, read as JSON: what the SDK resolved or rejected with */
  printed: any;
}

/** Where the samples run and how they reach the sandbox. */
export interface SampleSetting {
  proxyUrl: string;
  caCertificate: string;
  /** the sandbox-issued bearer token for SAMPLE_KEYS */
  token: string;
}

// The samples print what the SDK answered with console.log; the test reads each call as one JSON line.
const PRINT_JSON = `const plain = (value) => (value instanceof Error ? { ...value, name: value.name, message: value.message } : value);
console.log = (...values) => process.stdout.write(JSON.stringify(values.length === 1 ? plain(values[0]) : values.map(plain)) + '\\n');
`;

/** A folder holding the merchant's config module and the samples to run, removed by `dispose`. */
export class SdkSamples {
  private constructor(
    private readonly dir: string,
    private readonly setting: SampleSetting,
  ) {}

  /** Prepares a run folder: the config module, and node_modules so that `require("seerbit-nodejs")` finds the SDK. */
  static async prepare(setting: SampleSetting): Promise<SdkSamples> {
    const dir = await mkdtemp(join(tmpdir(), 'sdk-samples-'));
    await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    const config = { PUBLIC_KEY: SAMPLE_KEYS.publicKey, SECRET_KEY: SAMPLE_KEYS.secretKey, TOKEN: setting.token };
    await writeFile(join(dir, 'config.js'), `const config = ${JSON.stringify(config, null, 4)}\n\nmodule.exports.SeerBitConfig = config\n`);
    await writeFile(join(dir, 'print-json.cjs'), PRINT_JSON);
    return new SdkSamples(dir, setting);
  }

  /** A sample's source as shipped (`samples/<path>`), loading the installed SDK and the merchant's config module instead of the SDK's build folder. */
  static async sample(path: string): Promise<string> {
    return SdkSamples.asMerchant(await readFile(join(SDK, 'samples', path), 'utf8'), path);
  }

  /** The Standard Checkout example of the SDK's README, as printed there. */
  static async readmeStandardCheckout(): Promise<string> {
    const readme = await readFile(join(SDK, 'README.md'), 'utf8');
    const block = /### Standard Checkout\s*```\s*js\s*\n([\s\S]*?)```/.exec(readme)?.[1];
    if (!block) throw new Error('the SDK README has no Standard Checkout example any more');
    return SdkSamples.asMerchant(block, 'README.md');
  }

  private static asMerchant(source: string, where: string): string {
    const sdk = /require\("(?:\.\.\/)+dist\/src\/index"\)|require\("seerbit-nodejs"\)/g;
    const config = /require\("\.{1,2}\/config"\)/g;
    if ((source.match(sdk) ?? []).length !== 1 || (source.match(config) ?? []).length !== 1) {
      throw new Error(`${where} no longer requires the SDK and its config once each`);
    }
    return source.replace(sdk, 'require("seerbit-nodejs")').replace(config, 'require("./config")');
  }

  /**
   * Runs `source` in a child node process from the package root (where
   * `payments-sandbox/env-proxy` resolves), with only HTTPS_PROXY,
   * NODE_EXTRA_CA_CERTS and NODE_OPTIONS added to a clean environment.
   */
  async run(name: string, source: string): Promise<SampleRun> {
    const file = join(this.dir, `${name}.js`);
    await writeFile(file, source);
    const env = cleanEnv({
      HTTPS_PROXY: this.setting.proxyUrl,
      NODE_EXTRA_CA_CERTS: this.setting.caCertificate,
      NODE_OPTIONS: '--import payments-sandbox/env-proxy',
    });
    // Settings of the machine running the tests must not reroute or re-trust the child.
    for (const variable of ['HTTP_PROXY', 'http_proxy', 'https_proxy', 'NO_PROXY', 'no_proxy', 'NODE_TLS_REJECT_UNAUTHORIZED']) delete env[variable];
    const child = spawn(process.execPath, ['--require', join(this.dir, 'print-json.cjs'), file], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const closed = new Promise<number | null>((done) => child.once('close', (code) => done(code)));
    let code: number | null;
    try {
      code = await within(closed, 3 * EXIT_WITHIN, `the sample ${name} to end`);
    } catch (error) {
      throw new Error(`${(error as Error).message}; it printed:\n${stdout}\n${stderr}`);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    const last = stdout.trim().split('\n').pop() ?? '';
    let printed: unknown;
    try {
      printed = JSON.parse(last);
    } catch {
      printed = undefined;
    }
    return { code, stdout, stderr, printed };
  }

  /** Removes the run folder. */
  async dispose(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** A sandbox the SDK's samples run against, and what a test needs of it. */
export interface SamplesSandbox {
  sandbox: Sandbox;
  api: ApiClient;
  control: ControlClient;
  /** the samples' merchant (SAMPLE_KEYS), its token exchanged */
  merchant: TestMerchant;
  samples: SdkSamples;
  /** removes the samples, closes the sandbox and removes its CA folder */
  dispose(): Promise<void>;
}

/**
 * A sandbox with HTTPS and the proxy for the provider's hard-wired host
 * (docs/https-and-proxy.md, "The provider's Node SDK, unchanged"), a CA folder of its own,
 * the samples' merchant known, and the samples prepared to reach it.
 */
export async function sandboxForSamples(): Promise<SamplesSandbox> {
  const caDir = await mkdtemp(join(tmpdir(), 'sdk-ca-'));
  const sandbox = await listeningSandbox({ httpsPort: 0, proxyPort: 0, tlsHosts: ['seerbitapi.com'], caDir });
  const api = await ApiClient.for(sandbox);
  const control = await ControlClient.for(sandbox);
  const exchanged = await api.send('POST', '/encrypt/keys', { key: `${SAMPLE_KEYS.secretKey}.${SAMPLE_KEYS.publicKey}` });
  expect(exchanged.status).toBe(200);
  const token: string = exchanged.body.data.EncryptedSecKey.encryptedKey;
  const merchant = { ...SAMPLE_KEYS, token, basic: `Basic ${Buffer.from(`${SAMPLE_KEYS.publicKey}:${SAMPLE_KEYS.secretKey}`).toString('base64')}` };
  const samples = await SdkSamples.prepare({ proxyUrl: sandbox.proxyUrl!, caCertificate: sandbox.caCertificate!, token });
  return {
    sandbox, api, control, merchant, samples,
    async dispose() {
      await samples.dispose();
      await sandbox.close();
      await rm(caDir, { recursive: true, force: true });
    },
  };
}
