import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/go-live/check.js';
import { GO_LIVE_CHECK_IDS, type GoLiveReport, type GoLiveRun, type GoLiveRunStep, type GoLiveVerdict } from '../../src/model/go-live.js';
import { EXIT_WITHIN, run, stopAll, within } from '../support/process.js';

/**
 * `payments-sandbox go-live --run` following a run (POST
 * /__sandbox/go-live/{publicKey}/runs, then GET .../runs/{id} until it is
 * done, then the report), against a stub of the control API on loopback
 * that plays a run's answers in turn: the order of the requests, each step
 * told once as its result comes in, and the exit code of the report that
 * follows. The built CLI, as a process.
 */

const PUBLIC_KEY = 'SBTESTPUBK_RunStub0001';
const RUN_ID = 'run_0123456789ab';
const TOKEN = 'stub-control-token';

const step = (name: GoLiveRunStep['step'], result: GoLiveRunStep['result'], detail?: string): GoLiveRunStep => ({
  step: name,
  eventType: name === 'dispute' ? 'dispute' : 'transaction',
  eventId: `evt-${name}`,
  paymentReference: name === 'false-success' ? `GOLIVE-${RUN_ID}-FAILED` : `GOLIVE-${RUN_ID}-PAID`,
  ...(result === 'waiting' ? {} : { answer: { status: 200, ackReference: 'ack', ms: 7 } }),
  result,
  ...(detail === undefined ? {} : { detail }),
});

/** What GET .../runs/{id} answers, one look after the other: the last is repeated. */
const LOOKS: GoLiveRun[] = [
  { id: RUN_ID, status: 'running', startedAt: '2026-11-24T10:00:00.000Z', steps: [step('success', 'waiting')] },
  { id: RUN_ID, status: 'running', startedAt: '2026-11-24T10:00:00.000Z', steps: [step('success', 'pass'), step('duplicate', 'waiting')] },
  { id: RUN_ID, status: 'running', startedAt: '2026-11-24T10:00:00.000Z', steps: [step('success', 'pass'), step('duplicate', 'fail', 'the ackReference was not echoed'), step('dispute', 'pass')] },
  {
    id: RUN_ID, status: 'done', startedAt: '2026-11-24T10:00:00.000Z', finishedAt: '2026-11-24T10:00:31.000Z',
    steps: [step('success', 'pass'), step('duplicate', 'fail', 'the ackReference was not echoed'), step('dispute', 'pass'), step('false-success', 'pass')],
  },
];

function reportOf(verdict: GoLiveVerdict): GoLiveReport {
  const checks = GO_LIVE_CHECK_IDS.map((id) => ({ id, ...CHECKS[id], status: verdict === 'ready' || id !== 'notification-duplicate-acknowledged' ? 'pass' as const : 'fail' as const, summary: id, evidence: [] }));
  return { publicKey: PUBLIC_KEY, since: '2026-11-24T09:00:00.000Z', generatedAt: '2026-11-24T10:00:32.000Z', verdict, checks };
}

/** The stub: what it was asked, in order, and what it answers. */
const stub = { requests: [] as string[], looks: 0, verdict: 'ready' as GoLiveVerdict, refuseRun: false };
let server: Server;
let origin: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '';
    stub.requests.push(`${req.method} ${path}`);
    const answer = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return answer(401, { message: 'the control token is missing', error: 'UNAUTHORIZED' });
    const base = `/__sandbox/go-live/${PUBLIC_KEY}`;
    if (req.method === 'POST' && path === `${base}/runs`) {
      return stub.refuseRun ? answer(409, { message: 'a run of this merchant is running', error: 'CONFLICT' }) : answer(202, { id: RUN_ID, status: 'running' });
    }
    if (req.method === 'GET' && path === `${base}/runs/${RUN_ID}`) return answer(200, LOOKS[Math.min(stub.looks++, LOOKS.length - 1)]);
    if (req.method === 'GET' && path === base) return answer(200, reportOf(stub.verdict));
    answer(404, { message: `no ${req.method} ${path} in this stub`, error: 'NOT_FOUND' });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  await stopAll();
  Object.assign(stub, { requests: [], looks: 0, verdict: 'ready', refuseRun: false });
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

async function goLive(...args: string[]) {
  const started = run(['go-live', '--public-key', PUBLIC_KEY, '--url', origin, '--run', ...args], { env: { SANDBOX_CONTROL_TOKEN: TOKEN } });
  const { code } = await within(started.closed, EXIT_WITHIN, 'payments-sandbox go-live to exit');
  return { code, stdout: started.stdout(), stderr: started.stderr() };
}

describe('payments-sandbox go-live --run, against a stub of the control API', () => {
  it('starts the run, follows it until done, telling each step once as its result comes in, then prints the report', async () => {
    const exit = await goLive();
    expect(exit.code, exit.stderr).toBe(0);
    const runPath = `/__sandbox/go-live/${PUBLIC_KEY}/runs`;
    expect(stub.requests[0]).toBe(`POST ${runPath}`);
    expect(stub.requests.slice(1, -1)).toEqual(Array(LOOKS.length).fill(`GET ${runPath}/${RUN_ID}`));
    expect(stub.requests.at(-1)).toBe(`GET /__sandbox/go-live/${PUBLIC_KEY}`);
    expect(exit.stderr.trimEnd().split('\n')).toEqual([
      `run step success (transaction of GOLIVE-${RUN_ID}-PAID, answered 200 in 7 ms): pass`,
      `run step duplicate (transaction of GOLIVE-${RUN_ID}-PAID, answered 200 in 7 ms): fail: the ackReference was not echoed`,
      `run step dispute (dispute of GOLIVE-${RUN_ID}-PAID, answered 200 in 7 ms): pass`,
      `run step false-success (transaction of GOLIVE-${RUN_ID}-FAILED, answered 200 in 7 ms): pass`,
    ]);
    expect(exit.stdout).toMatch(new RegExp(`^go-live report of ${PUBLIC_KEY}: READY`));
  });

  it('exits 1 when the report after the run is not ready, and writes only the report in JSON or JUnit', async () => {
    stub.verdict = 'not-ready';
    const json = await goLive('--format', 'json');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual(reportOf('not-ready'));
    expect(json.stderr).toBe('');
    Object.assign(stub, { looks: 0, requests: [] });
    const junit = await goLive('--format', 'junit');
    expect(junit.code).toBe(1);
    expect(junit.stdout).toMatch(/^<\?xml /);
    expect(junit.stderr).toBe('');
  });

  it('exits 2 with one line when the run is refused, and asks for no report', async () => {
    stub.refuseRun = true;
    const exit = await goLive();
    expect(exit.code).toBe(2);
    expect(exit.stderr).toBe(`payments-sandbox: POST /__sandbox/go-live/${PUBLIC_KEY}/runs answered 409: a run of this merchant is running\n`);
    expect(exit.stdout).toBe('');
    expect(stub.requests).toEqual([`POST /__sandbox/go-live/${PUBLIC_KEY}/runs`]);
  });
});
