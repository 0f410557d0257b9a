import { fileURLToPath } from 'node:url';
import { readFile } from 'node:fs/promises';
import { fillSteps } from '../model/operations.js';
import type { Scenario } from './scenario.js';

/** The catalogue could not be loaded; the message names the file and the entry. */
export class CatalogueError extends Error {
  override name = 'CatalogueError';
}

/** The catalogue's JSON Schema, shipped beside the YAML files. */
export const CATALOGUE_SCHEMA = fileURLToPath(new URL('../../scenarios/catalogue.schema.json', import.meta.url));

/**
 * Reads one catalogue file (its bytes) into its scenarios, without `source`.
 * @throws CatalogueError naming the file (and the entry) when it is not YAML or breaks the schema
 */
export type CatalogueReader = (file: string, bytes: Buffer) => Array<Omit<Scenario, 'source'>>;

/**
 * A reader that parses YAML and checks it against the catalogue schema. The
 * YAML parser and ajv are loaded here, on first need: the shipped catalogue
 * comes prepared from the build, so a plain start-up never loads them.
 */
export async function catalogueReader(): Promise<CatalogueReader> {
  const [{ Ajv }, { parse }] = await Promise.all([import('ajv'), import('yaml')]);
  const schema = JSON.parse(await readFile(CATALOGUE_SCHEMA, 'utf8')) as object;
  // The schema names no operation: the sandbox's list of steps is the one source.
  fillSteps(schema);
  const ajv = new Ajv({ allErrors: true, strict: false });
  ajv.addFormat('regex', { type: 'string', validate: isRegex });
  const check = ajv.compile(schema);
  return (file, bytes) => {
    let parsed: unknown;
    try {
      parsed = parse(bytes.toString('utf8'));
    } catch (error) {
      throw new CatalogueError(`${file}: not YAML: ${(error as Error).message}`);
    }
    if (!check(parsed)) {
      const first = check.errors![0]!;
      const entry = /^\/scenarios\/(\d+)/.exec(first.instancePath);
      const index = entry ? Number(entry[1]) : undefined;
      const named = index === undefined ? '' : ` entry ${index}${nameAt(parsed, index)}`;
      throw new CatalogueError(`${file}:${named} ${first.instancePath || '/'} ${first.message}`);
    }
    return (parsed as { scenarios: Array<Omit<Scenario, 'source'>> }).scenarios;
  };
}

function isRegex(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}

function nameAt(parsed: unknown, index: number): string {
  const name = (parsed as { scenarios?: Array<{ name?: unknown }> }).scenarios?.[index]?.name;
  return typeof name === 'string' ? ` ("${name}")` : '';
}
