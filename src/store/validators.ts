import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ErrorObject } from 'ajv';
import { STORE_SCHEMAS, type StoreSchemaName } from './record-schemas.js';

/** An ajv validator, compiled now or at build time. */
export type ValidateFunction = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/** Where the build puts the store's validators as standalone code (dist/prepared/ of the package). */
const PREPARED = fileURLToPath(new URL('../../dist/prepared/store-schemas.js', import.meta.url));

// The schemas as they are now: a prepared module made from others is not used.
const SOURCE = createHash('sha256').update(JSON.stringify(STORE_SCHEMAS)).digest('hex');

/**
 * The store's validators: the build's standalone code when it was made
 * from these very schemas (no ajv at start-up), else compiled now by an ajv
 * with the same options.
 */
export async function storeValidators(): Promise<Record<StoreSchemaName, ValidateFunction>> {
  try {
    const prepared = (await import(pathToFileURL(PREPARED).href)) as Record<string, unknown>;
    if (prepared.source === SOURCE) return prepared as Record<StoreSchemaName, ValidateFunction>;
  } catch {
    // No build yet: compiled below.
  }
  const { Ajv } = await import('ajv');
  const ajv = new Ajv({ inlineRefs: false });
  // Added under their names first: the snapshots refer to the records' schemas by name.
  const names = Object.keys(STORE_SCHEMAS) as StoreSchemaName[];
  for (const name of names) ajv.addSchema(STORE_SCHEMAS[name], name);
  const compiled = {} as Record<StoreSchemaName, ValidateFunction>;
  for (const name of names) compiled[name] = ajv.getSchema(name)!;
  return compiled;
}

/**
 * Build step: writes the store's validators as one ES module of standalone
 * ajv code, with the hash of the schemas it was made from.
 */
export async function prepareStoreValidators(): Promise<void> {
  const [{ Ajv }, { default: standaloneCode }] = await Promise.all([import('ajv'), import('ajv/dist/standalone/index.js')]);
  const ajv = new Ajv({ code: { source: true, esm: true }, inlineRefs: false });
  const names: Record<string, string> = {};
  for (const name of Object.keys(STORE_SCHEMAS) as StoreSchemaName[]) {
    ajv.addSchema(STORE_SCHEMAS[name], name);
    names[name] = name;
  }
  const code = standaloneCode.default(ajv, names).replace(/^"use strict";/, '');
  // ajv's standalone code requires its small runtime helpers even as an ES module.
  const preamble = `import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\nvoid require;\n`;
  await writeFile(PREPARED, `${preamble}${code}\nexport const source = ${JSON.stringify(SOURCE)};\n`);
}
