import { readFileSync } from 'node:fs';
import { CommanderError, type Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GENERIC_PORT_VARIABLE, program } from '../../../src/cli/main.js';

/**
 * The command line's options and their environment variables (README,
 * "Configuration"), parsed without running any command: every variable the
 * help names takes effect, SANDBOX_PORT wins over PORT, the help names each
 * variable once and shows the defaults, and the README's table names the same
 * variables.
 */

/** The boolean variables, read by the server itself (1/true/yes, 0/false/no): commander would take any value as true. */
const BOOLEAN_VARIABLES = ['SANDBOX_IN_MEMORY', 'SANDBOX_STRICT', 'SANDBOX_CORS'];

/** A value of each variable and what the option then holds. */
const SAMPLES: Record<string, [string, unknown]> = {
  SANDBOX_PORT: ['4321', 4321],
  SANDBOX_HOST: ['0.0.0.0', '0.0.0.0'],
  SANDBOX_DATA: ['/tmp/sandbox.json', '/tmp/sandbox.json'],
  SANDBOX_STORE_URL: ['postgres://sandbox:secret@db.test:5432/sandbox', 'postgres://sandbox:secret@db.test:5432/sandbox'],
  SANDBOX_SYNC: ['full', 'full'],
  SANDBOX_PUBLIC_URL: ['http://sandbox.test:9999', 'http://sandbox.test:9999'],
  SANDBOX_SCENARIOS: ['/srv/scenarios', ['/srv/scenarios']],
  SANDBOX_SCENARIO: ['transaction-failed', 'transaction-failed'],
  SANDBOX_JOURNAL_SIZE: ['77', 77],
  SANDBOX_JOURNAL_MAX_MB: ['3', 3],
  SANDBOX_ALLOWED_HOSTS: ['a.test,b.test', ['a.test', 'b.test']],
  SANDBOX_CONTROL_TOKEN: ['t0ken', 't0ken'],
  SANDBOX_SEED: ['42', '42'],
  SANDBOX_LOG_LEVEL: ['debug', 'debug'],
  SANDBOX_LOG_FORMAT: ['json', 'json'],
  SANDBOX_HTTPS_PORT: ['4443', 4443],
  SANDBOX_PROXY_PORT: ['4080', 4080],
  SANDBOX_TLS_HOSTS: ['seerbitapi.com,api.test', ['seerbitapi.com', 'api.test']],
  SANDBOX_CA_DIR: ['/tmp/ca', '/tmp/ca'],
  SANDBOX_WEBHOOK_URL: ['http://127.0.0.1:3000/webhook', 'http://127.0.0.1:3000/webhook'],
  SANDBOX_IDLE_TIMEOUT: ['12', 12],
  SANDBOX_MAX_CONNECTIONS: ['9', 9],
  SANDBOX_MAX_MERCHANTS: ['8', 8],
  SANDBOX_SNAPSHOT: ['/tmp/state.json', '/tmp/state.json'],
  SANDBOX_FIXTURES: ['a.yaml,b.yaml', ['a.yaml', 'b.yaml']],
};

let saved: NodeJS.ProcessEnv;

// No setting of the sandbox's in the environment, whatever the test's own holds.
function clearSettings(): void {
  for (const name of Object.keys(process.env)) if (name === GENERIC_PORT_VARIABLE || name.startsWith('SANDBOX_')) delete process.env[name];
}

beforeEach(() => {
  saved = { ...process.env };
  clearSettings();
});

afterEach(() => {
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  Object.assign(process.env, saved);
});

/** Every command of the program, the program first. */
function commandsOf(command: Command): Command[] {
  return [command, ...command.commands.flatMap(commandsOf)];
}

/** The program with each command's action replaced by one that records the options it was given: nothing starts. */
function inert(): { command: Command; ran: () => { name: string; options: Record<string, unknown> } | undefined } {
  const command = program().exitOverride();
  let ran: { name: string; options: Record<string, unknown> } | undefined;
  for (const each of commandsOf(command)) {
    each.exitOverride();
    // `scenarios` only dispatches to `list`: an action of its own would take `list` as an argument.
    if (each.name() !== 'scenarios') {
      each.action(() => {
        ran = { name: each.name(), options: each.opts() };
      });
    }
  }
  return { command, ran: () => ran };
}

/** What the command `args` reaches is given, with `env` as the only settings in the environment. */
async function parsed(args: string[], env: Record<string, string> = {}): Promise<{ name: string; options: Record<string, unknown> }> {
  clearSettings();
  Object.assign(process.env, env);
  const { command, ran } = inert();
  await command.parseAsync(args, { from: 'user' });
  return ran()!;
}

/** Each variable an option of `command` reads, with the option's attribute name. */
function variablesOf(command: Command): Array<{ variable: string; key: string; command: Command }> {
  return commandsOf(command).flatMap((each) => each.options.filter((option) => option.envVar !== undefined).map((option) => ({ variable: option.envVar!, key: option.attributeName(), command: each })));
}

/** The path of sub-command names that reaches `target` from the program. */
function pathTo(root: Command, target: Command): string[] {
  if (root === target) return [];
  for (const sub of root.commands) {
    const below = pathTo(sub, target);
    if (below[0] !== '\0') return [sub.name(), ...below];
  }
  return ['\0'];
}

