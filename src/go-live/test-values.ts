import type { PaymentMethod, PaymentStatus } from '../model/records.js';
import { operationsOf, type Condition, type Scenario } from '../scenarios/scenario.js';
import { outcomeOf, type Outcome, type TestValue, type TestValueOf } from './traffic-checks.js';

/**
 * The test value the scenario catalogue gives for a payment type and an
 * outcome, for the advice of `outcomes-covered`: the first rule, in the
 * catalogue's order, of an operation that starts or completes such a
 * payment, whose outcome is the one asked, and that a value of the request
 * chooses (`cardNumber 4000000000000002`); else the first such rule at all,
 * chosen by its name in the X-Sandbox-Scenario header. Read from the
 * catalogue the sandbox runs, so a custom catalogue gives its own values.
 */
export function testValues(scenarios: readonly Scenario[]): TestValueOf {
  const cache = new Map<string, TestValue | undefined>();
  return (method, outcome) => {
    const key = `${method} ${outcome}`;
    if (!cache.has(key)) cache.set(key, find(scenarios, method, outcome));
    return cache.get(key);
  };
}

// The operations that start a payment of each type, then those that complete one (an OTP, a mobile money approval).
const STARTS: Record<PaymentMethod, string[]> = {
  CARD: ['initiatePayment', 'chargeCard', 'authorisePayment', 'completeCardOtp'],
  ACCOUNT: ['initiatePayment', 'validatePayment'],
  MOMO: ['initiatePayment', 'completeMomoPayment', 'validatePayment'],
  TRANSFER: ['initiatePayment'],
  USSD: ['initiatePayment'],
  CHECKOUT: ['createCheckoutLink'],
  ORDER: ['createOrder'],
};

function find(scenarios: readonly Scenario[], method: PaymentMethod, outcome: Outcome): TestValue | undefined {
  const fitting = scenarios.filter((scenario) => applies(scenario, method) && outcomeOfRule(scenario) === outcome);
  const chosen = fitting.find((scenario) => !scenario.explicit && valuesOf(scenario) !== undefined);
  if (chosen) return { value: valuesOf(chosen)!, scenario: chosen.name };
  const named = fitting[0];
  return named === undefined ? undefined : { value: `the header X-Sandbox-Scenario: ${named.name}`, scenario: named.name };
}

function applies(scenario: Scenario, method: PaymentMethod): boolean {
  const operations = operationsOf(scenario) as string[];
  if (!operations.some((operation) => STARTS[method].includes(operation))) return false;
  const variants = scenario.match.variant as string[] | undefined;
  if (variants !== undefined) return variants.includes(method);
  const type = scenario.match.body?.paymentType;
  if (type?.equals !== undefined) return type.equals === method;
  // A rule of an operation only this type has, or a completion any type shares.
  return true;
}

// What the payment comes to: the settlement a rule promises, else the state it leaves the payment in.
function outcomeOfRule(scenario: Scenario): Outcome | undefined {
  const { then } = scenario;
  if (then.state === 'PENDING' && then.settle === undefined) return 'pending';
  if (then.settle !== undefined) return then.settle.outcome;
  return then.state === undefined ? undefined : outcomeOf(then.state as PaymentStatus);
}

// The request values that choose the rule: `cardNumber 4000000000000002`, several joined with "and".
function valuesOf(scenario: Scenario): string | undefined {
  const values = Object.entries(scenario.match.body ?? {})
    .filter(([name, condition]) => name !== 'paymentType' && chosenBy(condition))
    .map(([name, condition]) => `${name} ${String(condition.equals ?? condition.in?.[0])}`);
  return values.length === 0 ? undefined : values.join(' and ');
}

const chosenBy = (condition: Condition): boolean => condition.equals !== undefined || (condition.in !== undefined && condition.in.length > 0);
