import { inputError } from '../errors.js';
import { hasOutcome, type Delay, type Fault, type Scenario } from './catalogue.js';
import { appliesTo, type ScenarioEngine } from './engine.js';
import type { OverrideBook, Target } from './overrides.js';

/** A delay or fault to apply to one answer, and the rule (or override) it came from. */
export interface Action {
  name: string;
  delay?: Delay;
  fault?: Fault;
}

/**
 * What the selectors in front of the catalogue chose for a request: a rule
 * whose outcome is forced, and/or an action on the answer. Empty: the values
 * of the request decide (ScenarioEngine.decide).
 */
export interface Selection {
  forced?: Scenario;
  action?: Action;
}

/** The request header that names a scenario for one request. */
export const SCENARIO_HEADER = 'x-sandbox-scenario';

/**
 * The selectors, in their documented precedence (README, "Choosing a
 * scenario"): the X-Sandbox-Scenario request header, then an override (the
 * merchant's, then the sandbox's), then the values of the request.
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
    if (header !== undefined && header !== '') {
      const scenario = this.engine.find(header);
      if (!scenario) throw inputError(`Unknown scenario ${header} in X-Sandbox-Scenario: GET /__sandbox/scenarios lists them`);
      if (!appliesTo(scenario, target.operation, target.variant)) {
        throw inputError(`Scenario ${header} does not apply to ${target.operation}${target.variant ? ` (${target.variant})` : ''}`);
      }
      return selectionOf(scenario);
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
    const selection = picked ? selectionOf(picked) : {};
    if (override.delay || override.fault) {
      selection.action = {
        name: picked?.name ?? `override-${override.id}`,
        delay: override.delay ?? selection.action?.delay,
        fault: override.fault ?? selection.action?.fault,
      };
    }
    return selection;
  }
}

function selectionOf(scenario: Scenario): Selection {
  if (hasOutcome(scenario)) return { forced: scenario };
  return { action: { name: scenario.name, delay: scenario.then.delay, fault: scenario.then.fault } };
}
