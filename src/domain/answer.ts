import { ApiError } from '../errors.js';
import type { Selection } from '../scenarios/selector.js';
import type { EnvelopeOutcome, Scenario } from '../scenarios/scenario.js';
import type { Merchant } from '../model/records.js';
import type { Store } from '../store/store.js';

/** The spec's success-style envelope (spec, Response envelope). */
export interface Envelope {
  status: 'SUCCESS';
  data: { code: string; message: string; [field: string]: unknown };
}

/**
 * What an operation answers: an envelope (always HTTP 200, spec Errors >
 * Business result codes) and the name of the rule that decided it. Refusals
 * with an HTTP status are thrown as ApiError instead; delays and faults are
 * the HTTP layer's, from the selection.
 */
export interface Answer {
  body: Envelope;
  /** the name of the deciding rule, sent as X-Sandbox-Scenario */
  scenario: string;
  /** why the payment refused what was asked, sent as X-Sandbox-Reason (src/domain/state-machine.ts, refusalReason) */
  reason?: string;
}

/** Absolute URLs of the sandbox's own pages, built on the public base URL (`--public-url`). */
export interface Links {
  /** card authentication page of a payment (the `redirectUrl` of S20) */
  authenticate(linkingReference: string): string;
  /** hosted checkout page of a payment (the `redirectLink` of POST /payments and /payments/order) */
  checkout(linkingReference: string): string;
}

/** Everything an operation needs: the merchant it acts for, the state, and what was decided about the request. */
export interface OperationContext {
  merchant: Merchant;
  /**
   * The body as the client sent it, before numbers were read as strings and
   * nulls left out: what a client hashed (README, "Accepted beyond the spec").
   */
  sent: Record<string, unknown>;
  store: Store;
  links: Links;
  /** the rule chosen before the operation ran (header, override, or the request's values; README, "Choosing a scenario") */
  selection: Selection;
  /** the current time as ISO 8601 UTC */
  now(): string;
}

/**
 * Carries out a rule's outcome. An HTTP outcome is thrown as an ApiError
 * named after the rule; a result code is answered in the envelope, with
 * `details()` under data.payments (or the rule's `field`, or `field`; with
 * `field` null, `details()` are the data fields themselves) unless the
 * outcome says `payments: empty`. `details` runs (and so stores whatever
 * it stores) only for envelope outcomes.
 * @throws ApiError for an `http` outcome.
 */
export function answerWith(scenario: Scenario, details: (outcome: EnvelopeOutcome) => unknown, field: string | null = 'payments'): Answer {
  const outcome = scenario.then;
  if (outcome.http) throw httpOutcome(scenario);
  if (outcome.code === undefined || outcome.message === undefined) throw new Error(`scenario ${scenario.name} has no outcome`);
  const payload = details(outcome as EnvelopeOutcome);
  // A `null` field: the payload is itself the data fields (the status query's payments and customers).
  const fields = outcome.payments === 'empty'
    ? { payments: {} }
    : field === null && outcome.field === undefined ? (payload as Record<string, unknown>) : { [outcome.field ?? field ?? 'payments']: payload };
  return { scenario: scenario.name, body: envelope(outcome.code, outcome.message, fields) };
}

/** The ApiError of a rule whose outcome is an HTTP error. */
export function httpOutcome(scenario: Scenario): ApiError {
  const { status, message, error } = scenario.then.http!;
  return new ApiError(status, message === undefined ? { error } : { message, error }, scenario.name);
}

/** An envelope with extra data fields. */
export function envelope(code: string, message: string, fields: Record<string, unknown>): Envelope {
  return { status: 'SUCCESS', data: { code, message, ...fields } };
}

/**
 * A refusal decided by the payment state machine rather than the catalogue:
 * S12 "Transaction Failed" with empty payments (README, "Where the spec is silent").
 */
export function refused(rule: string, reason: string): Answer {
  return { scenario: rule, reason, body: envelope('S12', 'Transaction Failed', { payments: {} }) };
}

/** An answer the domain decides itself, not a catalogue rule (README decisions: RR, the state machine's refusals). */
export function answered(scenario: string, code: string, message: string, fields: Record<string, unknown>): Answer {
  return { scenario, body: envelope(code, message, fields) };
}
