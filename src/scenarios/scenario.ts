import type { DeliveryFault } from '../model/notifications.js';
import type { Step, Variant } from '../model/operations.js';
import type { PaymentStatus } from '../model/records.js';

// What a scenario is: the rule of the catalogue, what it matches and what it
// answers. Loading the catalogue (catalogue.ts) and choosing a rule
// (engine.ts, selector.ts) build on these.

/** A test on one value; every key given must hold. `lessThan` compares decimal amounts. */
export interface Condition {
  equals?: string | number | boolean;
  in?: Array<string | number>;
  lessThan?: string;
  matches?: string;
  exists?: boolean;
}

/** A pause before an answer: fixed, or drawn between minMs and maxMs. */
export type Delay = { ms: number } | { minMs: number; maxMs: number };

/**
 * How an answer goes wrong on the wire (README, "Faults and latency"):
 * drop-connection closes the connection before the operation runs; hang never
 * answers; lose-response carries the operation out, stores it, and closes the
 * connection without an answer.
 */
export type Fault = 'drop-connection' | 'hang' | 'lose-response';

/**
 * What a scenario does: a 200 envelope with a result code (`code`), or an HTTP
 * error in the spec's error body (`http`); either may carry a delay or a
 * fault. A rule with neither only adds its delay or fault (a modifier).
 */
export interface Outcome {
  code?: string;
  message?: string;
  /** `empty`: data.payments is {} (the spec's business failures); `details`: the operation's payload */
  payments?: 'details' | 'empty';
  /** the payment's next state; absent: no payment is stored or changed */
  state?: PaymentStatus;
  /** a payment left PENDING settles by itself `after` (ISO 8601 duration) on its merchant's clock (README, "Time") */
  settle?: { after: string; outcome: 'success' | 'failure' };
  /** a fault for the notifications of the payments the rule decides (README, "Notification faults") */
  notification?: DeliveryFault;
  /** the data field that holds the payload, instead of the operation's own */
  field?: string;
  http?: { status: number; message?: string; error: string };
  delay?: Delay;
  fault?: Fault;
}

/** An outcome that answers with a result code. */
export type EnvelopeOutcome = Outcome & { code: string; message: string };

/** One request of a scenario's example. `publicKey` is filled in by whoever replays it. */
export interface ExampleRequest {
  operation: Step;
  body?: Record<string, unknown>;
}

/** One rule of the catalogue (scenarios/*.yaml, checked against scenarios/catalogue.schema.json). */
export interface Scenario {
  name: string;
  description: string;
  /** chosen only by the X-Sandbox-Scenario header or an override */
  explicit?: boolean;
  match: {
    operation: Step | Step[];
    variant?: Variant[];
    /** the share of matching requests the rule holds for */
    probability?: number;
    body?: Record<string, Condition>;
    headers?: Record<string, Condition>;
    payment?: { exists?: boolean; scenario?: Condition; status?: Condition; method?: Condition };
    /** the card a card operation charges, sent by number or by cardToken */
    card?: { bin?: Condition; last4?: Condition };
  };
  then: Outcome;
  example: {
    given?: ExampleRequest[];
    request: ExampleRequest;
    expect: { status: number; code?: string; message?: string; error?: string; field?: string };
  };
  /** the file the scenario came from */
  source: string;
}

/** The operations a scenario applies to. */
export const operationsOf = (scenario: Scenario): Step[] => [scenario.match.operation].flat();

/** True when the scenario gives an outcome of its own (a result code or an HTTP error), not only a delay or fault. */
export const hasOutcome = (scenario: Scenario): boolean => scenario.then.code !== undefined || scenario.then.http !== undefined;