describe('every variable the help names', () => {
  it('has a sample here, so that this test reads it', () => {
    const named = new Set(variablesOf(program()).map(({ variable }) => variable));
    expect([...named].sort()).toEqual(Object.keys(SAMPLES).sort());
  });

  it('sets its option, on the program and on each sub-command that takes it', async () => {
    const root = program();
    for (const { variable, key, command } of variablesOf(root)) {
      const [value, expected] = SAMPLES[variable]!;
      const path = pathTo(root, command);
      // `trigger` needs its event type and payment, `snapshot save|load` its file, `go-live` its merchant.
      const needs: Record<string, string[]> = { trigger: ['transaction', '--reference', 'SBREF-1'], snapshot: ['state.json'], 'go-live': ['--public-key', 'SBTESTPUBK_Options01'] };
      const args = [...path, ...(needs[path[0] ?? ''] ?? [])];
      const { options } = await parsed(args, { [variable]: value });
      expect(options[key], `${variable} on ${path.join(' ') || 'the program'}`).toEqual(expected);
    }
  });

  it('is named once in the help, with its list form or fallback where it has one', () => {
    const root = program();
    for (const command of commandsOf(root)) {
      const help = command.helpInformation().replace(/\s+/g, ' ');
      for (const { variable } of variablesOf(command).filter((each) => each.command === command)) {
        expect(help.match(new RegExp(`\\b${variable}\\b`, 'g')), `${variable} in the help of ${command.name()}`).toHaveLength(1);
      }
    }
    const help = root.helpInformation().replace(/\s+/g, ' ');
    expect(help).toContain('env: SANDBOX_ALLOWED_HOSTS, comma-separated)');
    expect(help).toContain('env: SANDBOX_TLS_HOSTS, comma-separated)');
    expect(help).toContain('(default: 4010, env: SANDBOX_PORT, else PORT)');
    expect(help).not.toContain('env: comma-separated');
    for (const variable of BOOLEAN_VARIABLES) expect(help.match(new RegExp(`\\b${variable}\\b`, 'g')), variable).toHaveLength(1);
  });

  it('shows the defaults the options hold none of: --data and --ca-dir', () => {
    const help = program().helpInformation().replace(/\s+/g, ' ');
    expect(help).toContain('--data <file> JSON store file (default: ./payments-sandbox.json, env: SANDBOX_DATA)');
    expect(help).toContain('(default: $XDG_DATA_HOME/payments-sandbox/ca, or ~/.local/share/payments-sandbox/ca, env: SANDBOX_CA_DIR)');
  });
});

describe('the port from the environment', () => {
  it('SANDBOX_PORT wins over PORT, and --port over both', async () => {
    expect((await parsed([], { SANDBOX_PORT: '5001', PORT: '5002' })).options.port).toBe(5001);
    expect((await parsed(['--port', '5003'], { SANDBOX_PORT: '5001', PORT: '5002' })).options.port).toBe(5003);
    expect((await parsed(['--port', '5003'], { PORT: '5002' })).options.port).toBe(5003);
  });

  it('PORT alone still sets it, for the program and the commands that reach a sandbox', async () => {
    expect((await parsed([], { PORT: '5004' })).options.port).toBe(5004);
    expect((await parsed(['healthcheck'], { PORT: '5005' })).options.port).toBe(5005);
    expect((await parsed(['trigger', 'transaction', '--reference', 'SBREF-1'], { PORT: '5006' })).options.port).toBe(5006);
    expect((await parsed([])).options.port).toBe(4010);
  });

  it('a PORT that is no port stops as a bad SANDBOX_PORT does', async () => {
    const errors: string[] = [];
    Object.assign(process.env, { PORT: 'web' });
    const { command } = inert();
    for (const each of commandsOf(command)) each.configureOutput({ writeErr: (text) => errors.push(text) });
    const error = await command.parseAsync([], { from: 'user' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CommanderError);
    expect((error as CommanderError).exitCode).toBe(1);
    expect(errors.join('')).toContain("error: option '-p, --port <n>' value 'web' from env 'PORT' is invalid. a port is a whole number from 0 to 65535");
  });
});

describe('-v and --version', () => {
  it('both print the version', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
    for (const flag of ['-v', '--version']) {
      let out = '';
      const { command } = inert();
      command.configureOutput({ writeOut: (text) => (out += text) });
      const error = await command.parseAsync([flag], { from: 'user' }).catch((caught: unknown) => caught);
      expect((error as CommanderError).code, flag).toBe('commander.version');
      expect(out, flag).toBe(`${version}\n`);
    }
  });
});

describe("the README's Configuration section", () => {
  it('names the variables the program reads, and no other', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('\n## Configuration\n'), readme.indexOf('\n### Logs\n'));
    const named = new Set(section.match(/\b(?:SANDBOX_[A-Z_]+|PORT)\b/g));
    const read = new Set([...variablesOf(program()).map(({ variable }) => variable), ...BOOLEAN_VARIABLES, GENERIC_PORT_VARIABLE]);
    expect([...named].sort()).toEqual([...read].sort());
  });
});
