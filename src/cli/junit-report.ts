/**
 * The go-live report as JUnit XML (`payments-sandbox go-live --format
 * junit`), for a CI's test report: one `<testsuite name="go-live">`, one
 * `<testcase>` per check named by its id, of class `go-live.<publicKey>`.
 * A failed check is a `<failure>` whose message is its summary and whose
 * text is the advice and the evidence; a check the traffic never exercised
 * is `<skipped>`; a warning, advisory, is no failure: it is the test case's
 * `<system-out>`, as every other check's summary is. Written by
 * junit-report-builder, which escapes what the report holds.
 */
import junitReportBuilder, { type Builder } from 'junit-report-builder';
import type { GoLiveCheck, GoLiveReport } from '../model/go-live.js';
import { escapeControls } from '../redaction/controls.js';
import { evidenceText } from './go-live-text.js';

// The package's types declare an ES default export, but it is CommonJS: the default import is its `module.exports`, the builder.
const builder = junitReportBuilder as unknown as Builder;

/** The name of the test suite. */
export const SUITE = 'go-live';

/** The report as a JUnit XML document (UTF-8, with its XML declaration). */
export function reportJunit(report: GoLiveReport): string {
  const junit = builder.newBuilder();
  const suite = junit
    .testSuite()
    .name(SUITE)
    .timestamp(new Date(report.generatedAt))
    .property('publicKey', report.publicKey)
    .property('verdict', report.verdict)
    .property('since', report.since);
  for (const check of report.checks) {
    const testCase = suite.testCase().className(`${SUITE}.${report.publicKey}`).name(check.id);
    const summary = escapeControls(check.summary);
    if (check.status === 'fail') testCase.failure(summary, check.required ? 'required' : 'advisory').stacktrace(failureText(check));
    else if (check.status === 'not-exercised') testCase.skipped().standardOutput(`${check.title}\nnot exercised: ${summary}\nwhat to do: ${check.advice}`);
    else if (check.status === 'warn') testCase.standardOutput(`${check.title}\nwarn: ${summary}\n${failureText(check)}`);
    else testCase.standardOutput(`${check.title}\npass: ${summary}`);
  }
  return junit.build();
}

// The advice, then the evidence, one item a line.
function failureText(check: GoLiveCheck): string {
  const more = (check.evidenceTotal ?? check.evidence.length) - check.evidence.length;
  return [
    `${check.title}`,
    `what to do: ${check.advice}`,
    ...check.evidence.map((item) => `- ${evidenceText(item)}`),
    ...(more > 0 ? [`… and ${more} more`] : []),
  ].join('\n');
}
