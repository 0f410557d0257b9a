import fc from 'fast-check';
import { decidingProperties, propertyNames, type DocumentedOperation, type Schema } from './payments-document.js';
import { basic, bearer, linkingPlaceholder, type FuzzContext, type RequestParts } from './fuzz-context.js';
import { objectOf, valueOf } from './schema-arbitraries.js';

/**
 * Requests the document accepts, as the campaign's merchant: one of the
 * operation's request examples (or a body drawn from its schema), some of its
 * free fields drawn anew from their schemas, the path parameters filled in,
 * and the credentials the operation takes.
 */

/** Fields that say who and what a request is about; bound to the campaign's merchant and references. */
const IDENTITY = new Set(['publicKey', 'paymentReference', 'linkingReference', 'key']);

/** A request the document accepts, as the merchant. */
export function validParts(operation: DocumentedOperation, context: FuzzContext): fc.Arbitrary<RequestParts> {
  const reference = referenceOf(context);
  const path = fc
    .tuple(...operation.pathParameters.map((parameter) => pathValue(parameter.name, parameter.schema, context, reference)))
    .map((values) => fillPath(operation.path, operation.pathParameters.map((parameter) => parameter.name), values))
    .chain((filled) => queryOf(operation, context, reference).map((query) => `${filled}${query}`));
  const authorization = fc.constantFrom(...operation.credentials).map((credentials) =>
    credentials === 'bearer' ? bearer(context.merchant) : credentials === 'basic' ? basic(context.merchant) : undefined,
  );
  return fc.record({ path, body: bodyOf(operation, context, reference), authorization });
}

/** The schema of one property of a body schema, looked up in its allOf, anyOf and oneOf branches too, however deep. */
export function propertySchema(body: Schema | undefined, name: string): Schema | undefined {
  if (!body) return undefined;
  if (body.properties?.[name]) return body.properties[name];
  for (const part of [...(body.allOf ?? []), ...(body.anyOf ?? []), ...(body.oneOf ?? [])] as Schema[]) {
    const found = propertySchema(part, name);
    if (found) return found;
  }
  return undefined;
}

function referenceOf(context: FuzzContext): fc.Arbitrary<string> {
  // Mostly the shared pool, so that requests meet each other's payments; sometimes a fresh one.
  return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...context.references) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 0xffffffff }).map((n) => `FZ-NEW-${n.toString(16)}`) });
}

// The required query parameters, drawn from their schemas (a bulk token charge's batchId), as `?name=value&...`; '' when there are none.
function queryOf(operation: DocumentedOperation, context: FuzzContext, reference: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const required = operation.queryParameters.filter((parameter) => parameter.required);
  if (required.length === 0) return fc.constant('');
  return fc
    .tuple(...required.map((parameter) => pathValue(parameter.name, parameter.schema, context, reference)))
    .map((values) => `?${required.map((parameter, index) => `${parameter.name}=${encodeURIComponent(values[index] ?? '')}`).join('&')}`);
}

function pathValue(name: string, schema: Schema, context: FuzzContext, reference: fc.Arbitrary<string>): fc.Arbitrary<string> {
  if (name === 'publicKey') return fc.constant(context.merchant.publicKey);
  // A subscription's billingId is its first payment's paymentReference.
  if (name === 'paymentReference' || name === 'billingId') return reference;
  return valueOf(schema).map(String);
}

function fillPath(template: string, names: string[], values: string[]): string {
  return names.reduce((path, name, index) => path.replace(`{${name}}`, encodeURIComponent(values[index] ?? '')), template);
}

/** A valid body: one of the document's examples (or one drawn from the schema), some free fields drawn anew, identity bound to the merchant. */
function bodyOf(operation: DocumentedOperation, context: FuzzContext, reference: fc.Arbitrary<string>): fc.Arbitrary<Record<string, unknown> | undefined> {
  const schema = operation.body;
  if (!schema) return fc.constant(undefined);
  const examples = operation.examples.filter((example): example is Record<string, unknown> => typeof example === 'object' && example !== null && !Array.isArray(example));
  const base = examples.length > 0 ? fc.constantFrom(...examples) : objectOf(schema);
  const deciding = decidingProperties(schema);
  const free = propertyNames(schema).filter((name) => !deciding.has(name) && !IDENTITY.has(name) && propertySchema(schema, name) !== undefined);
  const redrawn = fc
    .subarray(free, { maxLength: Math.min(3, free.length) })
    .chain((names) => fc.tuple(...names.map((name) => valueOf(propertySchema(schema, name)))).map((values) => names.map((name, index) => [name, values[index]] as const)));
  return fc.record({ base, redrawn, reference, keepKey: fc.boolean(), dropHash: fc.boolean() }).map(({ base: example, redrawn: fields, reference: paymentReference, keepKey, dropHash }) => {
    const body: Record<string, unknown> = structuredClone(example);
    for (const [name, value] of fields) body[name] = value;
    const names = new Set(propertyNames(schema));
    if (names.has('publicKey')) body.publicKey = context.merchant.publicKey;
    if (names.has('paymentReference')) body.paymentReference = paymentReference;
    if (names.has('billingId')) body.billingId = paymentReference;
    if (names.has('linkingReference')) body.linkingReference = linkingPlaceholder(paymentReference);
    if (names.has('key') && !keepKey) body.key = `${context.merchant.secretKey}.${context.merchant.publicKey}`;
    // The examples' hash is for the document's merchant: without one the link is made, with it INVALID HASH is the documented answer.
    if (dropHash) delete body.hash;
    return body;
  });
}
