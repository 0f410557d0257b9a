import fc from 'fast-check';
import type { Schema } from './payments-document.js';

/**
 * Values a JSON Schema of the document accepts, as fast-check arbitraries:
 * `const`, `enum`, `anyOf`/`oneOf`, type lists, string patterns and
 * formats, numbers, arrays and objects. The document's own `example` is one
 * of the candidates, so a realistic value comes up often.
 */

/** An arbitrary of values that `schema` accepts (as far as the keywords above go). */
export function valueOf(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 6) return fc.constant('x');
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (branches?.length) return fc.oneof(...branches.map((branch) => valueOf({ ...withoutBranches(schema), ...branch }, depth + 1)));
  if (Array.isArray(schema.type)) return fc.oneof(...(schema.type as string[]).map((type) => valueOf({ ...schema, type }, depth + 1)));
  const example = schema.example !== undefined ? [fc.constant(schema.example)] : [];
  switch (schema.type) {
    case 'string':
      return fc.oneof(...example, stringOf(schema));
    case 'integer':
      return fc.oneof(...example, fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 }));
    case 'number':
      return fc.oneof(...example, fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true }));
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(valueOf(schema.items, depth + 1), { minLength: schema.minItems ?? 0, maxLength: Math.max(schema.minItems ?? 0, 3) });
    case 'object':
    case undefined:
      if (schema.properties) return objectOf(schema, depth);
      return fc.oneof(...example, fc.constant({}));
    default:
      return fc.constant(null);
  }
}

/** An object with the schema's required properties and some of its optional ones, each valid. */
export function objectOf(schema: Schema, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = (schema.required ?? []) as string[];
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties)) model[name] = valueOf(property, depth + 1);
  return fc.record(model, { requiredKeys: required.filter((name) => name in model) }) as fc.Arbitrary<Record<string, unknown>>;
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = schema.maxLength ?? Math.max(minLength, 24);
  if (schema.format === 'uri' || schema.format === 'url') return fc.webUrl({ validSchemes: ['http', 'https'] }).filter((url) => new RegExp(schema.pattern ?? '').test(url));
  if (typeof schema.pattern === 'string') {
    return fc.stringMatching(new RegExp(schema.pattern)).filter((text) => text.length >= minLength && (schema.maxLength === undefined || text.length <= schema.maxLength));
  }
  return fc.string({ minLength, maxLength });
}

function withoutBranches(schema: Schema): Schema {
  const { anyOf: _anyOf, oneOf: _oneOf, ...rest } = schema;
  return rest;
}
