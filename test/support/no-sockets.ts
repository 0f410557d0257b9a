import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import { afterAll, afterEach, expect } from 'vitest';

/**
 * The guard of the unit project (vitest.config.ts): its tests claim to need
 * no socket and no child process, and this makes the claim checked. Listening
 * (`net.Server.prototype.listen`: HTTP, HTTPS and every other server),
 * connecting (`net.Socket.prototype.connect`: HTTP clients, fetch, a raw
 * socket) and starting a process (`child_process`: spawn, fork, exec,
 * execFile and their sync forms) throw, naming what was tried. The sandbox
 * catches some failures on purpose (a notification that cannot be sent is
 * retried later), so each attempt is also recorded, and the test in which one
 * was made fails after it, even if the error was swallowed.
 */

const attempts: string[] = [];

function refuse(what: string): () => never {
  return function refused(): never {
    const error = new Error(`${what}: a unit test may open no socket and start no process; a test that needs one belongs to the e2e project (outside test/unit/)`);
    // The message and the first frames say what was tried and from where; the rest is node's own.
    attempts.push((error.stack ?? error.message).split('\n').slice(0, 6).join('\n'));
    throw error;
  };
}

net.Server.prototype.listen = refuse('net.Server.prototype.listen') as typeof net.Server.prototype.listen;
net.Socket.prototype.connect = refuse('net.Socket.prototype.connect') as typeof net.Socket.prototype.connect;
const processes = childProcess as unknown as Record<string, unknown>;
for (const name of ['spawn', 'spawnSync', 'fork', 'exec', 'execSync', 'execFile', 'execFileSync']) processes[name] = refuse(`child_process.${name}`);
// ESM imports of node:child_process read the module's named exports: bring them in line with the object.
syncBuiltinESMExports();

const noAttempt = () => {
  const seen = attempts.splice(0);
  expect(seen, 'a socket was opened or a process started').toEqual([]);
};
afterEach(noAttempt);
afterAll(noAttempt);
