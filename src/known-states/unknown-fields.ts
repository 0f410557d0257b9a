import { closestName, propertyNamesAt } from '../validation/closest-name.js';
import type { FixtureRunnerDependencies } from './fixtures.js';

/** A top-level field of a step's body that its operation does not take, and the closest one it does. */
export interface UnknownField {
  field: string;
  suggestion?: string;
}

/**
 * The top-level fields of a Payments API step's body that its operation's
 * schema does not name: the Payments API takes unknown fields silently, as
 * the provider does, so a misspelt optional field shows only as an answer
 * that differs. Read from the document the sandbox serves
 * (`/__sandbox/openapi/payments-api.json`), fetched through `send` and
 * only when a step failed.
 * @param path below /api/v2, with its query if any
 * @returns the unknown fields, each with its closest known name; empty when
 *   the document or the operation cannot be found
 */
export async function unknownBodyFields(send: FixtureRunnerDependencies['send'], method: string, path: string, body: unknown): Promise<UnknownField[]> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return [];
  const answer = await send({ method: 'GET', url: '/__sandbox/openapi/payments-api.json', headers: { accept: 'application/json' } });
  if (answer.status !== 200) return [];
  const document = JSON.parse(typeof answer.body === 'string' ? answer.body : answer.body.toString('utf8')) as OpenApiDocument;
  const schema = operationSchema(document, method, path.split(/[?#]/)[0]!);
  if (schema === undefined) return [];
  const known = propertyNamesAt(dereferenced(document, schema, 0), []);
  if (known.length === 0) return [];
  return Object.keys(body)
    .filter((field) => !known.includes(field))
    .map((field) => {
      const suggestion = closestName(field, known);
      return suggestion === undefined ? { field } : { field, suggestion };
    });
}

interface OpenApiDocument {
  paths?: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: unknown }> } }>>;
}

// The body schema of the operation whose path template matches `path`.
function operationSchema(document: OpenApiDocument, method: string, path: string): unknown {
  for (const [template, item] of Object.entries(document.paths ?? {})) {
    const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}/*$`);
    if (!pattern.test(path)) continue;
    const schema = item[method.toLowerCase()]?.requestBody?.content?.['application/json']?.schema;
    if (schema !== undefined) return schema;
  }
  return undefined;
}

// The schema with its local `$ref`s replaced, a few levels deep: enough for the names of a body's top-level fields.
function dereferenced(document: object, schema: unknown, depth: number): unknown {
  if (depth > 8 || typeof schema !== 'object' || schema === null) return schema;
  if (Array.isArray(schema)) return schema.map((item) => dereferenced(document, item, depth + 1));
  const { $ref } = schema as { $ref?: unknown };
  if (typeof $ref === 'string' && $ref.startsWith('#/')) {
    const target = $ref.slice(2).split('/').reduce<unknown>((node, key) => (typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), document);
    return dereferenced(document, target, depth + 1);
  }
  const { allOf, oneOf, anyOf, properties } = schema as Record<string, unknown>;
  return {
    properties,
    ...(allOf ? { allOf: dereferenced(document, allOf, depth + 1) } : {}),
    ...(oneOf ? { oneOf: dereferenced(document, oneOf, depth + 1) } : {}),
    ...(anyOf ? { anyOf: dereferenced(document, anyOf, depth + 1) } : {}),
  };
}
