import type { Delivery } from '../model/notifications.js';
import { ApiError } from '../errors.js';
import type { Selection } from '../scenarios/selector.js';
import type { EnvelopeOutcome, Scenario } from '../scenarios/scenario.js';
import type { Facts } from '../scenarios/engine.js';
import type { RequestFacts } from './request.js';
import type { Merchant, Order, Payment } from '../model/records.js';

/** The spec's success-style envelope (spec, Response envelope). */
export interface Envelope {
  status: 'SUCCESS';
  data: { code: string; message: string; [field: string]: unknown };
}

/**
 * The envelope of the provider's bulk token charge and its search, without
 * `status` and `data` (its documentation, "Bulk Charge Token").
 */
export interface PayloadEnvelope {
  code: string;
  message: string;
  payload: unknown;
}

/**
 * A record an answer stores: written, in order, before the answer is sent
 * (src/domain/commit.ts). A payment's write carries the record it replaces
 * (`before`, absent for a new payment): its notifications are made from the pair.
 */
export type Write =
  | { kind: 'merchant'; merchant: Merchant }
  | { kind: 'payment'; payment: Payment; before?: Payment }
  | { kind: 'order'; order: Order }
  | { kind: 'delivery'; delivery: Delivery };

/**
 * What an operation answers: an envelope (HTTP 200, spec Errors > Business
 * result codes; some card operations 201, as the provider answers them), the name of the rule that decided it, and the
 * records it stores. Refusals with an HTTP status are thrown as ApiError
 * instead; delays and faults are the HTTP layer's, from the selection.
 */
export interface Answer<Body extends Envelope | PayloadEnvelope = Envelope> {
  body: Body;
  /** the name of the deciding rule, sent as X-Sandbox-Scenario */
  scenario: string;
  /** why the payment refused what was asked, sent as X-Sandbox-Reason (src/domain/state-machine.ts, refusalReason) */
  reason?: string;
  /** what the answer stores; empty when it changes nothing */
  writes: readonly Write[];
  /** the HTTP status of the envelope: 200 unless the operation's own says otherwise (src/domain/card-operations.ts) */
  status?: number;
  /**
   * What the operation accepted that the spec would refuse, one sentence
   * each in printable ASCII, sent as X-Sandbox-Warnings beside the
   * validation step's (docs/decisions.md#d34-leniency-reported)
   */
  warnings?: readonly string[];
}

/** Absolute URLs of the sandbox's own pages, built on the public base URL (`--public-url`). */
export interface Links {
  /** card authentication page of a payment (the `redirectUrl` of S20) */
  authenticate(linkingReference: string): string;
  /** hosted checkout page of a payment (the `redirectLink` of POST /payments and /payments/order) */
  checkout(linkingReference: string): string;
}

/**
 * What an operation needs beside the request's facts and the selection: the
 * sandbox's links and clock. Operations read no store: the facts carry what
 * the request names, and the answer carries what is to be stored.
 */
export interface OperationEnv {
  links: Links;
  /** the current time on the request's merchant's clock, ISO 8601 UTC (README, "Time") */
  now(): string;
  /** the account-payment minimum of the catalogue, decimal string in major units (src/scenarios/engine.ts, accountMinimum) */
  accountMinimum: string;
  /**
   * The catalogue's rule for one item of a batch by its values alone (the
   * engine: no header, no override): each item of a bulk token charge is
   * decided as a charge-token of its own (docs/decisions.md#d60-bulk-token-charge).
   */
  decide(facts: Facts): Scenario;
}

/**
 * A Payments API operation: the request's facts and the selection (the rule
 * chosen before it ran: header, override, or the request's values; README,
 * "Choosing a scenario") in, one answer out.
 * @throws ApiError for an HTTP refusal or a rule with an HTTP outcome
 */
export type Operation = (facts: RequestFacts, selection: Selection, env: OperationEnv) => Answer | Answer<PayloadEnvelope>;

/**
 * Carries out a rule's outcome. An HTTP outcome is thrown as an ApiError
 * named after the rule; a result code is answered in the envelope, with
 * `details()` under data.payments (or the rule's `field`, or `field`; with
 * `field` null, `details()` are the data fields themselves) unless the
 * outcome says `payments: empty`. `details` runs only for envelope outcomes.
 * @param writes what the answer stores (the state machine's new record, an order)
 * @throws ApiError for an `http` outcome.
 */
export function answerWith(
  scenario: Scenario,
  details: (outcome: EnvelopeOutcome) => unknown,
  field: string | null = 'payments',
  writes: readonly Write[] = [],
): Answer {
  const outcome = scenario.then;
  if (outcome.http) throw httpOutcome(scenario);
  if (outcome.code === undefined || outcome.message === undefined) throw new Error(`scenario ${scenario.name} has no outcome`);
  const payload = details(outcome as EnvelopeOutcome);
  // A `null` field: the payload is itself the data fields (the status query's payments and customers).
  const fields = outcome.payments === 'empty'
    ? { payments: {} }
    : field === null && outcome.field === undefined ? (payload as Record<string, unknown>) : { [outcome.field ?? field ?? 'payments']: payload };
  return { scenario: scenario.name, body: envelope(outcome.code, outcome.message, fields), writes };
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
 * S12 "Transaction Failed" with empty payments (docs/decisions.md#d12-payment-states).
 */
export function refused(rule: string, reason: string): Answer {
  return { scenario: rule, reason, body: envelope('S12', 'Transaction Failed', { payments: {} }), writes: [] };
}

/** An answer the domain decides itself, not a catalogue rule (RR and the state machine's refusals: docs/decisions.md#d12-payment-states, docs/decisions.md#d35-refusal-reasons). */
export function answered(scenario: string, code: string, message: string, fields: Record<string, unknown>): Answer {
  return { scenario, body: envelope(code, message, fields), writes: [] };
}

/** The write of a payment record: the state machine's new one, replacing `before` (absent: a new payment). */
export const paymentWrite = (payment: Payment, before?: Payment): Write => (before ? { kind: 'payment', payment, before } : { kind: 'payment', payment });
