import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { Receiver } from '../support/receiver.js';
import { listeningSandbox } from '../support/sandbox.js';
import { loadAnswerChecks, problemsOf } from './support/answers.js';
import { changeBetween, storedState, storeState, type StoredState } from './support/control-state.js';
import { describeGroup, Findings, type Finding } from './support/findings.js';
import { withLinks, type FuzzCase, type FuzzContext, type FuzzMerchant } from './support/fuzz-context.js';
import { fuzzCase } from './support/fuzz-requests.js';
import { knob, seedFrom } from './support/knobs.js';
import { documentedOperations } from './support/payments-document.js';
import { jsonRequest, sendRaw, type RawAnswer } from './support/raw-http.js';
import { captureStderr, hasStackTrace, UNCAUGHT, type StderrCapture } from './support/stderr.js';

/**
 * Property-based fuzz of the Payments API over real HTTP: requests generated
 * from openapi/payments-api.yaml (valid, almost valid, garbage) go one at a
 * time to a sandbox listening on 127.0.0.1, and every answer is checked:
 * an answer at all, JSON in a documented shape, no 500 but the documented
 * ones, no stack trace on stderr, no exception left uncaught, and no change
 * to the stored merchants, payments or orders by a request that was refused.
 *
 * The stored state is read around each request from the sandbox's store, in
 * this process, through the lists the control API serves (three control
 * requests around each of thousands would double the run); at every reset the
 * control API's own lists are checked against it.
 *
 * Notifications are on: every merchant's go to a receiver on loopback, and
 * each must reach it in the provider's shape and be acknowledged.
 *
 * FUZZ_RUNS (default 5000) sets how many requests; FUZZ_SEED replays a run;
 * FUZZ_TIME_LIMIT_S bounds its time. Every distinct failure is reported once,
 * with the shortest request that met it; the full list goes to a JSON file
 * in the temporary folder, named in the output.
 */

const RUNS = knob('FUZZ_RUNS', 5000);
const TIME_LIMIT_S = knob('FUZZ_TIME_LIMIT_S', Math.max(300, Math.ceil(RUNS / 20)));
/** How long one answer may take: the sandbox answers on loopback in milliseconds, so this is a hang. */
const ANSWER_WITHIN_MS = 3_000;
/** A kind of request left unanswered this often is not sent again: each costs the whole wait. */
const UNANSWERED_AT_MOST = 1;
/** Payments and orders are forgotten this often, so that reading the state stays cheap. */
const RESET_EVERY = 250;
const REFERENCES = ['FZ-1', 'FZ-2', 'FZ-3'];

const CATEGORIES = {
  noAnswer: 'no answer',
  unexpected500: 'unexpected 500',
  undocumented: 'not a documented answer',
  outsideDocument: 'answer outside the document',
  crash: 'exception nobody caught',
  stackTrace: 'stack trace on stderr',
  stateChange: 'state changed by a refused request',
  merchantCreated: 'merchant created by a refused request',
  controlView: 'control API lists differ from the store',
} as const;

let sandbox: Sandbox;
let receiver: Receiver;
let stderr: StderrCapture;
const findings = new Findings();
let sent = 0;
let skipped = 0;
const unanswered = new Map<string, number>();
/** How often each operation answered with each status and code: what the run reached. */
const outcomes = new Map<string, number>();
/** paymentReference -> linkingReference, as the sandbox's answers gave them. */
const learnt = new Map<string, string>();
const byKind = new Map<string, number>();
let reportFile = '';

/** A merchant with a key pair of the seed's own, and its token from the key exchange. */
async function merchantOf(origin: string, publicKey: string, secretKey: string): Promise<FuzzMerchant> {
  const answer = await sendRaw(origin, jsonRequest('POST', '/api/v2/encrypt/keys', { key: `${secretKey}.${publicKey}` }));
  const token = (answer.json as any)?.data?.EncryptedSecKey?.encryptedKey;
  if (answer.status !== 200 || typeof token !== 'string') throw new Error(`the key exchange for the fuzz merchant answered ${answer.status} ${answer.text}`);
  return { publicKey, secretKey, token };
}

/** What an answer says, in one line: its message, or the first line of an HTML error page. */
function messageOf(answer: RawAnswer): string {
  const body = answer.json as any;
  const message = body?.message ?? body?.data?.message ?? body?.error;
  if (typeof message === 'string') return message.slice(0, 80);
  const page = /<pre>([^<]*)/.exec(answer.text)?.[1];
  return (page ?? answer.text).replace(/\s+/g, ' ').trim().slice(0, 80);
}

