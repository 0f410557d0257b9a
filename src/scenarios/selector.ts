import { inputError } from '../errors.js';
import { hasOutcome, type Delay, type Fault, type Scenario } from './scenario.js';
import { appliesTo, type Facts, type ScenarioEngine } from './engine.js';
import type { OverrideBook } from './overrides.js';

/** A delay or fault to apply to one answer, and the rule (or override) it came from. */
export interface Action {
  name: string;
  delay?: Delay;
  fault?: Fault;
}

/**
 * Everything decided about one request before the operation runs: the rule
 * whose outcome answers it, the rule its values alone would choose, and the
 * delay or fault to carry out. The operation still applies the payment state
 * machine: a rule names an answer, it cannot make a refused change happen.
 */
export interface Selection {
  /** the rule that answers: the header's or an override's when one was forced, else `byValues` */
  rule: Scenario;
  /** true when a header or an override chose `rule` */
  forced: boolean;
  /** the rule the request's values choose (the catalogue's answer to a reused reference, for example) */
  byValues: Scenario;
  /** the delay or fault to carry out: the selector's own first, then the answering rule's */
  action?: Action;
  /**
   * The catalogue's answer when the state machine finds the paymentReference
   * already used, whatever rule was forced: the first rule the request's
   * values choose that creates no payment (`duplicate-reference`, S18, or
   * `duplicate-reference-link`, 500; spec, Limits 1).
   */
  reusedReference(): Scenario;
}

/** The request header that names a scenario for one request. */
export const SCENARIO_HEADER = 'x-sandbox-scenario';

/** What a selection looks at: the engine's facts and the merchant whose overrides apply. */
export type Target = Facts & { publicKey?: string };

/**
 * The selectors, in their documented precedence (README, "Choosing a
 * scenario"): the X-Sandbox-Scenario request header, then an override (the
 * merchant's, then the sandbox's), then the values of the request. The one
 * place that decides how a request is answered.
 */
export class ScenarioSelector {
  constructor(
    readonly engine: ScenarioEngine,
    readonly overrides: OverrideBook,
  ) {}

  /**
   * Chooses for one request. An override that applies is counted as used.
   * @param header the X-Sandbox-Scenario request header, if sent
   * @throws ApiError 400 INPUT when the header names an unknown scenario or one
   *   that does not apply to the operation.
   */
  select(target: Target, header: string | undefined): Selection {
    const byValues = this.engine.decide(target);
    const chosen = this.forced(target, header);
    const rule = chosen.rule ?? byValues;
    const reusedReference = () => (byValues.then.state === undefined ? byValues : this.engine.decide(target, createsNothing));
    return { rule, forced: chosen.rule !== undefined, byValues, action: actionOf(chosen.action, rule), reusedReference };
  }

  private forced(target: Target, header: string | undefined): { rule?: Scenario; action?: Action } {
    if (header !== undefined && header !== '') {
      const scenario = this.engine.find(header);
      // A scenario's name is at most 100 characters: a longer header is named by its start only.
      if (!scenario) throw inputError(`Unknown scenario ${header.length > 100 ? `${header.slice(0, 100)}…` : header} in X-Sandbox-Scenario: GET /__sandbox/scenarios lists them`);
      if (!appliesTo(scenario, target.operation, target.variant)) {
        throw inputError(`Scenario ${header} does not apply to ${target.operation}${target.variant ? ` (${target.variant})` : ''}`);
      }
      return ruleOrModifier(scenario);
    }
    let picked: Scenario | undefined;
    const override = this.overrides.take(target.publicKey, (candidate) => {
      if (candidate.scenario === undefined) return true;
      const scenario = this.engine.find(candidate.scenario);
      if (!scenario || !appliesTo(scenario, target.operation, target.variant) || !this.engine.chance(scenario)) return false;
      picked = scenario;
      return true;
    });
    if (!override) return {};
    const chosen = picked ? ruleOrModifier(picked) : {};
    if (!override.delay && !override.fault) return chosen;
    return {
      rule: chosen.rule,
      action: {
        name: picked?.name ?? `override-${override.id}`,
        delay: override.delay ?? chosen.action?.delay,
        fault: override.fault ?? chosen.action?.fault,
      },
    };
  }
}

const createsNothing = (scenario: Scenario): boolean => scenario.then.state === undefined;

// A rule with an outcome answers; one with only a delay or fault modifies whatever answers.
function ruleOrModifier(scenario: Scenario): { rule?: Scenario; action?: Action } {
  if (hasOutcome(scenario)) return { rule: scenario };
  return { action: { name: scenario.name, delay: scenario.then.delay, fault: scenario.then.fault } };
}

/** The delay and fault of an answer: the selector's action first, then the answering rule's own. */
function actionOf(selected: Action | undefined, rule: Scenario): Action | undefined {
  const delay = selected?.delay ?? rule.then.delay;
  const fault = selected?.fault ?? rule.then.fault;
  if (!delay && !fault) return undefined;
  return { name: selected?.delay || selected?.fault ? selected.name : rule.name, delay, fault };
}
