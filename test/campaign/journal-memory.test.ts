import { afterAll, describe, expect, it } from 'vitest';
import { banner, rssMb, run, stopAll } from '../support/process.js';
import { send } from './support/api.js';
import { knob } from './support/knobs.js';

/**
 * The request journal under 1 MB bodies: requests refused at once, each
 * carrying a body just under the 1 MB the API reads from a merchant. Most
 * are refused with 403 (no Authorization), before their bodies are read;
 * one in ten goes to the key exchange, which needs no credentials and reads
 * no more than 64 KB from anyone (413). The journal keeps the last requests (5000 by
 * default); were it to keep their bodies whole, a few hundred such requests
 * would take gigabytes. The process must stay up and its resident memory
 * under 300 MB, read from /proc/<pid>/status. JOURNAL_RUNS sets the number of
 * requests (default 500; 5000 fills the default journal).
 *
 * JOURNAL_HEAP_MB caps the JavaScript heap (default: uncapped): each body
 * that is read leaves megabytes of garbage, and a cap shows what is kept
 * rather than the collector's pace.
 */

const RUNS = knob('JOURNAL_RUNS', 500);
const RSS_LIMIT_MB = 300;
/** Just under the 1 MB (1,048,576 bytes) the API reads from a merchant. */
const BODY_BYTES = 1_000_000;
/** The heap cap in MB: the sandbox's own 64 MB or so at rest, its bounded journal, and room for a few requests' garbage. */
const HEAP_MB = knob('JOURNAL_HEAP_MB', 0);
/** Requests sent at once: the sandbox reads one while the next is on its way. */
const AT_ONCE = 5;
/** One body in this many has many short fields; the others one long string (many fields cost the sandbox far more time to read). */
const FIELDS_EVERY = 25;
/** One request in this many goes where no credentials are needed: the key exchange. */
const READ_EVERY = 10;

afterAll(async () => {
  await stopAll();
});

/** A JSON body of about `bytes` bytes: one long string, or many short fields (which cost far more memory once parsed). */
function bodyOf(manyFields: boolean, bytes: number): string {
  const head = `{"publicKey":"SBTESTPUBK_journal0000001","paymentReference":"JRN-1"`;
  if (!manyFields) return `${head},"pad":"${'x'.repeat(bytes - head.length - 10)}"}`;
  const fields: string[] = [];
  let length = head.length + 1;
  for (let n = 0; length + 20 < bytes; n += 1) {
    const field = `,"f${n}":${n}`;
    fields.push(field);
    length += field.length;
  }
  return `${head}${fields.join('')}}`;
}

describe.runIf(process.platform === 'linux')(`the journal after ${RUNS} requests with 1 MB bodies`, () => {
  it(`keeps the process up and under ${RSS_LIMIT_MB} MB`, { timeout: 60_000 + RUNS * 200 }, async () => {
    const capped = HEAP_MB > 0 ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --max-old-space-size=${HEAP_MB}`.trim() } : undefined;
    const started = run(['--port', '0', '--in-memory'], { env: capped });
    const shown = await banner(started);
    const pid = started.child.pid!;
    const bodies = [bodyOf(false, BODY_BYTES), bodyOf(true, BODY_BYTES)];
    for (const body of bodies) expect(Buffer.byteLength(body)).toBeLessThan(1_048_576);
    let highest = await rssMb(pid);
    const startedAt = Date.now();
    const refused = new Map<string, number>();
    for (let index = 0; index < RUNS; index += AT_ONCE) {
      // The same two strings every time: the memory that grows is the sandbox's, not the test's.
      const answers = await Promise.all(
        Array.from({ length: Math.min(AT_ONCE, RUNS - index) }, (_, offset) =>
          send(shown.origin, 'POST', (index + offset) % READ_EVERY === 0 ? '/api/v2/encrypt/keys' : '/api/v2/payments/initiates', {
            body: bodies[(index + offset) % FIELDS_EVERY === 0 ? 1 : 0],
          }),
        ),
      );
      for (const answer of answers) {
        const seen = `${answer.status} ${answer.body?.message ?? ''}`;
        refused.set(seen, (refused.get(seen) ?? 0) + 1);
      }
      if (answers.some((answer) => answer.status === 0)) break;
      highest = Math.max(highest, await rssMb(pid));
      // Past the limit the outcome is known: stop before the machine runs short.
      if (highest > RSS_LIMIT_MB) break;
    }
    if (started.child.exitCode === null && started.child.signalCode === null) highest = Math.max(highest, await rssMb(pid));
    const sent = [...refused.values()].reduce((sum, n) => sum + n, 0);
    const heap = HEAP_MB > 0 ? `heap capped at ${HEAP_MB} MB` : 'heap uncapped';
    console.log(`journal memory: ${sent} requests of 1 MB in ${((Date.now() - startedAt) / 1000).toFixed(1)} s (${heap}), highest RSS ${highest.toFixed(0)} MB`);

    expect({ code: started.child.exitCode, signal: started.child.signalCode }, `the sandbox exited: ${started.stderr().slice(-2000)}`).toEqual({ code: null, signal: null });
    expect(highest, `highest RSS in MB after ${sent} requests`).toBeLessThan(RSS_LIMIT_MB);
    const read = Math.ceil(RUNS / READ_EVERY);
    expect(Object.fromEntries(refused)).toEqual({ '403 Header Token Missing': RUNS - read, '413 Payload Too Large': read });
    const journal = await send(shown.origin, 'GET', '/__sandbox/requests?limit=1');
    expect(journal.status).toBe(200);
    expect((await send(shown.origin, 'GET', '/__sandbox/health')).status).toBe(200);
  });
});