/** Sends one generated request and records whatever is wrong with what follows; returns the state after it. */
async function check(generated: FuzzCase, before: StoredState): Promise<StoredState> {
  if ((unanswered.get(generated.what) ?? 0) >= UNANSWERED_AT_MOST) {
    skipped += 1;
    return before;
  }
  const fuzz = { ...generated, request: withLinks(generated.request, learnt) };
  const answer = await sendRaw(sandbox.url, fuzz.request, ANSWER_WITHIN_MS);
  const data = (answer.json as any)?.data;
  const outcome = `${fuzz.operationId ?? '-'} ${answer.status} ${data?.code ?? ''}`.trim();
  outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
  const payments = data?.payments;
  if (typeof payments?.paymentReference === 'string' && typeof payments?.linkingReference === 'string') learnt.set(payments.paymentReference, payments.linkingReference);
  if (answer.status === 0) unanswered.set(fuzz.what, (unanswered.get(fuzz.what) ?? 0) + 1);
  sent += 1;
  byKind.set(fuzz.kind, (byKind.get(fuzz.kind) ?? 0) + 1);
  // Express logs an error it rendered itself on a later turn of the event loop: let that happen before reading stderr.
  for (let turn = 0; turn < 3; turn += 1) await new Promise((resolve) => setImmediate(resolve));
  const written = stderr.takeNew();
  const said = `${answer.status} ${messageOf(answer)}`;
  const base: Omit<Finding, 'category' | 'key' | 'detail'> = {
    what: `${fuzz.kind}: ${fuzz.what}`,
    operation: fuzz.operationId,
    request: fuzz.request,
    answer,
    stderr: written || undefined,
  };
  for (const problem of problemsOf(fuzz.request, answer)) {
    const key =
      problem.category === 'no answer'
        ? fuzz.what
        : problem.category === 'answer outside the document'
          ? `${answer.status}: ${problem.detail.slice(0, 140)}`
          : problem.category === 'unexpected 500'
            ? said
            : `${said} (${problem.detail})`;
    findings.add({ ...base, category: problem.category, key, detail: problem.detail });
  }
  const firstError = (text: string) => text.split('\n').find((line) => /\w*Error\b/.test(line)) ?? text.split('\n')[0]!;
  if (written.includes(UNCAUGHT)) {
    const line = firstError(written.slice(written.indexOf(UNCAUGHT) + UNCAUGHT.length)).trim();
    findings.add({ ...base, category: CATEGORIES.crash, key: line.slice(0, 160), detail: line });
  } else if (hasStackTrace(written)) {
    const line = firstError(written).trim();
    findings.add({ ...base, category: CATEGORIES.stackTrace, key: line.slice(0, 160), detail: line });
  }
  const after = storeState(sandbox.store);
  if (answer.status === 0 || answer.status >= 400) {
    const change = changeBetween(before, after);
    if (change.merchantsAdded.length > 0) {
      findings.add({ ...base, category: CATEGORIES.merchantCreated, key: said, detail: `merchants added: ${change.merchantsAdded.join(', ')}` });
    }
    if (change.records.length > 0 || change.merchantsRemoved.length > 0) {
      const detail = [...change.records, ...change.merchantsRemoved.map((key) => `merchant ${key} removed`)].join('; ');
      findings.add({ ...base, category: CATEGORIES.stateChange, key: said, detail: detail.slice(0, 600) });
    }
  }
  return after;
}

/** Forgets payments and orders over the control API, and checks that its lists are the store's. */
async function resetAndCompare(): Promise<StoredState> {
  const reset = await fetch(`${sandbox.url}/__sandbox/reset`, { method: 'POST', signal: AbortSignal.timeout(10_000) });
  if (reset.status !== 200) throw new Error(`POST /__sandbox/reset answered ${reset.status}: ${await reset.text()}`);
  const listed = await storedState(sandbox.url);
  const held = storeState(sandbox.store);
  const keys = (state: StoredState) => ({ merchants: state.merchants, payments: [...state.payments.keys()].sort(), orders: [...state.orders.keys()].sort() });
  if (JSON.stringify(keys(listed)) !== JSON.stringify(keys(held))) {
    findings.add({
      category: CATEGORIES.controlView,
      key: 'after a reset',
      detail: `control API ${JSON.stringify(keys(listed)).slice(0, 300)}; store ${JSON.stringify(keys(held)).slice(0, 300)}`,
      what: 'reset',
      request: { method: 'POST', target: '/__sandbox/reset' },
    });
  }
  return held;
}

