/**
 * A schema of an OpenAPI 3.1 document as a tool's input schema: whole, with
 * no `$ref` left, since an MCP client reads each tool's schema on its own,
 * without the document it came from.
 */

/** Keywords whose value is one schema. */
const ONE_SCHEMA = new Set(['items', 'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'contentSchema']);
/** Keywords whose value is a list of schemas. */
const SCHEMA_LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
/** Keywords whose value maps names (chosen by the document, any text) to schemas. */
const SCHEMA_MAP = new Set(['properties', 'patternProperties', 'dependentSchemas', '$defs']);

/**
 * A copy of `schema` with every local `$ref` (`#/components/...`) replaced
 * by what it points at (keywords beside a `$ref` kept, as OpenAPI 3.1
 * allows), OpenAPI's `example` written as JSON Schema's `examples`, and the
 * document's own extensions (`x-...`) left out. A reference met again inside
 * itself becomes `{}` (any value) with its name as description: the schemas
 * of the control API have none, and a tool's schema must stay finite.
 * @param document the whole document, which the references point into
 * @throws Error for a reference to another file, or to nothing in the document
 */
export function inlineSchema(schema: unknown, document: object): unknown {
  return inline(schema, document, []);
}

function inline(schema: unknown, document: object, trail: readonly string[]): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  const { $ref, ...rest } = schema as Record<string, unknown>;
  if (typeof $ref === 'string') {
    if (trail.includes($ref)) return { description: `a ${$ref.split('/').pop()}, as above` };
    const target = inline(pointed(document, $ref), document, [...trail, $ref]) as Record<string, unknown>;
    return Object.keys(rest).length === 0 ? target : { ...target, ...(inline(rest, document, trail) as object) };
  }
  const copy: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(rest)) {
    if (keyword.startsWith('x-')) continue;
    if (keyword === 'example') {
      if (!('examples' in rest)) copy.examples = [value];
    } else if (ONE_SCHEMA.has(keyword)) copy[keyword] = inline(value, document, trail);
    else if (SCHEMA_LIST.has(keyword) && Array.isArray(value)) copy[keyword] = value.map((each) => inline(each, document, trail));
    else if (SCHEMA_MAP.has(keyword) && typeof value === 'object' && value !== null) {
      copy[keyword] = Object.fromEntries(Object.entries(value).map(([name, each]) => [name, inline(each, document, trail)]));
    } else copy[keyword] = value;
  }
  return copy;
}

/**
 * What a local reference (`#/components/schemas/Name`, RFC 6901 escapes
 * read) points at in the document.
 * @throws Error for a reference to another file, or to nothing
 */
export function pointed(document: object, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`${ref} is not a reference inside the document`);
  let at: unknown = document;
  for (const token of ref.slice(2).split('/')) {
    const key = decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof at !== 'object' || at === null || !(key in at)) throw new Error(`${ref} points at nothing in the document`);
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}
