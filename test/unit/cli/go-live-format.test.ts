import { parse, type TestCase, type TestSuite, type TestSuites } from 'junit2json';
import { describe, expect, it } from 'vitest';
import { formatReport } from '../../../src/cli/go-live.js';
import { stepText } from '../../../src/cli/go-live-text.js';
import { CHECKS } from '../../../src/go-live/check.js';
import { GO_LIVE_CHECK_IDS, type GoLiveCheck, type GoLiveCheckStatus, type GoLiveReport } from '../../../src/model/go-live.js';

/**
 * `payments-sandbox go-live --format text|json|junit` from a report object,
 * with no sandbox: what a person reads, and what a CI's JUnit reader finds
 * (read back by junit2json, as a CI would read it, not by patterns).
 */

const PUBLIC_KEY = 'SBTESTPUBK_FormatTest01';

/** A report with each status, the checks' titles and advice as the sandbox's. */
function report(statuses: Partial<Record<GoLiveCheck['id'], GoLiveCheckStatus>> = {}): GoLiveReport {
  const checks = GO_LIVE_CHECK_IDS.map((id): GoLiveCheck => {
    const status = statuses[id] ?? 'pass';
    return { id, ...CHECKS[id], status, summary: `${id} is ${status}`, evidence: [] };
  });
  return { publicKey: PUBLIC_KEY, since: '2026-11-24T09:00:00.000Z', generatedAt: '2026-11-24T10:00:00.000Z', verdict: 'ready', checks };
}

/** A report that is not ready: one failure with evidence (more than it lists), a check never exercised, a warning. */
function notReady(): GoLiveReport {
  const made = report({ 'notification-acknowledged': 'fail', 'outcomes-covered': 'not-exercised', 'spec-conformant': 'warn' });
  const failed = made.checks.find((check) => check.id === 'notification-acknowledged')!;
  failed.summary = '2 of 5 attempts were not acknowledged';
  failed.evidence = [
    { deliveryId: 'dlv_00000000000000000001', eventId: 'e1', paymentReference: 'SBREF-A', detail: 'answered 200 without the ackReference' },
    { deliveryId: 'dlv_00000000000000000002', detail: 'no answer within 5 s <late> & "slow"' },
  ];
  failed.evidenceTotal = 7;
  made.checks.find((check) => check.id === 'spec-conformant')!.evidence = [{ requestId: 41, detail: 'amount sent as a number' }];
  return { ...made, verdict: 'not-ready' };
}

/** The one test suite of a JUnit document, read back. */
async function suiteOf(xml: string): Promise<TestSuite> {
  const parsed = (await parse(xml)) as TestSuites;
  expect(parsed.testsuite).toHaveLength(1);
  return parsed.testsuite![0]!;
}

/** The lines of one check in the text: its heading, and the indented lines under it. */
function blockOf(text: string, id: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => /^  \S/.test(line) && line.includes(` ${id}`));
  const end = lines.findIndex((line, index) => index > start && !line.startsWith('    '));
  return lines.slice(start, end);
}

const caseOf = (suite: TestSuite, id: string): TestCase => suite.testcase!.find((testCase) => testCase.name === id)!;

