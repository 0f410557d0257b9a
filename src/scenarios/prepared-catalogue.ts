import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Scenario } from './scenario.js';
import { catalogueReader } from './catalogue-file.js';

/** The build's copy of the shipped catalogue (dist/prepared/catalogue.json). */
const PREPARED_CATALOGUE = fileURLToPath(new URL('../../dist/prepared/catalogue.json', import.meta.url));
const SHIPPED = fileURLToPath(new URL('../../scenarios/', import.meta.url));

/** Per shipped file name: the SHA-256 of the bytes it was read from, and its checked scenarios. */
type PreparedCatalogue = Record<string, { source: string; scenarios: Array<Omit<Scenario, 'source'>> }>;

const hash = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/**
 * A lookup of the shipped files in the build's prepared copy: the scenarios
 * of a file when they were read from these very bytes, else undefined (the
 * file is then read and checked at start-up). Undefined when there is no
 * prepared copy at all.
 */
export async function readPreparedCatalogue(): Promise<((name: string, bytes: Buffer) => Array<Omit<Scenario, 'source'>> | undefined) | undefined> {
  let prepared: PreparedCatalogue;
  try {
    prepared = JSON.parse(await readFile(PREPARED_CATALOGUE, 'utf8')) as PreparedCatalogue;
  } catch {
    return undefined;
  }
  return (name, bytes) => {
    const entry = prepared[name];
    return entry && entry.source === hash(bytes) ? entry.scenarios : undefined;
  };
}

/**
 * Build step: reads and checks every shipped catalogue file, as start-up
 * would, and writes the prepared copy.
 * @throws CatalogueError for a file that is wrong: the build fails with it
 */
export async function prepareCatalogue(): Promise<void> {
  const read = await catalogueReader();
  const prepared: PreparedCatalogue = {};
  for (const name of (await readdir(SHIPPED)).filter((entry) => /\.ya?ml$/.test(entry)).sort()) {
    const bytes = await readFile(join(SHIPPED, name));
    prepared[name] = { source: hash(bytes), scenarios: read(join(SHIPPED, name), bytes) };
  }
  await mkdir(dirname(PREPARED_CATALOGUE), { recursive: true });
  await writeFile(PREPARED_CATALOGUE, JSON.stringify(prepared));
}
