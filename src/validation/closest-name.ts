import { createRequire } from 'node:module';

// leven is required on the first refusal that names a field: a start loads none of it.
let leven: ((a: string, b: string) => number) | undefined;
const distanceOf = (a: string, b: string): number => (leven ??= createRequire(import.meta.url)('leven') as (a: string, b: string) => number)(a, b);

/**
 * The name among `candidates` closest to `name`, when it is close enough to
 * be a typo of it: at most a third of its letters apart (at least 1, at most
 * 3 edits), or the same letters in another case. For "did you mean ...?".
 * @returns the candidate, or undefined when none is that close
 */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.min(3, Math.max(1, Math.floor(name.length / 3)));
  for (const candidate of candidates) {
    if (candidate === name) continue;
    const distance = candidate.toLowerCase() === name.toLowerCase() ? 0 : distanceOf(name, candidate);
    if (distance <= bestDistance && (best === undefined || distance < bestDistance)) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * The property names a JSON Schema (dereferenced, as prism parses it) allows
 * at a path of a document: `steps.0.expect` walks `properties` and `items`,
 * and gathers the names of `allOf`, `oneOf` and `anyOf` branches.
 * @returns the names, empty when the path leads nowhere the schema describes
 */
export function propertyNamesAt(schema: unknown, path: readonly string[]): string[] {
  let here: unknown[] = [schema];
  for (const segment of path) {
    here = here.flatMap(branches).flatMap((node) => {
      const { properties, items } = node as { properties?: Record<string, unknown>; items?: unknown };
      if (/^\d+$/.test(segment) && items !== undefined) return [items];
      return properties && Object.hasOwn(properties, segment) ? [properties[segment]] : [];
    });
  }
  return [...new Set(here.flatMap(branches).flatMap((node) => Object.keys((node as { properties?: object }).properties ?? {})))];
}

// A schema and the branches it combines, flattened.
function branches(schema: unknown): object[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const { allOf, oneOf, anyOf } = schema as { allOf?: unknown[]; oneOf?: unknown[]; anyOf?: unknown[] };
  return [schema, ...[...(allOf ?? []), ...(oneOf ?? []), ...(anyOf ?? [])].flatMap(branches)];
}
