import { describe, expect, it } from 'vitest';
import { listenProblem, storeProblem } from '../../../src/cli/listen-and-store-problems.js';

/**
 * Start-up refusals of a port or a `--store` URL: one line naming what was
 * asked and the fix (docs/decisions.md#d68-start-up-refusals), never the
 * database password. The process-level checks: test/cli/cli-errors.test.ts.
 */

const inUse = (port: number) => Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE', port });

describe('listenProblem', () => {
  it('a taken port names that port and --port, and Prism only when the port is Prism\'s default', () => {
    expect(listenProblem(inUse(8080), {})).toBe('port 8080 on 127.0.0.1 is already in use: stop what uses it, or pick another with --port <n> (0: any free port)');
    expect(listenProblem(inUse(4010), { host: '0.0.0.0' })).toBe("port 4010 on 0.0.0.0 is already in use (4010 is Prism's default too: a mock server left running?): stop what uses it, or pick another with --port <n> (0: any free port)");
  });

  it('names the flag of the listener that could not start', () => {
    expect(listenProblem(inUse(4443), { httpsPort: 4443 })).toMatch(/^port 4443 on 127\.0\.0\.1 is already in use: .* --https-port <n>/);
    expect(listenProblem(inUse(4080), { proxyPort: 4080 })).toMatch(/--proxy-port <n>/);
  });

  it('is nothing for an error that is not a listener\'s', () => {
    expect(listenProblem(new Error('boom'), {})).toBeUndefined();
  });
});

describe('storeProblem', () => {
  const url = 'postgres://app:s3cret@db.example:5433/shop';
  const refusal = (words: string) => `cannot open the store at db.example:5433/shop: ${words}`;

  it('an unknown host: check the URL\'s host', () => {
    expect(storeProblem(refusal('getaddrinfo ENOTFOUND db.example'), url)).toBe("cannot open the store at db.example:5433/shop: host db.example not found: check the URL's host (postgres://user:pass@HOST:port/db), or that this machine can resolve it");
  });

  it('a missing database: the createdb command that makes it, with host, port and user but no password', () => {
    expect(storeProblem(refusal('database "shop" does not exist'), url)).toBe('cannot open the store at db.example:5433/shop: database shop does not exist: create it with `createdb -h db.example -p 5433 -U app shop` (or CREATE DATABASE in psql), or name an existing one in the URL\'s path');
  });

  it('nothing listening, a missing user, a refused password', () => {
    expect(storeProblem(refusal('connect ECONNREFUSED 10.0.0.5:5433'), url)).toMatch(/: nothing accepts connections at db\.example:5433: start PostgreSQL there, or check the URL's host and port$/);
    expect(storeProblem(refusal('role "app" does not exist'), url)).toMatch(/: the user app does not exist on that server: create it with `createuser -h db\.example -p 5433 -P app`/);
    expect(storeProblem(refusal('password authentication failed for user "app"'), url)).toMatch(/: the server refused the user app or its password: check both in the URL \(postgres:\/\/USER:PASSWORD@host:port\/shop\)$/);
  });

  it('never writes the password, whatever the refusal', () => {
    for (const words of ['getaddrinfo ENOTFOUND db.example', 'database "shop" does not exist', 'connect ECONNREFUSED', 'role "app" does not exist', 'password authentication failed for user "app"', 'connect ETIMEDOUT']) {
      expect(storeProblem(refusal(words), url)).not.toContain('s3cret');
    }
  });

  it('leaves a refusal it has no fix for as it was', () => {
    const newer = 'the database at db.example:5433/shop holds schema migration 0009, newer than this payments-sandbox knows (up to 0003): run a newer one, or point --store at another database';
    expect(storeProblem(newer, url)).toBe(newer);
  });
});
