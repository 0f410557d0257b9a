import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from '../../support/process.js';

/**
 * The Payments API as openapi/payments-api.yaml describes it, read with the
 * `yaml` package: every operation with its method, path, path parameters,
 * request body schema, request examples and credentials. The campaign derives
 * its requests from this, so an operation or field added to the document is
 * fuzzed without anyone listing it here.
 */

/** A JSON Schema of the document with every local `$ref` replaced by what it points at. */
export type Schema = Record<string, any>;

/** Which credentials an operation takes, from its `security` (or the document's). */
export type Credentials = 'bearer' | 'basic' | 'none';

/** One operation of the document. */
export interface DocumentedOperation {
  operationId: string;
  /** upper case: GET, POST, PUT */
  method: string;
  /** the path below `/api` (`/v2/payments/initiates`, `/v3/payments/query/{paymentReference}`), with `{name}` placeholders */
  path: string;
  /** the path parameters in order of appearance, with their schemas */
  pathParameters: Array<{ name: string; schema: Schema }>;
  /** the query parameters, with their schemas and whether they are required */
  queryParameters: Array<{ name: string; schema: Schema; required: boolean }>;
  /** the JSON request body's schema, when the operation takes a body */
  body?: Schema;
  /** the request examples of the document, as values */
  examples: unknown[];
  /** the credentials the operation accepts; `none` when it may be called without */
  credentials: Credentials[];
}

/** Where the document lives. */
export const PAYMENTS_DOCUMENT = join(ROOT, 'openapi/payments-api.yaml');

/**
 * The base of every documented operation's path on the sandbox: `/api`. An
 * operation's `path` is below it, with its own server's prefix: `/v2` for
 * the document's server, `/v3` for the status query that names its own (docs/decisions.md#d56-status-query-v3).
 */
export const API_BASE_PATH = '/api';

let cached: DocumentedOperation[] | undefined;

/** Every operation of openapi/payments-api.yaml, read once. */
export function documentedOperations(): DocumentedOperation[] {
  if (cached) return cached;
  const document = parse(readFileSync(PAYMENTS_DOCUMENT, 'utf8')) as Schema;
  const resolved = resolveRefs(document, document) as Schema;
  const operations: DocumentedOperation[] = [];
  for (const [path, item] of Object.entries(resolved.paths as Record<string, Schema>)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])] as Schema[];
      const content = operation.requestBody?.content?.['application/json'];
      // The document's paths are below its server, `/api/v2`; an operation with its own server (`/api`) says so.
      const server = operation.servers ? '' : '/v2';
      operations.push({
        operationId: operation.operationId,
        method: method.toUpperCase(),
        path: `${server}${path}`,
        pathParameters: parameters.filter((parameter) => parameter.in === 'path').map((parameter) => ({ name: parameter.name, schema: parameter.schema ?? {} })),
        queryParameters: parameters.filter((parameter) => parameter.in === 'query').map((parameter) => ({ name: parameter.name, schema: parameter.schema ?? {}, required: parameter.required === true })),
        body: content?.schema,
        examples: Object.values((content?.examples ?? {}) as Record<string, Schema>).map((example) => example.value),
        credentials: credentialsOf(operation.security ?? resolved.security ?? [], resolved.components?.securitySchemes ?? {}),
      });
    }
  }
  cached = operations;
  return operations;
}

/** The names of a body schema's top-level properties (allOf branches included, however deep: a schema may extend one that extends another). */
export function propertyNames(schema: Schema | undefined): string[] {
  if (!schema) return [];
  const names = new Set<string>(Object.keys(schema.properties ?? {}));
  for (const part of [...(schema.allOf ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])] as Schema[]) {
    for (const name of propertyNames(part)) names.add(name);
  }
  return [...names];
}

/**
 * The properties whose value decides which other fields are required (those
 * named in an `if` of the schema): a valid request keeps the example's value
 * of these, since changing one alone would make the example invalid.
 */
export function decidingProperties(schema: Schema | undefined): Set<string> {
  const names = new Set<string>();
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    if (Array.isArray(node)) return node.forEach(visit);
    const record = node as Schema;
    if (record.if) collectNames(record.if, names);
    for (const value of Object.values(record)) visit(value);
  };
  visit(schema);
  return names;
}

function collectNames(node: unknown, names: Set<string>): void {
  if (typeof node !== 'object' || node === null) return;
  if (Array.isArray(node)) return node.forEach((child) => collectNames(child, names));
  const record = node as Schema;
  for (const name of (record.required ?? []) as string[]) names.add(name);
  for (const name of Object.keys(record.properties ?? {})) names.add(name);
  for (const [key, value] of Object.entries(record)) if (key !== 'properties') collectNames(value, names);
}

function credentialsOf(security: Array<Record<string, unknown>>, schemes: Record<string, Schema>): Credentials[] {
  const found = new Set<Credentials>();
  // `security: []` takes no credentials at all.
  if (security.length === 0) found.add('none');
  for (const requirement of security) {
    const names = Object.keys(requirement);
    if (names.length === 0) found.add('none');
    for (const name of names) {
      const scheme = schemes[name];
      if (scheme?.scheme === 'basic') found.add('basic');
      else if (scheme?.scheme === 'bearer') found.add('bearer');
    }
  }
  return [...found];
}

// Local references only (`#/components/...`); a reference met again inside itself is left as it is.
function resolveRefs(node: unknown, root: Schema, seen: string[] = []): unknown {
  if (typeof node !== 'object' || node === null) return node;
  if (Array.isArray(node)) return node.map((child) => resolveRefs(child, root, seen));
  const record = node as Schema;
  if (typeof record.$ref === 'string' && record.$ref.startsWith('#/')) {
    if (seen.includes(record.$ref)) return {};
    const target = record.$ref
      .slice(2)
      .split('/')
      .reduce<any>((at, part) => at?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], root);
    const { $ref: _ref, ...siblings } = record;
    return { ...(resolveRefs(target, root, [...seen, record.$ref]) as Schema), ...(resolveRefs(siblings, root, seen) as Schema) };
  }
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, resolveRefs(value, root, seen)]));
}
