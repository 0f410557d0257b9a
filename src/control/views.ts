import type { Payment } from '../model/records.js';
import { hasOutcome, operationsOf, type Scenario } from '../scenarios/scenario.js';
import { maskStoredCard } from '../redaction/card-numbers.js';

/**
 * A payment as the control API shows it: the card as BIN, last four and a
 * masked number; never its token. Its history is left out: GET
 * /payments/{paymentReference}/story shows it (docs/decisions.md#d79-payment-history).
 */
export function paymentView(payment: Payment): Record<string, unknown> {
  const { card, history: _history, ...rest } = payment;
  if (!card) return rest;
  return { ...rest, card: { bin: card.bin, last4: card.last4, number: maskStoredCard(card) } };
}

/** A catalogue rule as the control API lists it. */
export function scenarioView(scenario: Scenario): Record<string, unknown> {
  return {
    name: scenario.name,
    description: scenario.description,
    explicit: scenario.explicit === true || !hasOutcome(scenario),
    operations: operationsOf(scenario),
    match: scenario.match,
    then: scenario.then,
    example: scenario.example,
    source: scenario.source,
  };
}
