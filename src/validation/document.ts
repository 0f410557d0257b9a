import { readFile } from 'node:fs/promises';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { getHttpOperationsFromSpec } from '@stoplight/prism-http/dist/utils/operations.js';
import { fillSteps } from '../model/operations.js';
import { prismLikeAjv, type AjvKind } from './ajv.js';
import type { HttpOperation } from './http-shapes.js';
import { preparedName, sourceHash } from './prepared.js';
import type { RequestPlan, Validators } from './request-plan.js';
import { requestSchemasOf } from './request-schemas.js';

/**
 * An OpenAPI document as prism reads it, with what it takes to check its
 * requests: done at build time for the shipped documents (src/prepare.ts),
 * at start-up for any other, or for a shipped one edited since the build.
 */
export interface ParsedDocument {
  /** SHA-256 (hex) of the document's bytes, to know a prepared copy is still the document's */
  source: string;
  operations: HttpOperation[];
  /** one plan per operation, in the same order */
  plans: RequestPlan[];
  /** validator name -> the ajv it is compiled by, and its schema */
  schemas: Record<string, { kind: AjvKind; schema: object }>;
  /** the validators, compiled now */
  validators: Validators;
}

/**
 * Parses a document with prism, reads the schemas of every request and
 * compiles them. A schema ajv cannot compile checks nothing, as in prism.
 * @throws Error from prism for a document it cannot read; UnsupportedDocumentError
 *   (src/validation/request-schemas.ts) for a feature the compiled check does not replicate
 */
export async function parseDocument(file: string, bytes?: Buffer): Promise<ParsedDocument> {
  const source = sourceHash(bytes ?? (await readFile(file)));
  // Plain data from here on: the prepared copy must be the same objects, JSON round trip included.
  const operations = JSON.parse(JSON.stringify(await getHttpOperationsFromSpec(file))) as HttpOperation[];
  // The control API's document names no operation: the sandbox's list of steps is the one source.
  fillSteps(operations);
  const prefix = preparedName(file).replace(/[^A-Za-z0-9]/g, '_');
  const parsed: ParsedDocument = { source, operations, plans: [], schemas: {}, validators: {} };
  const ajvs = new Map<AjvKind, ReturnType<typeof prismLikeAjv>>();
  for (const operation of operations) {
    const { plan, schemas } = requestSchemasOf(operation, prefix);
    for (const [name, { kind, schema }] of Object.entries(schemas)) {
      if (!ajvs.has(kind)) ajvs.set(kind, prismLikeAjv(kind));
      try {
        parsed.validators[name] = ajvs.get(kind)!.compile(schema);
        parsed.schemas[name] = { kind, schema };
      } catch {
        // prism's validateAgainstSchema finds nothing when its schema does not compile.
        if (plan.body?.validator === name) delete plan.body.validator;
        if (plan.query?.validator === name) delete plan.query;
        if (plan.path?.validator === name) delete plan.path;
      }
    }
    parsed.plans.push(plan);
  }
  return parsed;
}

/**
 * The validators of a parsed document as ES modules of standalone ajv code
 * (no ajv compilation at start-up), one per ajv kind, since each ajv names
 * its functions alike; each exports its validators by name.
 * @param formatsModule the specifier the modules import `formats` from (src/validation/formats.ts, compiled)
 */
export function validatorModules(parsed: ParsedDocument, formatsModule: string): Partial<Record<AjvKind, string>> {
  const modules: Partial<Record<AjvKind, string>> = {};
  const kinds = new Set(Object.values(parsed.schemas).map(({ kind }) => kind));
  for (const kind of kinds) {
    const ajv = prismLikeAjv(kind, true);
    const names: Record<string, string> = {};
    for (const [name, entry] of Object.entries(parsed.schemas)) {
      if (entry.kind !== kind) continue;
      ajv.addSchema(entry.schema, name);
      names[name] = name;
    }
    modules[kind] = [
      `import { createRequire } from 'node:module';`,
      `import { formats } from ${JSON.stringify(formatsModule)};`,
      // ajv's standalone code requires its small runtime helpers even as an ES module.
      `const require = createRequire(import.meta.url);`,
      `void formats, require;`,
      standaloneCode.default(ajv, names).replace(/^"use strict";/, ''),
      '',
    ].join('\n');
  }
  return modules;
}
