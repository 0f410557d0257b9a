import { copyFile, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONTROL_API_DOCUMENT, PAYMENTS_API_DOCUMENT } from '../../../src/index.js';
import { disagreements, requestTo } from '../../../src/validation/agreement.js';
import { loadOperations, operationId, prismRequestViolations, requestViolations, type HttpOperation } from '../../../src/validation/operations.js';
import { preparedJson, readPrepared } from '../../../src/validation/prepared.js';

// The compiled check must say what prism's validateInput says, word for word and in the same order.
const payments = await loadOperations(PAYMENTS_API_DOCUMENT);
const control = await loadOperations(CONTROL_API_DOCUMENT);

const anyValue = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('150.00', '10.5', '1e2', '-5', '', 'NGN', 'CARD', 'ACCOUNT', '5123450000000008', 'https://x.example/cb', 'not a url', '2025-03-14T09:25:10.311Z'),
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
);

function examplesOf(operation: HttpOperation): Array<Record<string, unknown>> {
  return (operation.request?.body?.contents ?? [])
    .flatMap((content) => (content.examples ?? []).map((example) => ('value' in example ? example.value : undefined)))
    .filter((value): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value));
}

// A body: one of the operation's examples with some fields changed, removed or added.
const bodyFor = (operation: HttpOperation) => {
  const examples = examplesOf(operation);
  if (examples.length === 0) return fc.dictionary(fc.string({ maxLength: 10 }), anyValue, { maxKeys: 5 });
  return fc
    .tuple(fc.constantFrom(...examples), fc.array(fc.tuple(fc.string({ maxLength: 12 }), anyValue), { maxLength: 4 }), fc.array(fc.nat(), { maxLength: 3 }))
    .map(([example, changes, removals]) => {
      const body: Record<string, unknown> = { ...example };
      const keys = Object.keys(body);
      for (const removal of removals) delete body[keys[removal % keys.length]!];
      for (const [key, value] of changes) body[key.length > 0 && key.length % 2 === 0 ? key : keys[key.length % keys.length]!] = value;
      return body;
    });
};

// Each case compares two validators over many requests: on a machine busy with other files it can pass the default 5 s.
describe('the compiled request check', { timeout: 60_000 }, () => {
  it('agrees with prism on the requests each document suggests', () => {
    expect(disagreements(payments)).toEqual([]);
    expect(disagreements(control)).toEqual([]);
  });

  for (const operation of [...payments, ...control]) {
    it(`agrees with prism on random requests to ${operationId(operation)}`, () => {
      const queryNames = (operation.request?.query ?? []).map((parameter) => parameter.name);
      const query = queryNames.length === 0
        ? fc.constant({})
        : fc.dictionary(fc.constantFrom(...queryNames, 'other'), fc.oneof(fc.string({ maxLength: 6 }), fc.integer().map(String), fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 })), { maxKeys: 3 });
      const body = operation.request?.body ? fc.option(bodyFor(operation), { nil: undefined }) : fc.constant(undefined);
      fc.assert(
        fc.property(body, query, fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('SBREF-1', 'a,b', '')), (sent, params, pathValue) => {
          const request = requestTo(operation, sent, params as Record<string, string>, encodeURIComponent(pathValue));
          expect(requestViolations(operation, request)).toEqual(prismRequestViolations(operation, request));
        }),
        { numRuns: Number(process.env.FUZZ_RUNS ?? 150), seed: process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined },
      );
    });
  }

  it('uses the build\'s prepared copy only when it was made from the same bytes', async () => {
    const bytes = await readFile(PAYMENTS_API_DOCUMENT);
    expect(JSON.parse(await readFile(preparedJson(PAYMENTS_API_DOCUMENT), 'utf8')).source).toMatch(/^[0-9a-f]{64}$/);
    expect(await readPrepared(PAYMENTS_API_DOCUMENT, bytes)).toBeDefined();
    expect(await readPrepared(PAYMENTS_API_DOCUMENT, Buffer.concat([bytes, Buffer.from('\n# edited\n')]))).toBeUndefined();
  });

  it('parses a document edited since the build at start-up, with the same checks', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'sandbox-document-'));
    const edited = join(folder, 'payments-api.yaml');
    await copyFile(PAYMENTS_API_DOCUMENT, edited);
    // The amount pattern is tightened: the edited document, not the prepared copy, must decide.
    const text = (await readFile(edited, 'utf8')).replaceAll("pattern: '^[0-9]{1,13}(\\.[0-9]{1,2})?$'", () => "pattern: '^[0-9]{1,3}\\.[0-9]{2}$'");
    await writeFile(edited, text);
    const operations = await loadOperations(edited);
    const initiate = operations.find((operation) => operationId(operation) === 'initiatePayment')!;
    const body = { ...examplesOf(initiate)[0], amount: '1500.00' };
    const violations = requestViolations(initiate, requestTo(initiate, body));
    expect(violations.map((violation) => violation.where)).toContain('body.amount');
    expect(violations).toEqual(prismRequestViolations(initiate, requestTo(initiate, body)));
    expect(disagreements(operations)).toEqual([]);
  });
});
