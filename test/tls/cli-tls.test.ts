import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { get as httpsGet } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { banner, EXIT_WITHIN, run, START_WITHIN, stopAll, TIMEOUT, within } from '../support/process.js';

/** HTTPS and proxy mode from the command line: `payments-sandbox ca` and the flags. */

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payments-sandbox-tls-cli-'));
});

afterEach(async () => {
  await stopAll();
  await rm(dir, { recursive: true, force: true });
});

/** Runs `payments-sandbox ca ...` to its end; answers what it printed. */
async function ca(args: string[], env: Record<string, string> = {}): Promise<string> {
  const started = run(args, { env });
  const { code } = await within(started.closed, START_WITHIN, `payments-sandbox ${args.join(' ')} to exit`);
  expect(code, started.stderr()).toBe(0);
  return started.stdout();
}

describe('payments-sandbox ca', () => {
  it('prints the CA certificate path alone, creating the CA once and reusing it, and serves nothing', { timeout: TIMEOUT }, async () => {
    const caDir = join(dir, 'ca');
    const printed = await ca(['ca', '--ca-dir', caDir]);
    expect(printed).toBe(`${join(caDir, 'ca.pem')}\n`);
    const first = await readFile(join(caDir, 'ca.pem'), 'utf8');
    expect(new X509Certificate(first).ca).toBe(true);
    // The folder can also come before the sub-command, or from the environment.
    expect(await ca(['--ca-dir', caDir, 'ca'])).toBe(printed);
    expect(await ca(['ca'], { SANDBOX_CA_DIR: caDir })).toBe(printed);
    expect(await readFile(join(caDir, 'ca.pem'), 'utf8')).toBe(first);
  });

  it('defaults to $XDG_DATA_HOME/payments-sandbox/ca', { timeout: TIMEOUT }, async () => {
    expect(await ca(['ca'], { XDG_DATA_HOME: dir })).toBe(`${join(dir, 'payments-sandbox', 'ca', 'ca.pem')}\n`);
  });
});

describe('payments-sandbox --https-port --proxy-port --tls-host', () => {
  it('prints the HTTPS URL, the proxy and the CA file, and serves HTTPS for the names given', { timeout: TIMEOUT }, async () => {
    const caDir = join(dir, 'ca');
    const started = run(['--in-memory', '--port', '0', '--https-port', '0', '--proxy-port', '0', '--tls-host', 'seerbitapi.com', '--ca-dir', caDir], {
      env: { SANDBOX_TLS_HOSTS: 'pilot.example.test,api.example.test' },
    });
    const shown = await banner(started);
    const https = /HTTPS\s+(https:\/\/127\.0\.0\.1:\d+)\/api\/v2\s+\(certificate for ([^)]*)\)/.exec(shown.text);
    expect(https, shown.text).not.toBeNull();
    // A flag given on the command line wins over the environment, as for every option.
    expect(https![2]).toBe('localhost, 127.0.0.1, ::1, seerbitapi.com');
    expect(shown.text).toMatch(/proxy\s+http:\/\/127\.0\.0\.1:\d+\s+\(reaches the sandbox as seerbitapi\.com; refuses the rest\)/);
    expect(shown.text).toContain(`CA            ${join(caDir, 'ca.pem')}`);
    const ca = await readFile(join(caDir, 'ca.pem'));
    const status = await within(
      new Promise<number>((done, fail) => {
        httpsGet(`${https![1]}/__sandbox/health`, { ca }, (res) => {
          res.resume();
          done(res.statusCode!);
        }).on('error', fail);
      }),
      EXIT_WITHIN,
      'GET /__sandbox/health over HTTPS',
    );
    expect(status).toBe(200);
  });

  it('takes the names from SANDBOX_TLS_HOSTS, comma-separated', { timeout: TIMEOUT }, async () => {
    const started = run(['--in-memory', '--port', '0', '--https-port', '0', '--ca-dir', join(dir, 'ca')], {
      env: { SANDBOX_TLS_HOSTS: 'pilot.example.test,api.example.test' },
    });
    expect((await banner(started)).text).toContain('(certificate for localhost, 127.0.0.1, ::1, pilot.example.test, api.example.test)');
  });

  it('refuses a --tls-host that is not a host name, and starts nothing', { timeout: TIMEOUT }, async () => {
    const started = run(['--in-memory', '--port', '0', '--https-port', '0', '--tls-host', 'https://seerbitapi.com', '--ca-dir', join(dir, 'ca')]);
    const { code } = await within(started.closed, START_WITHIN, 'the refusal');
    expect(code).not.toBe(0);
    expect(started.stderr()).toMatch(/--tls-host.*not a host name/);
  });
});

describe('--tls-host without a listener', () => {
  it('exits 2 with one line saying what to add, instead of ignoring the name', { timeout: TIMEOUT }, async () => {
    const started = run(['--tls-host', 'seerbitapi.com', '--port', '0', '--in-memory']);
    const { code } = await within(started.closed, START_WITHIN, 'payments-sandbox to exit');
    expect(code).toBe(2);
    expect(started.stderr()).toContain('--tls-host names hosts for HTTPS: add --https-port <n> or --proxy-port <n>');
  });
});
