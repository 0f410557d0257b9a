import { ApiError } from '../errors.js';
import type { Facts } from '../scenarios/engine.js';
import type { Outcome, Scenario } from '../scenarios/catalogue.js';
import type { Merchant } from './merchants.js';
import type { Store } from '../store/store.js';

/** The spec's success-style envelope (spec, Response envelope). */
export interface Envelope {
  status: 'SUCCESS';
  data: { code: string; message: string; [field: string]: unknown };
}

/** What an operation answers: an HTTP status, a body, and the name of the scenario that decided it. */
export interface Answer {
  status: number;
  body: unknown;
  scenario: string;
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
  store: Store;
  links: Links;
  /** picks the scenario for a request (README, "Scenarios") */
  decide(facts: Omit<Facts, 'headers'>): Scenario;
  /** the current time as ISO 8601 UTC */
  now(): string;
}

/**
 * Carries out a scenario's outcome. An HTTP outcome is thrown as an ApiError
 * tagged with the scenario; a result code is answered in the envelope, with
 * `details()` as data.payments unless the outcome says `payments: empty`.
 * `details` runs (and so stores whatever it stores) only for envelope outcomes.
 * @throws ApiError for an `http` outcome.
 */
export function answerWith(
  scenario: Scenario,
  details: (outcome: Extract<Outcome, { code: string }>) => unknown,
  field = 'payments',
): Answer {
  const outcome = scenario.then;
  if ('http' in outcome) {
    const { status, message, error } = outcome.http;
    throw tagged(new ApiError(status, message === undefined ? { error } : { message, error }), scenario.name);
  }
  const payload = details(outcome);
  return {
    status: 200,
    scenario: scenario.name,
    body: envelope(outcome.code, outcome.message, { [field]: outcome.payments === 'empty' ? {} : payload }),
  };
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

/** Attaches the deciding scenario's name to an ApiError, for the X-Sandbox-Scenario header. */
export function tagged(error: ApiError, scenario: string): ApiError {
  return Object.assign(error, { scenario });
}
