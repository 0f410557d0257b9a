import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CatalogueError, catalogueReader, type CatalogueReader } from './catalogue-file.js';
import { readPreparedCatalogue } from './prepared-catalogue.js';
import type { Scenario } from './scenario.js';

export { CatalogueError } from './catalogue-file.js';

/** The folder of the shipped catalogue (scenarios/ at the package root). */
export const SHIPPED_SCENARIOS = fileURLToPath(new URL('../../scenarios/', import.meta.url));

/**
 * Loads every `*.yaml` / `*.yml` file of the given folders, in folder order
 * and then by file name, and checks each against the catalogue schema. The
 * shipped files come from the build's prepared copy when it was made from
 * the same bytes (src/scenarios/prepared-catalogue.ts); any other file is
 * read and checked now.
 * @returns the scenarios in the order they are tried.
 * @throws CatalogueError naming the file (and the entry) that is wrong, or a
 *   name that two scenarios share.
 */
export async function loadCatalogue(folders: string[] = [SHIPPED_SCENARIOS]): Promise<Scenario[]> {
  const prepared = await readPreparedCatalogue();
  let reader: CatalogueReader | undefined;
  const scenarios: Scenario[] = [];
  for (const folder of folders) {
    const files = (await readdir(folder)).filter((name) => /\.ya?ml$/.test(name)).sort();
    for (const name of files) {
      const file = join(folder, name);
      const bytes = await readFile(file);
      let entries = resolve(folder) === resolve(SHIPPED_SCENARIOS) ? prepared?.(name, bytes) : undefined;
      if (!entries) {
        reader ??= await catalogueReader();
        entries = reader(file, bytes);
      }
      for (const scenario of entries) {
        const twin = scenarios.find((known) => known.name === scenario.name);
        if (twin) throw new CatalogueError(`${file}: scenario "${scenario.name}" is already defined in ${twin.source}`);
        scenarios.push({ ...scenario, source: file });
      }
    }
  }
  return scenarios;
}
