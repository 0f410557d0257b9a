import { AMOUNT_PATTERN, toMinor } from '../model/money.js';
import type { Payment } from '../model/records.js';
import type { Step, Variant } from '../model/operations.js';
import { hasOutcome, type Condition, type Scenario } from './scenario.js';

/** What the engine knows of a request when it picks a scenario. */
export interface Facts {
  /** the operation, or the event outside the API (a customer's step, a settle over the control API) */
  operation: Step;
  /** the initiate variant, for initiatePayment */
  variant?: Variant;
  /** the parsed JSON body ({} when there is none) */
  body: Record<string, unknown>;
  /** request headers, lower-case names */
  headers: Record<string, string | string[] | undefined>;
  /** the stored payment the request names, if there is one */
  payment?: Payment;
  /** the card a card operation charges (its number's, or its cardToken's): BIN and last four only */
  card?: { bin: string; last4: string };
}

/**
 * Picks the outcome of a request from the catalogue by the values of the
 * request: the first rule that is not explicit and whose match holds wins
 * (docs/design.md, "How an outcome is chosen"). The header and override selectors sit in front of it
 * (src/scenarios/selector.ts).
 */
export class ScenarioEngine {
  /**
   * @param scenarios the catalogue, in the order its rules are tried
   * @param random    a source of numbers in [0, 1) for rules with a probability (seeded by --seed)
   */
  constructor(
    readonly scenarios: readonly Scenario[],
    readonly random: () => number = Math.random,
  ) {}

  /**
   * The rule whose outcome answers a request.
   * @param only when given, the first matching rule it accepts
   * @throws Error when no rule matches: the shipped catalogue has a default
   *   rule for every operation, so this means a broken catalogue.
   */
  decide(facts: Facts, only?: (scenario: Scenario) => boolean): Scenario {
    const scenario = this.scenarios.find(
      (candidate) => !candidate.explicit && hasOutcome(candidate) && (!only || only(candidate)) && matches(candidate, facts) && this.chance(candidate),
    );
    if (!scenario) throw new Error(`no scenario matches ${facts.operation}`);
    return scenario;
  }

  /**
   * The amount below which an account payment is refused: the `lessThan` of
   * the first rule that refuses account initiates by amount (the shipped
   * `amount-below-minimum`, spec Limits 2), so that the bank list shows the
   * figure the initiate applies; undefined when the catalogue has no such rule.
   */
  accountMinimum(): string | undefined {
    const rule = this.scenarios.find((scenario) => {
      const { body } = scenario.match;
      return !scenario.explicit && [scenario.match.operation].flat().includes('initiatePayment') && body?.paymentType?.equals === 'ACCOUNT' && body.amount?.lessThan !== undefined;
    });
    return rule?.match.body?.amount?.lessThan;
  }

  /** The scenario of that name, if the catalogue has one. */
  find(name: string): Scenario | undefined {
    return this.scenarios.find((scenario) => scenario.name === name);
  }

  /** Rolls the rule's probability: true at once for a rule without one. */
  chance(scenario: Scenario): boolean {
    const probability = scenario.match.probability;
    return probability === undefined || this.random() < probability;
  }
}

/** True when a scenario can answer this operation (and initiate variant), whatever the request's values. */
export function appliesTo(scenario: Scenario, operation: Step, variant?: Variant): boolean {
  if (!namesOperation(scenario, operation)) return false;
  return !scenario.match.variant || variant === undefined || scenario.match.variant.includes(variant);
}

/** True when every part of the scenario's `match` holds for the facts. */
export function matches(scenario: Scenario, facts: Facts): boolean {
  const { match } = scenario;
  if (!namesOperation(scenario, facts.operation)) return false;
  if (match.variant && (!facts.variant || !match.variant.includes(facts.variant))) return false;
  for (const [field, condition] of Object.entries(match.body ?? {})) {
    if (!holds(condition, facts.body[field])) return false;
  }
  for (const [name, condition] of Object.entries(match.headers ?? {})) {
    if (!holds(condition, facts.headers[name.toLowerCase()])) return false;
  }
  if (match.payment) {
    const { exists, ...fields } = match.payment;
    if (exists !== undefined && exists !== (facts.payment !== undefined)) return false;
    for (const [field, condition] of Object.entries(fields)) {
      if (!facts.payment || !holds(condition, facts.payment[field as 'scenario' | 'status' | 'method'])) return false;
    }
  }
  if (match.card) {
    for (const [field, condition] of Object.entries(match.card)) {
      if (!facts.card || !holds(condition, facts.card[field as 'bin' | 'last4'])) return false;
    }
  }
  return true;
}

// Every rule is tried on every request: no list is built to ask whether it names the operation.
function namesOperation(scenario: Scenario, operation: Step): boolean {
  const named = scenario.match.operation;
  return typeof named === 'string' ? named === operation : named.includes(operation);
}

// A condition's pattern, compiled once: the catalogue does not change while the sandbox runs.
const patterns = new WeakMap<Condition, RegExp>();

function patternOf(condition: Condition & { matches: string }): RegExp {
  let pattern = patterns.get(condition);
  if (!pattern) patterns.set(condition, (pattern = new RegExp(condition.matches)));
  return pattern;
}

function holds(condition: Condition, value: unknown): boolean {
  const present = value !== undefined && value !== null;
  if (condition.exists !== undefined && condition.exists !== present) return false;
  const text = present && typeof value !== 'object' ? String(value) : undefined;
  if (condition.equals !== undefined && text !== String(condition.equals)) return false;
  if (condition.in !== undefined && (text === undefined || !condition.in.some((listed) => String(listed) === text))) return false;
  if (condition.matches !== undefined && (text === undefined || !patternOf(condition as Condition & { matches: string }).test(text))) return false;
  if (condition.lessThan !== undefined) {
    if (text === undefined || !AMOUNT_PATTERN.test(text) || toMinor(text) >= toMinor(condition.lessThan)) return false;
  }
  return true;
}