beforeAll(async () => {
  const seed = seedFrom('FUZZ_SEED', 'Payments API fuzz');
  stderr = captureStderr();
  // The executable runs without NODE_ENV, where express writes the stack of an error that reaches its own handler to stderr; under test it keeps quiet.
  const mode = process.env.NODE_ENV;
  delete process.env.NODE_ENV;
  try {
    receiver = await Receiver.start();
    sandbox = await listeningSandbox({ seed: String(seed), webhookUrl: receiver.url });
  } finally {
    if (mode !== undefined) process.env.NODE_ENV = mode;
  }
  await loadAnswerChecks();
  const tag = (seed >>> 0).toString(16).padStart(8, '0');
  const context: FuzzContext = {
    merchant: await merchantOf(sandbox.url, `SBTESTPUBK_fuzz${tag}m`, `SBTESTSECK_fuzz${tag}m`),
    stranger: await merchantOf(sandbox.url, `SBTESTPUBK_fuzz${tag}s`, `SBTESTSECK_fuzz${tag}s`),
    references: REFERENCES,
  };
  let state = storeState(sandbox.store);
  const started = Date.now();
  let generated = 0;
  await fc.assert(
    fc.asyncProperty(fuzzCase(context), async (fuzz) => {
      if (generated > 0 && generated % RESET_EVERY === 0) state = await resetAndCompare();
      generated += 1;
      state = await check(fuzz, state);
    }),
    { seed, numRuns: RUNS, interruptAfterTimeLimit: TIME_LIMIT_S * 1000, markInterruptAsFailure: false, endOnFailure: true },
  );
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  reportFile = join(tmpdir(), `payments-sandbox-fuzz-${seed}.json`);
  writeFileSync(reportFile, JSON.stringify({ seed, sent, skipped, byKind: Object.fromEntries(byKind), outcomes: Object.fromEntries([...outcomes].sort()), groups: findings.all() }, null, 2));
  console.log(
    `Payments API fuzz: ${sent} requests in ${seconds} s (${[...byKind].map(([kind, count]) => `${count} ${kind}`).join(', ')}), ` +
      `${skipped} more not sent after their kind went unanswered; ${findings.all().length} distinct failures, all in ${reportFile}`,
  );
}, (TIME_LIMIT_S + 60) * 1000);

afterAll(async () => {
  stderr?.restore();
  await sandbox?.close();
  await receiver?.close();
});

/** Fails listing every group of the category, each with its shortest request and answer. */
function expectNone(category: string): void {
  const groups = findings.of(category);
  expect(groups.map(describeGroup).join('\n\n'), `${groups.length} distinct failures (${category}); all in ${reportFile}`).toBe('');
}

describe(`the Payments API under ${RUNS} generated requests`, () => {
  it('covers every operation of the document and sends every request it generated', () => {
    expect(documentedOperations().length).toBeGreaterThanOrEqual(12);
    // Kinds of request already left unanswered are not sent again (see UNANSWERED_AT_MOST).
    expect(sent + skipped, 'requests generated before the time limit').toBe(RUNS);
  });

  it('reaches a 200 or 201 answer of nearly every operation, so that the requests go past validation into them', () => {
    // A refund or an OTP completion needs a chain of earlier answers (paid, pending): a run may miss one or two.
    const operations = documentedOperations().map((operation) => operation.operationId);
    const answered = operations.filter((id) => [...outcomes.keys()].some((outcome) => outcome.startsWith(`${id} 20`)));
    const missed = operations.filter((id) => !answered.includes(id)).map((id) => `${id} (${[...outcomes.keys()].filter((outcome) => outcome.startsWith(`${id} `)).map((outcome) => outcome.slice(id.length + 1)).join(', ')})`);
    expect(answered.length, `operations answered 200: ${answered.join(', ')}; not: ${missed.join('; ')}`).toBeGreaterThanOrEqual(Math.ceil(operations.length * 0.8));
  });

  it('answers every request', () => expectNone(CATEGORIES.noAnswer));
  it('answers no 500 but the documented ones', () => expectNone(CATEGORIES.unexpected500));
  it('answers every request with JSON in one of the documented shapes', () => expectNone(CATEGORIES.undocumented));
  it("answers each operation's requests as the document describes", () => expectNone(CATEGORIES.outsideDocument));
  it('throws no exception that nobody catches', () => expectNone(CATEGORIES.crash));
  it('writes no stack trace to stderr', () => expectNone(CATEGORIES.stackTrace));
  it('changes no payment or order on a refused request', () => expectNone(CATEGORIES.stateChange));
  it('creates no merchant on a refused request', () => expectNone(CATEGORIES.merchantCreated));
  it('lists over the control API what the store holds', () => expectNone(CATEGORIES.controlView));
  it('sends the notifications of what it stored in the provider shape, each acknowledged by the receiver', async () => {
    await expect.poll(() => sandbox.webhooks.deliveries({ state: 'scheduled' }).length, { timeout: 10_000 }).toBe(0);
    expect(sandbox.webhooks.deliveries().filter((delivery) => delivery.state !== 'delivered')).toEqual([]);
    // Declined cards and wrong OTPs are among the valid requests: a run that notified nothing tested nothing here.
    expect(receiver.received.length).toBeGreaterThan(0);
    for (const got of receiver.received) {
      expect(Object.keys(got.body)).toEqual(['notificationItems']);
      expect(got.item).toMatchObject({ eventType: expect.stringMatching(/^(transaction|refund)$/), eventDate: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/), eventId: expect.stringMatching(/^[0-9a-f]{32}$/) });
      expect(typeof got.item.data).toBe('object');
    }
  });
});