describe('--format junit', () => {
  it('is one go-live suite with one test case per check, named by its id, of the merchant\'s class', async () => {
    const suite = await suiteOf(await formatReport(notReady(), 'junit'));
    expect(suite.name).toBe('go-live');
    expect(suite.testcase!.map((testCase) => testCase.name)).toEqual([...GO_LIVE_CHECK_IDS]);
    expect(new Set(suite.testcase!.map((testCase) => testCase.classname))).toEqual(new Set([`go-live.${PUBLIC_KEY}`]));
    expect(suite.properties).toEqual(expect.arrayContaining([{ name: 'verdict', value: 'not-ready' }, { name: 'publicKey', value: PUBLIC_KEY }]));
    expect(suite).toMatchObject({ tests: 8, failures: 1, skipped: 1 });
  });

  it('fails the failed check alone, its message the summary, its text the advice and every item of evidence', async () => {
    const suite = await suiteOf(await formatReport(notReady(), 'junit'));
    const failing = suite.testcase!.filter((testCase) => testCase.failure !== undefined).map((testCase) => testCase.name);
    expect(failing).toEqual(['notification-acknowledged']);
    const [failure] = caseOf(suite, 'notification-acknowledged').failure!;
    expect(failure!.message).toBe('2 of 5 attempts were not acknowledged');
    expect(failure!.inner).toContain(CHECKS['notification-acknowledged'].advice);
    expect(failure!.inner).toContain('- answered 200 without the ackReference (payment SBREF-A, delivery dlv_00000000000000000001, event e1)');
    expect(failure!.inner).toContain('- no answer within 5 s <late> & "slow" (delivery dlv_00000000000000000002)');
    expect(failure!.inner).toContain('… and 5 more');
  });

  it('skips a check never exercised, and shows a warning as output, not as a failure', async () => {
    const suite = await suiteOf(await formatReport(notReady(), 'junit'));
    const skipped = caseOf(suite, 'outcomes-covered');
    expect(skipped.skipped).toHaveLength(1);
    expect(skipped.failure).toBeUndefined();
    const warned = caseOf(suite, 'spec-conformant');
    expect(warned.failure).toBeUndefined();
    expect(warned.skipped).toBeUndefined();
    expect(warned['system-out']!.join('\n')).toMatch(/warn: spec-conformant is warn[\s\S]*- amount sent as a number \(request 41\)/);
  });

  it('has no failure and no skip when every check passed', async () => {
    const suite = await suiteOf(await formatReport(report(), 'junit'));
    expect(suite).toMatchObject({ tests: 8, failures: 0, errors: 0, skipped: 0 });
    expect(suite.testcase!.every((testCase) => testCase.failure === undefined && testCase.skipped === undefined)).toBe(true);
  });
});

describe('--format text', () => {
  it('says the verdict first, then each check with its status and summary', async () => {
    const text = await formatReport(notReady(), 'text');
    const lines = text.split('\n');
    expect(lines[0]).toBe(`go-live report of ${PUBLIC_KEY}: NOT READY: a required check failed`);
    for (const id of GO_LIVE_CHECK_IDS) expect(text).toMatch(new RegExp(`^  \\S.* +${id}( \\(advisory\\))?: ${CHECKS[id].title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    expect(text).toMatch(/^  FAIL +notification-acknowledged: /m);
    expect(text).toMatch(/^  not exercised +outcomes-covered: /m);
    expect(text).toMatch(/^  warn +spec-conformant \(advisory\): /m);
    expect(text.trimEnd().split('\n').at(-1)).toBe('verdict: not-ready (5 passed, 1 failed, 1 warned, 1 not exercised)');
  });

  it('gives what to do and the evidence for a failure, and nothing but the summary for a check that passed', async () => {
    const text = await formatReport(notReady(), 'text');
    const failed = blockOf(text, 'notification-acknowledged');
    expect(failed.slice(1).map((line) => line.trim())).toEqual([
      '2 of 5 attempts were not acknowledged',
      `what to do: ${CHECKS['notification-acknowledged'].advice}`,
      '- answered 200 without the ackReference (payment SBREF-A, delivery dlv_00000000000000000001, event e1)',
      '- no answer within 5 s <late> & "slow" (delivery dlv_00000000000000000002)',
      '… and 5 more',
    ]);
    expect(blockOf(text, 'unique-references').slice(1).map((line) => line.trim())).toEqual(['unique-references is pass']);
  });

  it('escapes the control characters a merchant\'s reference may hold', async () => {
    const made = notReady();
    made.checks[0]!.evidence = [{ paymentReference: 'REF\u001b[2J\nX', detail: 'late' }];
    expect(await formatReport(made, 'text')).toContain('- late (payment REF\\u001b[2J\\nX)');
  });

  it('prints a run\'s step with what the receiver answered', () => {
    expect(stepText({ step: 'duplicate', eventType: 'transaction', eventId: 'e', paymentReference: 'GOLIVE-run_0123456789ab-PAID', answer: { status: 200, ms: 12.4 }, result: 'fail', detail: 'the ackReference was not echoed' }))
      .toBe('run step duplicate (transaction of GOLIVE-run_0123456789ab-PAID, answered 200 in 12 ms): fail: the ackReference was not echoed');
    expect(stepText({ step: 'dispute', eventType: 'dispute', eventId: 'e', paymentReference: 'P', answer: { ms: 5000 }, result: 'fail' }))
      .toBe('run step dispute (dispute of P, no answer after 5000 ms): fail');
  });
});

describe('--format json', () => {
  it('is the report as the control API answered it, pretty-printed', async () => {
    const made = notReady();
    const json = await formatReport(made, 'json');
    expect(JSON.parse(json)).toEqual(made);
    expect(json).toBe(`${JSON.stringify(made, null, 2)}\n`);
  });
});
