import { resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { sampleKeyPair, startSandbox, type SandboxOptions } from '../index.js';
import { StoreOpenError } from '../store/store.js';
import { CatalogueError } from '../scenarios/catalogue.js';

/** The store file used when neither --data nor --in-memory is given: in the working directory. */
export const DEFAULT_DATA_FILE = 'payments-sandbox.json';

const EXAMPLES = `
Examples:
  $ payments-sandbox                                   # http://127.0.0.1:4010/api/v2, state in ./${DEFAULT_DATA_FILE}
  $ payments-sandbox --port 4010 --data /tmp/sb.json   # state in /tmp/sb.json (and /tmp/sb.json.wal)
  $ payments-sandbox --in-memory --port 0              # nothing written; a free port
  $ payments-sandbox --host 0.0.0.0 --public-url http://sandbox:4010   # in a container, behind a service name
  $ PORT=5000 SANDBOX_IN_MEMORY=1 payments-sandbox     # the same settings from the environment
`;

/** The command-line program (README, "Configuration"). Exported so tests can parse argv without starting anything. */
export function program(): Command {
  return new Command('payments-sandbox')
    .description('A local sandbox of the merchant Payments API v2.')
    .addOption(new Option('-p, --port <n>', 'TCP port (0: any free one)').env('PORT').default(4010).argParser(port))
    .addOption(new Option('--host <host>', 'interface to listen on').env('SANDBOX_HOST').default('127.0.0.1'))
    .addOption(new Option('--data <file>', 'JSON store file').env('SANDBOX_DATA').conflicts('inMemory'))
    .addOption(new Option('--in-memory', 'keep state in memory only').env('SANDBOX_IN_MEMORY'))
    .addOption(new Option('--public-url <url>', 'base URL of the links it hands out (behind a proxy or in a container)').env('SANDBOX_PUBLIC_URL').argParser(httpUrl))
    .addOption(new Option('--scenarios <dir...>', 'folders of extra scenario files').env('SANDBOX_SCENARIOS'))
    .addHelpText('after', EXAMPLES)
    .showHelpAfterError();
}

/** Runs the CLI: parses argv, starts the sandbox, prints where it is, and stops it cleanly on SIGINT/SIGTERM. */
export async function main(argv: string[]): Promise<void> {
  const command = program();
  command.parse(argv);
  const flags = command.opts<{ port: number; host: string; data?: string; inMemory?: boolean; publicUrl?: string; scenarios?: string[] }>();
  const options: SandboxOptions = {
    port: flags.port,
    host: flags.host,
    dataFile: flags.inMemory ? undefined : resolve(flags.data ?? DEFAULT_DATA_FILE),
    publicUrl: flags.publicUrl,
    scenarioFolders: flags.scenarios?.map((folder) => resolve(folder)),
  };
  let sandbox;
  try {
    sandbox = await startSandbox(options);
  } catch (error) {
    if (error instanceof StoreOpenError || error instanceof CatalogueError) {
      console.error(`payments-sandbox: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
  const keys = sampleKeyPair();
  console.log(`payments-sandbox is serving the Payments API v2

  API base      ${sandbox.apiBase}
  links base    ${sandbox.publicUrl}
  health        ${sandbox.url}/__sandbox/health
  store         ${options.dataFile ?? '(in memory)'}

  A test key pair (any SBTESTPUBK_/SBTESTSECK_ pair works):
    public key  ${keys.publicKey}
    secret key  ${keys.secretKey}
  Get a token:
    curl -s ${sandbox.apiBase}/encrypt/keys -H 'Content-Type: application/json' -d '{"key":"${keys.secretKey}.${keys.publicKey}"}'
`);
  const stop = (signal: string) => {
    console.log(`payments-sandbox: ${signal}, closing`);
    sandbox.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('payments-sandbox: could not close cleanly:', error);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('a port is a whole number from 0 to 65535');
  return n;
}

function httpUrl(value: string): string {
  if (!/^https?:\/\/[^/]+/.test(value)) throw new InvalidArgumentError('an http:// or https:// URL');
  return value;
}
