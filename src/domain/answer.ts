import { ApiError } from '../errors.js';
import type { Facts } from '../scenarios/engine.js';
import type { EnvelopeOutcome, Scenario } from '../scenarios/catalogue.js';
import type { Merchant } from './merchants.js';
import type { Store } from '../store/store.js';

/** The spec's success-style envelope (spec, Response envelope). */
export interface Envelope {
  status: 'SUCCESS';
  data: { code: string; message: string; [field: string]: unknown };
}

/** What an operation answers: an HTTP status, a body, and the rule that decided it (whose delay or fault, if any, the HTTP layer carries out). */
export interface Answer {
  status: number;
  body: unknown;
  /** the name of the deciding rule, sent as X-Sandbox-Scenario */
  scenario: string;
  /** the deciding rule itself, when it came from the catalogue */
  rule?: Scenario;
}

/** Absolute URLs of the sandbox's own pages, built on the public base URL (`--public-url`). */
export interface Links {
  /** card authentication page of a payment (the `redirectUrl` of S20) */
  authenticate(linkingReference: string): string;
  /** hosted checkout page of a payment (the `redirectLink` of POST /payments and /payments/order) */
  checkout(linkingReference: string): string;
}

/** Everything an operation needs: the merchant it acts for, the state, and the scenario selector. */
export interface OperationContext {
  merchant: Merchant;
  /**
   * The body as the client sent it, before numbers were read as strings and
   * nulls left out: what a client hashed (README, "Accepted beyond the spec").
   */
  sent: Record<string, unknown>;
  store: Store;
  links: Links;
  /** picks the rule for a request: a forced one if a selector chose it, else by the request's values (README, "Scenarios") */
  decide(facts: Omit<Facts, 'headers'>): Scenario;
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
  // Faults that must change nothing: the operation is not carried out.
  if (outcome.fault === 'drop-connection' || outcome.fault === 'hang') return { status: 0, body: undefined, scenario: scenario.name, rule: scenario };
  const payload = details(outcome as EnvelopeOutcome);
  // A `null` field: the payload is itself the data fields (the status query's payments and customers).
  const fields = outcome.payments === 'empty'
    ? { payments: {} }
    : field === null && outcome.field === undefined ? (payload as Record<string, unknown>) : { [outcome.field ?? field ?? 'payments']: payload };
  return { status: 200, scenario: scenario.name, rule: scenario, body: envelope(outcome.code, outcome.message, fields) };
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
export function refused(rule: string): Answer {
  return { status: 200, scenario: rule, body: envelope('S12', 'Transaction Failed', { payments: {} }) };
}
