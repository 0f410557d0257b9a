import type { Payment } from '../../../src/model/records.js';
import type { Outcome, Scenario } from '../../../src/scenarios/scenario.js';

/**
 * Catalogue rules built by hand for the unit tests of the scenario layer, as
 * small as a test needs: the shipped catalogue is tested through HTTP in
 * test/scenarios/catalogue.test.ts.
 */

/** A rule named `name` that answers `then` when `match` holds; `explicit` rules are chosen by header or override only. */
export function rule(name: string, match: Scenario['match'], then: Outcome, explicit = false): Scenario {
  const operation = [match.operation].flat()[0]!;
  return {
    name,
    description: `${name}, made for a unit test`,
    ...(explicit ? { explicit } : {}),
    match,
    then,
    example: { request: { operation }, expect: { status: 200, code: then.code } },
    source: 'test/unit/scenarios/rules.ts',
  };
}

/** An answer with a result code. */
export const answer = (code: string, extra: Outcome = {}): Outcome => ({ code, message: `answer ${code}`, ...extra });

/** A stored payment, for the rules that look at the payment a request names. */
export function storedPayment(fields: Partial<Payment> = {}): Payment {
  const at = '2025-01-01T12:00:00.000Z';
  return {
    publicKey: 'SBTESTPUBK_unit00000001',
    paymentReference: 'SBREF-UNIT-1',
    linkingReference: 'SBLNK_unit1',
    method: 'CARD',
    status: 'PENDING',
    code: 'S20',
    message: 'Transaction is pending',
    amount: '1500.00',
    refundedAmount: '0.00',
    currency: 'NGN',
    country: 'NG',
    scenario: 'card-stays-pending',
    createdAt: at,
    updatedAt: at,
    ...fields,
  };
}
