import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judge } from '../../src/notifications/send.js';
import { cleanEnv, freePort, ROOT, within } from '../support/process.js';

/**
 * The example notification receivers (examples/receivers/README.md), each run
 * as a child process on a free port and sent notifications the way the
 * provider sends them: they must acknowledge exactly as the provider's current
 * webhook page asks, process a repeated eventId once, and refuse (400) a
 * delivery without X-Expected-Ack-Reference. The Go receiver is not run (no Go
 * toolchain here). The compose example that pairs a receiver with the
 * sandbox: test/docs/compose-example.test.ts.
 */

const RECEIVERS = join(ROOT, 'examples/receivers');
/** How long a receiver may take to listen, and one request may take (the provider waits 5 s). */
const START_WITHIN = 5_000;
const REQUEST_WITHIN = 5_000;

/** Whether a reply acknowledges the delivery that carried `reference`, judged by the sandbox's own rule (src/notifications/send.ts). */
const acknowledges = (status: number, text: string, reference: string): boolean => judge(status, text, { ackReference: reference, acknowledgement: true }) === undefined;

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

interface Receiver {
  child: ChildProcess;
  base: string;
  stdout: () => string;
  stderr: () => string;
}

/** Starts `command args` with PORT set and waits until GET /events answers. */
async function startReceiver(command: string, args: string[]): Promise<Receiver> {
  const port = await freePort();
  const child = spawn(command, args, { cwd: ROOT, env: cleanEnv({ PORT: String(port), HOST: '127.0.0.1' }), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const receiver = { child, base: `http://127.0.0.1:${port}`, stdout: () => stdout, stderr: () => stderr };
  const deadline = Date.now() + START_WITHIN;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${args[0]} exited (${child.exitCode}) before listening:\n${stderr}`);
    const answered = await fetch(`${receiver.base}/events`, { signal: AbortSignal.timeout(500) }).then((response) => response.ok, () => false);
    if (answered) return receiver;
    if (Date.now() > deadline) throw new Error(`${args[0]} did not listen within ${START_WITHIN} ms; stderr:\n${stderr}`);
    await sleep(50);
  }
}

/** A notification body as the sandbox sends it: one item. */
function transaction(eventId: string, reference: string) {
  return {
    notificationItems: [
      {
        notificationRequestItem: {
          eventType: 'transaction',
          eventDate: '2026-11-24 10:00:00',
          eventId,
          data: { amount: 922.63, reference, publicKey: 'SBTESTPUBK_receivers', gatewayCode: '00', gatewayMessage: 'Successful', code: '00' },
        },
      },
    ],
  };
}

function refund(eventId: string, transactionRef: string) {
  return {
    notificationItems: [
      {
        notificationRequestItem: {
          eventType: 'refund',
          eventDate: '2026-11-24 10:05:00',
          eventId,
          data: {
            amount: '922.63',
            transactionRef,
            type: 'FULL_REFUND',
            mode: 'TEST',
            description: 'customer asked',
            createdAt: '2026-11-24 10:05:00',
            updatedAt: '2026-11-24 10:05:00',
          },
        },
      },
    ],
  };
}

/** POSTs `body` to /webhook, with X-Expected-Ack-Reference unless `reference` is undefined. */
async function deliver(receiver: Receiver, body: unknown, reference: string | undefined): Promise<{ status: number; type: string | null; text: string }> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (reference !== undefined) headers['X-Expected-Ack-Reference'] = reference;
  const response = await fetch(`${receiver.base}/webhook`, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(REQUEST_WITHIN) });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

async function eventIds(receiver: Receiver): Promise<string[]> {
  const response = await fetch(`${receiver.base}/events`, { signal: AbortSignal.timeout(REQUEST_WITHIN) });
  expect(response.status).toBe(200);
  return ((await response.json()) as Array<{ eventId: string }>).map((event) => event.eventId);
}

/** The lines of the receiver's stdout that name `eventId`, once at least one has arrived (or after a second). */
async function linesAbout(receiver: Receiver, eventId: string): Promise<string[]> {
  const lines = () => receiver.stdout().split('\n').filter((line) => line.split(' ').includes(eventId));
  for (let tries = 0; tries < 20 && lines().length === 0; tries += 1) await sleep(50);
  return lines();
}

const running: Receiver[] = [];
afterAll(async () => {
  for (const receiver of running) {
    if (receiver.child.exitCode === null && receiver.child.signalCode === null) {
      const exited = new Promise((done) => receiver.child.once('exit', done));
      receiver.child.kill('SIGKILL');
      await within(exited, 5_000, 'a receiver to exit').catch(() => undefined);
    }
  }
});

describe.each([
  { name: 'Node (express)', command: process.execPath, script: 'node/receiver.mjs' },
  { name: 'Python (standard library)', command: 'python3', script: 'python/receiver.py' },
])('the $name receiver', ({ command, script }) => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver(command, [join(RECEIVERS, script)]);
    running.push(receiver);
  }, START_WITHIN + 2_000);

  it('acknowledges a delivery with the header echoed exactly, and processes the event', { timeout: 10_000 }, async () => {
    const eventId = randomUUID().replaceAll('-', '');
    // Mixed case, punctuation and an inner space: echoed exactly means all of it.
    const reference = `Ack-${randomUUID()}/x+y=z.~ end`;
    const reply = await deliver(receiver, transaction(eventId, 'SBREF-1'), reference);
    expect(acknowledges(reply.status, reply.text, reference), `${reply.status} ${reply.text}`).toBe(true);
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text)).toStrictEqual({ ackReference: reference, status: 'received' });
    expect(reply.type).toMatch(/^application\/json/);
    expect(await eventIds(receiver)).toContain(eventId);
    expect(await linesAbout(receiver, eventId)).toEqual([`transaction ${eventId} SBREF-1 00`]);
  });

  it('acknowledges a repeated eventId again but processes it once, whatever came in between', { timeout: 10_000 }, async () => {
    const payment = randomUUID().replaceAll('-', '');
    const refunded = randomUUID().replaceAll('-', '');
    const before = await eventIds(receiver);
    // The refund first, then the payment, then both again: out of order and twice.
    const deliveries: Array<[unknown, string]> = [
      [refund(refunded, 'SBREF-2'), 'ack-1'],
      [transaction(payment, 'SBREF-2'), 'ack-2'],
      [transaction(payment, 'SBREF-2'), 'ack-3'],
      [refund(refunded, 'SBREF-2'), 'ack-4'],
    ];
    for (const [body, reference] of deliveries) {
      const reply = await deliver(receiver, body, reference);
      expect(acknowledges(reply.status, reply.text, reference), `${reference}: ${reply.status} ${reply.text}`).toBe(true);
    }
    const after = await eventIds(receiver);
    expect(after.slice(before.length)).toEqual([refunded, payment]);
    expect(await linesAbout(receiver, refunded)).toEqual([`refund ${refunded} SBREF-2 -`]);
    expect(await linesAbout(receiver, payment)).toEqual([`transaction ${payment} SBREF-2 00`]);
  });

  it('answers 400 to a delivery without X-Expected-Ack-Reference, and does not process it', { timeout: 10_000 }, async () => {
    const eventId = randomUUID().replaceAll('-', '');
    for (const reference of [undefined, '']) {
      const reply = await deliver(receiver, transaction(eventId, 'SBREF-3'), reference);
      expect(reply.status, reply.text).toBe(400);
      expect(reply.text).not.toContain('received');
    }
    expect(await eventIds(receiver)).not.toContain(eventId);
    // Still unprocessed, so the retry that carries the header is processed.
    const retried = await deliver(receiver, transaction(eventId, 'SBREF-3'), 'ack-5');
    expect(acknowledges(retried.status, retried.text, 'ack-5'), `${retried.status} ${retried.text}`).toBe(true);
    expect(await eventIds(receiver)).toContain(eventId);
  });
});
