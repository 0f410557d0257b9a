/**
 * The go-live report and run (openapi/control-api.yaml, tag Go-live;
 * docs/decisions.md#d87-go-live-report): what the sandbox judges of a
 * merchant's integration from its own traffic, and the facts it keeps for
 * that with the state. Times are ISO 8601 UTC strings: a report's `since`
 * and `generatedAt` in real time; a run's, like payments' and attempts', on
 * the merchant's clock (real time until the clock is advanced).
 */

/** The ids of the report's checks, in the order the report lists them. */
export const GO_LIVE_CHECK_IDS = [
  'notification-acknowledged',
  'notification-duplicate-acknowledged',
  'notification-unknown-type-acknowledged',
  'notification-verified',
  'unique-references',
  'outcomes-covered',
  'token-reused',
  'spec-conformant',
] as const;

/** One check's id. */
export type GoLiveCheckId = (typeof GO_LIVE_CHECK_IDS)[number];

/** `warn` only for an advisory check; `not-exercised`: the traffic never gave the check anything to judge. */
export type GoLiveCheckStatus = 'pass' | 'fail' | 'warn' | 'not-exercised';

/** `not-ready`: a required check failed; `incomplete`: none failed, a required one was not exercised; `ready` otherwise. */
export type GoLiveVerdict = 'ready' | 'not-ready' | 'incomplete';

/** One thing a check found, naming what a person can open: a payment's story, a delivery, the journal's request. */
export interface GoLiveEvidence {
  paymentReference?: string;
  deliveryId?: string;
  eventId?: string;
  /** the journal's id of the request (GET /__sandbox/requests) */
  requestId?: number;
  /** one line */
  detail: string;
}

/** One check of the report. */
export interface GoLiveCheck {
  id: GoLiveCheckId;
  title: string;
  /** a required check decides the verdict; an advisory one only warns */
  required: boolean;
  status: GoLiveCheckStatus;
  /** what was found, one line */
  summary: string;
  /** what to do about it, and where the rule comes from */
  advice: string;
  /** at most EVIDENCE_LIMIT items */
  evidence: GoLiveEvidence[];
  /** how many items there were in all, when more than `evidence` lists */
  evidenceTotal?: number;
}

/** Items of evidence a check lists at most; `evidenceTotal` counts them all. */
export const EVIDENCE_LIMIT = 50;

/** GET /__sandbox/go-live/{publicKey}. */
export interface GoLiveReport {
  publicKey: string;
  /** the merchant's last reset, or when the sandbox first saw it */
  since: string;
  generatedAt: string;
  verdict: GoLiveVerdict;
  checks: GoLiveCheck[];
}

/** The steps of a run, in the order they are sent. */
export const GO_LIVE_RUN_STEPS = ['success', 'duplicate', 'dispute', 'false-success'] as const;

/** One step of a run: a successful payment's event, the same event again, a dispute, success claimed for a failed payment. */
export type GoLiveRunStepName = (typeof GO_LIVE_RUN_STEPS)[number];

/** Of a delivery a go-live run sent: which run, and which step. */
export interface GoLiveRunMark {
  /** `run_` and 12 hex digits */
  id: string;
  step: GoLiveRunStepName;
}

/** How many reused references, and how many distinct warnings, the facts keep at most: enough to name them, bounded against a flood. */
export const FACTS_LIMIT = 50;

/** A payment, link or order refused because its reference was used before. */
export interface ReusedReference {
  reference: string;
  /** the Payments API operation that was refused */
  operation: string;
  /** the journal's request id */
  requestId: number;
  at: string;
}

/** A leniency requests needed: what production accepts and the spec forbids (X-Sandbox-Warnings). */
export interface ConformanceWarning {
  /** the warning as the header carried it, redacted */
  warning: string;
  /** how many requests drew it */
  count: number;
  /** the journal's request id of the first that did */
  requestId: number;
  at: string;
}

/**
 * What the go-live report needs that the rest of the state does not keep:
 * kept with the merchant's record, so a restart gives the same report, and
 * started over by a reset of the merchant. Bounded: a few counts and at
 * most FACTS_LIMIT items per list.
 */
export interface GoLiveFacts {
  /** when the report starts: the merchant's last reset */
  since: string;
  /** key exchanges that issued a token */
  exchanges: { count: number; first?: string; last?: string };
  /** oldest first, at most FACTS_LIMIT; `reusedTotal` counts them all */
  reused: ReusedReference[];
  reusedTotal: number;
  /** one per distinct warning, at most FACTS_LIMIT */
  warnings: ConformanceWarning[];
}

/** The facts of a merchant with none kept yet. */
export function emptyFacts(since: string): GoLiveFacts {
  return { since, exchanges: { count: 0 }, reused: [], reusedTotal: 0, warnings: [] };
}

/** The facts with one more key exchange, at `at`. @param facts absent: none yet, the report beginning at `since` */
export function withExchange(facts: GoLiveFacts | undefined, since: string, at: string): GoLiveFacts {
  const kept = facts ?? emptyFacts(since);
  const { count, first } = kept.exchanges;
  return { ...kept, exchanges: { count: count + 1, first: first ?? at, last: at } };
}

/** The facts with one more request refused for a reused reference: kept when fewer than FACTS_LIMIT are, always counted. */
export function withReused(facts: GoLiveFacts, reused: ReusedReference): GoLiveFacts {
  const list = facts.reused.length < FACTS_LIMIT ? [...facts.reused, reused] : facts.reused;
  return { ...facts, reused: list, reusedTotal: facts.reusedTotal + 1 };
}

/** The facts with a request's warnings counted, each new one kept while fewer than FACTS_LIMIT are. */
export function withWarnings(facts: GoLiveFacts, warnings: readonly string[], requestId: number, at: string): GoLiveFacts {
  const list = [...facts.warnings];
  for (const warning of new Set(warnings)) {
    const index = list.findIndex((kept) => kept.warning === warning);
    if (index >= 0) list[index] = { ...list[index]!, count: list[index]!.count + 1 };
    else if (list.length < FACTS_LIMIT) list.push({ warning, count: 1, requestId, at });
  }
  return { ...facts, warnings: list };
}

/** What the receiver answered one step of a run. */
export interface GoLiveRunAnswer {
  /** absent when no answer came */
  status?: number;
  /** the `ackReference` its body held */
  ackReference?: string;
  ms: number;
}

/** One step of a run as GET /__sandbox/go-live/{publicKey}/runs/{id} shows it. */
export interface GoLiveRunStep {
  step: GoLiveRunStepName;
  eventType: string;
  eventId: string;
  paymentReference: string;
  deliveryId?: string;
  answer?: GoLiveRunAnswer;
  result: 'waiting' | 'pass' | 'fail';
  detail?: string;
}

/** GET /__sandbox/go-live/{publicKey}/runs/{id}. */
export interface GoLiveRun {
  id: string;
  status: 'running' | 'done';
  startedAt: string;
  finishedAt?: string;
  steps: GoLiveRunStep[];
}
