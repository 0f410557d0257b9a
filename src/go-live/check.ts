import { EVIDENCE_LIMIT, type GoLiveCheck, type GoLiveCheckId, type GoLiveCheckStatus, type GoLiveEvidence } from '../model/go-live.js';

/**
 * What each check of the go-live report is: its title, whether it decides
 * the verdict, and the advice a person reads, with the rule's source
 * (docs/decisions.md#d87-go-live-report). One table, so that the report,
 * the CLI's JUnit and the dashboard name each check alike.
 */
export const CHECKS: Record<GoLiveCheckId, { title: string; required: boolean; advice: string }> = {
  'notification-acknowledged': {
    title: 'Every notification acknowledged with its ackReference within 5 s',
    required: true,
    advice: 'Answer each notification with HTTP 200 and {"ackReference": <the X-Expected-Ack-Reference header, echoed exactly>, "status": "received"} within 5 s; a missing, wrong or late acknowledgement is retried after 30 s, 2 min, 10 min, 30 min and 1 h (the provider\'s webhook page, "Acknowledgment Response").',
  },
  'notification-duplicate-acknowledged': {
    title: 'An event sent again is acknowledged again',
    required: true,
    advice: 'Drop a duplicate by its eventId, but still acknowledge it: retries and replays send the same eventId, and an unacknowledged one is retried again (the provider\'s webhook page, "Best practices").',
  },
  'notification-unknown-type-acknowledged': {
    title: 'An event of a type the integration does not process is still acknowledged',
    required: true,
    advice: 'Acknowledge every eventType, including those you ignore (dispute, transaction.wallet): an unacknowledged event is retried for an hour (the provider\'s webhook page names six types).',
  },
  'notification-verified': {
    title: 'A notification of success is confirmed by a status query',
    required: true,
    advice: 'Notifications are not signed: before you fulfil an order, query the payment (GET /api/v2/payments/query/{paymentReference}) and trust its code (00 paid, S20 pending, S12 failed), within 30 s of the notification (the provider\'s webhook page, "Security").',
  },
  'unique-references': {
    title: 'Each paymentReference is used once',
    required: true,
    advice: 'Make a new paymentReference for every payment, link and order, and keep it with your order: a reference used again is refused (spec, Limits 1; HTTP 500 for links and orders).',
  },
  'outcomes-covered': {
    title: 'Each payment type met a success, a failure and a pending outcome',
    required: true,
    advice: 'Exercise every outcome your code must handle, for each payment type you offer: a success (00), a failure (S12) and a payment still pending (S20 or 20), with the test values listed (the scenario catalogue, GET /__sandbox/scenarios).',
  },
  'token-reused': {
    title: 'The bearer token is kept and reused',
    required: false,
    advice: 'Exchange the keys once and reuse the token: the provider gives no lifetime for it and the sandbox\'s never expires; warned when keys are exchanged more than 3 times an hour since the report began (docs/decisions.md#d87-go-live-report).',
  },
  'spec-conformant': {
    title: 'Requests keep to the spec',
    required: false,
    advice: 'Production accepts these, but the spec forbids them, and the next version of the API may refuse them: send each field as the spec types it (the X-Sandbox-Warnings header names them; README, "Accepted beyond the spec").',
  },
};

/** A piece of evidence as a check finds it. */
export type Found = GoLiveEvidence;

/** What a check function answers: its status and summary, and what it found. */
export interface CheckResult {
  id: GoLiveCheckId;
  status: GoLiveCheckStatus;
  summary: string;
  found: Found[];
}

/** A check's result from its status, summary and evidence (none unless given). */
export function checkOf(id: GoLiveCheckId, result: { status: GoLiveCheckStatus; summary: string; found?: Found[] }): CheckResult {
  return { id, status: result.status, summary: result.summary, found: result.found ?? [] };
}

/** The check as the report shows it: its table entry, and at most EVIDENCE_LIMIT items of evidence with the total beside them. */
export function shownCheck(result: CheckResult): GoLiveCheck {
  const { title, required, advice } = CHECKS[result.id];
  const check: GoLiveCheck = { id: result.id, title, required, status: result.status, summary: result.summary, advice, evidence: result.found.slice(0, EVIDENCE_LIMIT) };
  if (result.found.length > EVIDENCE_LIMIT) check.evidenceTotal = result.found.length;
  return check;
}
