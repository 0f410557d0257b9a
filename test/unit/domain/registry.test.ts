import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { CONTROL_API_DOCUMENT, PAYMENTS_API_DOCUMENT, paymentsOperations } from '../../../src/index.js';
import { documentReader } from '../../../src/control/documents.js';
import { OPERATIONS } from '../../../src/domain/registry.js';
import { fillSteps, OPERATION_IDS, OUTSIDE_EVENTS, STEPS } from '../../../src/model/operations.js';
import { CATALOGUE_SCHEMA } from '../../../src/scenarios/catalogue-file.js';
import { operationId } from '../../../src/validation/operations.js';

/**
 * One registry of operations (src/domain/registry.ts): every operation of
 * openapi/payments-api.yaml is in it with the document's route, and the
 * catalogue schema's and the control API's lists of steps are the
 * registry's, from the one list of operations (src/model/operations.ts).
 */

describe('the operation registry', () => {
  it('holds every operation of the document, with its method and path, and no other', async () => {
    const operations = await paymentsOperations();
    const documented = operations.map((operation) => [operationId(operation), `${operation.method.toUpperCase()} ${operation.path}`]);
    expect(documented.length).toBeGreaterThan(30);
    for (const [id, route] of documented) {
      expect(OPERATIONS, `${id} is in the registry`).toHaveProperty(id!);
      expect(OPERATIONS[id as keyof typeof OPERATIONS].route, `${id}'s route`).toBe(route);
    }
    expect(Object.keys(OPERATIONS).sort()).toEqual(documented.map(([id]) => id).sort());
    expect([...OPERATION_IDS].sort()).toEqual(Object.keys(OPERATIONS).sort());
  });

  it('fills the catalogue schema’s list of operations, which names none itself', async () => {
    const text = await readFile(CATALOGUE_SCHEMA, 'utf8');
    expect(text).not.toContain('"initiatePayment"');
    const schema = JSON.parse(text) as { definitions: { operation: { enum?: string[] } } };
    fillSteps(schema);
    expect(schema.definitions.operation.enum).toEqual([...STEPS]);
    expect([...STEPS].sort()).toEqual([...Object.keys(OPERATIONS), ...OUTSIDE_EVENTS].sort());
  });

  it('fills the control API’s list of operations, in the document it serves, which names none itself', async () => {
    expect(await readFile(CONTROL_API_DOCUMENT, 'utf8')).not.toMatch(/^\s+- initiatePayment$/m);
    const read = documentReader({ 'payments-api': PAYMENTS_API_DOCUMENT, 'control-api': CONTROL_API_DOCUMENT }, () => 'http://127.0.0.1:4010');
    for (const name of ['control-api.yaml', 'control-api.json']) {
      const served = parse((await read(name)).text) as { components: { schemas: { PaymentsOperationId: { enum: string[] } } } };
      expect(served.components.schemas.PaymentsOperationId.enum, name).toEqual([...STEPS]);
    }
  });

  it('gives the provider’s error body to refund, cancel and the card operations of their family', () => {
    const provider = Object.entries(OPERATIONS).filter(([, entry]) => entry.errors === 'provider').map(([id]) => id);
    expect(provider.sort()).toEqual(
      ['authorisePayment', 'cancelPayment', 'capturePayment', 'chargeCard', 'chargeSubscription', 'chargeToken', 'chargeTokenBulk', 'refundPayment', 'tokenizeCard'].sort(),
    );
  });
});
