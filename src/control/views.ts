import type { Payment } from '../model/records.js';
import { hasOutcome, operationsOf, type Scenario } from '../scenarios/scenario.js';
import { maskStoredCard } from '../redaction/card-numbers.js';
import { maskRecordShown } from '../redaction/entry.js';

/**
 * A payment as the control API shows it: the card as BIN, last four and a
 * masked number; never its token; every value through the one redaction rule (`shown`). Its history is left out: GET
 * /payments/{paymentReference}/story shows it (docs/decisions.md#d79-payment-history).
 */
export function paymentView(payment: Payment): Record<string, unknown> {
  const { card, history: _history, ...rest } = payment;
  // A paymentReference or URL that holds a card number is shown masked, as the journal shows it (docs/decisions.md#d86-one-redaction-rule).
  if (!card) return shown(rest);
  return shown({ ...rest, card: { bin: card.bin, last4: card.last4, number: maskStoredCard(card) } });
}

/**
 * A record (an order, a delivery, a history entry) as the control API and
 * the dashboard show it: every value through the one redaction rule
 * but the sandbox's own identifiers (src/redaction/entry.ts), so a paymentReference, URL or payload that holds a
 * card number is masked there as in the journal, while the store keeps what
 * the API looks it up by (docs/decisions.md#d86-one-redaction-rule).
 */
export const shown = <T>(record: T): T => maskRecordShown(record);

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
