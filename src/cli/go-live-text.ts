/**
 * The go-live report and a run's steps as `payments-sandbox go-live` prints
 * them for a person (`--format text`): the verdict first, then each check
 * with its status and summary, and for a check that failed or warned what to
 * do and the evidence to open. Values the merchant's traffic chose
 * (references, details) have their control characters escaped.
 */
import type { GoLiveCheck, GoLiveCheckStatus, GoLiveEvidence, GoLiveReport, GoLiveRunStep, GoLiveVerdict } from '../model/go-live.js';
import { escapeControls } from '../redaction/controls.js';

const VERDICTS: Record<GoLiveVerdict, string> = {
  ready: 'READY: every required check passed',
  'not-ready': 'NOT READY: a required check failed',
  incomplete: 'INCOMPLETE: nothing failed, but a required check was never exercised',
};

const STATUSES: Record<GoLiveCheckStatus, string> = { pass: 'pass', fail: 'FAIL', warn: 'warn', 'not-exercised': 'not exercised' };
const WIDTH = Math.max(...Object.values(STATUSES).map((label) => label.length)) + 2;
const INDENT = ' '.repeat(WIDTH + 2);

/** The report as text, one check after the other, ending with a line that counts them. */
export function reportText(report: GoLiveReport): string {
  const lines = [
    `go-live report of ${escapeControls(report.publicKey)}: ${VERDICTS[report.verdict]}`,
    `judged from its traffic since ${report.since} (generated ${report.generatedAt})`,
    '',
    ...report.checks.flatMap(checkLines),
    '',
    countLine(report),
  ];
  return `${lines.join('\n')}\n`;
}

function checkLines(check: GoLiveCheck): string[] {
  const lines = [
    `  ${STATUSES[check.status].padEnd(WIDTH)}${check.id}${check.required ? '' : ' (advisory)'}: ${check.title}`,
    `${INDENT}${escapeControls(check.summary)}`,
  ];
  // What to do is worth reading where something is to be done: a failure, a warning, a check the traffic never reached.
  if (check.status !== 'pass') lines.push(`${INDENT}what to do: ${check.advice}`);
  if (check.status === 'fail' || check.status === 'warn') {
    lines.push(...check.evidence.map((item) => `${INDENT}- ${evidenceText(item)}`));
    const more = (check.evidenceTotal ?? check.evidence.length) - check.evidence.length;
    if (more > 0) lines.push(`${INDENT}… and ${more} more`);
  }
  return lines;
}

/** One item of evidence on one line: its detail, then what a person can open (the payment, the delivery, the event, the journal's request). */
export function evidenceText(item: GoLiveEvidence): string {
  const where = [
    item.paymentReference === undefined ? undefined : `payment ${item.paymentReference}`,
    item.deliveryId === undefined ? undefined : `delivery ${item.deliveryId}`,
    item.eventId === undefined ? undefined : `event ${item.eventId}`,
    item.requestId === undefined ? undefined : `request ${item.requestId}`,
  ].filter((part) => part !== undefined);
  return escapeControls(where.length === 0 ? item.detail : `${item.detail} (${where.join(', ')})`);
}

function countLine(report: GoLiveReport): string {
  const count = (status: GoLiveCheckStatus) => report.checks.filter((check) => check.status === status).length;
  return `verdict: ${report.verdict} (${count('pass')} passed, ${count('fail')} failed, ${count('warn')} warned, ${count('not-exercised')} not exercised)`;
}

/** A run's step once its result is in, as `--run` prints it on stderr while the run goes on. */
export function stepText(step: GoLiveRunStep): string {
  const answer = step.answer === undefined ? 'not sent' : step.answer.status === undefined ? `no answer after ${Math.round(step.answer.ms)} ms` : `answered ${step.answer.status} in ${Math.round(step.answer.ms)} ms`;
  const detail = step.detail === undefined ? '' : `: ${step.detail}`;
  return escapeControls(`run step ${step.step} (${step.eventType} of ${step.paymentReference}, ${answer}): ${step.result}${detail}`);
}
