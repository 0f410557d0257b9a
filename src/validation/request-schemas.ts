import { createRequire } from 'node:module';
import type { HttpOperation } from './http-shapes.js';
import type { RequestPlan } from './request-plan.js';
import { ajvKindOf, type AjvKind } from './ajv.js';

// prism's own schema preparation, so that the schemas compiled here are the ones prism would compile.
const require = createRequire(import.meta.url);
const mergeAllOf = require('@stoplight/json-schema-merge-allof') as (schema: object, options: object) => object;
const { stripReadOnlyProperties } = require('@stoplight/prism-http/dist/utils/filterRequiredProperties.js') as {
  stripReadOnlyProperties: (schema: object) => { _tag: 'Some'; value: object } | { _tag: 'None' };
};

/** The schemas of one operation's request, by the ajv prism compiles each with. */
export interface RequestSchemas {
  plan: RequestPlan;
  /** validator name -> the ajv it is compiled by, and its schema */
  schemas: Record<string, { kind: AjvKind; schema: object }>;
}

/** The document uses something the compiled check does not do as prism does: the build stops. */
export class UnsupportedDocumentError extends Error {
  override name = 'UnsupportedDocumentError';
}

/**
 * Reads the schemas prism validates a request with from one parsed
 * operation: the body's schema with allOf merged and readOnly properties
 * taken out (prism's validateBody), and one object schema per parameter
 * place, keyed by lower-case names (prism's validateParams).
 * @param prefix makes the validator names unique across documents, e.g. `payments`
 * @throws UnsupportedDocumentError for header or cookie parameters, parameter
 *   styles other than simple (path) and form (query), object parameters, or a
 *   body in another media type than JSON, which the compiled check does not replicate
 */
export function requestSchemasOf(operation: HttpOperation, prefix: string): RequestSchemas {
  const id = `${prefix}_${operation.iid ?? operation.id}`.replace(/[^A-Za-z0-9_]/g, '_');
  const request = operation.request ?? {};
  const refuse = (what: string) => new UnsupportedDocumentError(`${operation.method.toUpperCase()} ${operation.path}: ${what} is not supported by the prepared validators`);
  if ((request.headers ?? []).length > 0) throw refuse('a header parameter');
  if ((request.cookie ?? []).length > 0) throw refuse('a cookie parameter');
  if (/\{[^}]*[^A-Za-z0-9_}][^}]*\}/.test(operation.path)) throw refuse('a path template other than {name}');
  const plan: RequestPlan = { template: operation.path };
  const schemas: RequestSchemas['schemas'] = {};
  if (request.body) {
    const contents = request.body.contents ?? [];
    if (contents.length > 1 || contents.some((content) => !/^application\/json$/i.test(content.mediaType))) throw refuse('a body other than application/json');
    plan.body = { required: Boolean(request.body.required), mediaTypes: contents.map((content) => content.mediaType) };
    const schema = contents[0]?.schema as object | undefined;
    if (schema) {
      const normalized = stripReadOnlyProperties(withoutAllOf(schema));
      if (normalized._tag === 'Some') {
        plan.body.validator = `${id}_body`;
        schemas[plan.body.validator] = { kind: ajvKindOf(normalized.value, false), schema: normalized.value };
      }
    }
  }
  for (const place of ['query', 'path'] as const) {
    const parameters = request[place] ?? [];
    if (parameters.length === 0) continue;
    const style = place === 'query' ? 'form' : 'simple';
    const properties: Record<string, object> = {};
    const required: string[] = [];
    const listed: Array<{ name: string; array: boolean }> = [];
    for (const parameter of parameters) {
      const name = parameter.name.toLowerCase();
      const schema = parameter.schema as { type?: unknown } | undefined;
      if ((parameter.style ?? style) !== style) throw refuse(`the ${parameter.style} style`);
      if (parameter.deprecated) throw refuse('a deprecated parameter');
      if (schema?.type === 'object' || Array.isArray(schema?.type)) throw refuse('an object parameter');
      if (schema) properties[name] = schema;
      if (parameter.required) required.push(name);
      listed.push({ name, array: schema?.type === 'array' });
    }
    const validator = `${id}_${place}`;
    plan[place] = { validator, parameters: listed };
    const schema = { type: 'object', properties, required };
    schemas[validator] = { kind: ajvKindOf(schema, true), schema };
  }
  return { plan, schemas };
}

// prism's withoutAllOf: allOf merged deep; a schema that cannot be merged is kept as written.
function withoutAllOf(schema: object): object {
  try {
    return mergeAllOf(schema, { deep: true, ignoreAdditionalProperties: true });
  } catch {
    return schema;
  }
}
