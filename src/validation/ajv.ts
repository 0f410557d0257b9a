import { _, Ajv, type Options } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { formats } from './formats.js';

/** The JSON Schema drafts prism keeps an ajv for, chosen by a schema's top-level `$schema`. */
export type Draft = 'default' | 'draft2019_09' | 'draft2020_12';

/** Which ajv a schema is compiled by: coercing (parameters, which arrive as text) or not (bodies), and its draft. */
export type AjvKind = `${'exact' | 'coercing'}-${Draft}`;

/** prism's choice of ajv for a schema (its assignAjvInstance). */
export function ajvKindOf(schema: object, coerce: boolean): AjvKind {
  const declared = String((schema as { $schema?: unknown }).$schema);
  const draft: Draft = /^https?:\/\/json-schema.org\/draft\/2019-09\/schema#?$/.test(declared)
    ? 'draft2019_09'
    : /^https?:\/\/json-schema.org\/draft\/2020-12\/schema#?$/.test(declared)
      ? 'draft2020_12'
      : 'default';
  return `${coerce ? 'coercing' : 'exact'}-${draft}`;
}

/**
 * An ajv configured as prism's validator configures its own (allErrors,
 * union types, no strict mode, unknown formats ignored, prism's formats).
 * @param source keep the generated code, for the prepared (standalone) validators
 */
export function prismLikeAjv(kind: AjvKind, source = false): Ajv {
  const options: Options = {
    allErrors: true,
    allowUnionTypes: true,
    allowMatchingProperties: true,
    strict: false,
    coerceTypes: kind.startsWith('coercing'),
    // prism silences only its unknown-format warnings.
    logger: { log: console.log, warn: (...args: unknown[]) => (String(args[0]).startsWith('unknown format') ? undefined : console.warn(...args)), error: console.error },
  };
  // The prepared module imports `formats` (src/validation/formats.ts) under this name.
  if (source) options.code = { source: true, esm: true, formats: _`formats` };
  const draft = kind.slice(kind.indexOf('-') + 1) as Draft;
  const ajv = draft === 'draft2020_12' ? new Ajv2020(options) : draft === 'draft2019_09' ? new Ajv2019(options) : new Ajv(options);
  for (const [name, format] of Object.entries(formats)) ajv.addFormat(name, format as never);
  return ajv;
}
