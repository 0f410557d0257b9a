import { access, constants } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Store } from '../store/store.js';
import { operationId, type HttpOperation } from '../validation/operations.js';
import { json, type ControlRun } from './operation.js';
import { scenarioView } from './views.js';

// The runs about the sandbox itself (openapi/control-api.yaml, tags Health, Documents, Scenarios).

/** GET /health: 200 once the sandbox serves; 503 while it starts or stops, or when the store cannot write (README, "Storage"). */
export const getHealth: ControlRun = (_input, { state, store }) => {
  const now = state();
  const { writable: canWrite, error, snapshotError } = store.health();
  if (now === 'ok' && !canWrite) return json({ status: 'store-unavailable', error }, 503);
  // Writes still work when folds fail; the answer says so without failing the health check.
  return json(now === 'ok' && snapshotError ? { status: now, snapshotError } : { status: now }, now === 'ok' ? 200 : 503);
};

/** GET /ready: the documents, the catalogue and the store each checked. */
export const getReadiness: ControlRun = async (_input, { state, selector, store, dataFile }) => {
  const checks = { documents: true, catalogue: selector.engine.scenarios.length > 0, store: await writable(store, dataFile) };
  const ready = state() === 'ok' && Object.values(checks).every(Boolean);
  return json({ status: ready ? 'ready' : 'not-ready', checks }, ready ? 200 : 503);
};

/** GET /openapi/{document}: a shipped document naming this sandbox as its server (documents.ts). */
export const getApiDocument: ControlRun = async (input, context) => {
  const { type, text } = await context.document(input.params.document!);
  return { status: 200, type, text };
};

/** GET /schemas/{schema}: the JSON Schema of a fixtures document. */
export const getSchema: ControlRun = (_input, { controlOperations }) => ({
  status: 200, type: 'application/json; charset=utf-8', text: JSON.stringify(fixturesSchema(controlOperations), null, 2),
});

/** GET /scenarios: the catalogue's rules. */
export const listScenarios: ControlRun = (_input, { selector }) => json({ scenarios: selector.engine.scenarios.map(scenarioView) });

/**
 * The JSON Schema of a fixtures document: the body schema of POST /fixtures
 * as the control API's document gives it (FixturesDocument), so the file
 * served and the check made never disagree.
 * @throws Error when the document has no such schema (a broken build)
 */
export function fixturesSchema(operations: HttpOperation[]): object {
  const operation = operations.find((candidate) => operationId(candidate) === 'loadFixtures');
  const schema = operation?.request?.body?.contents?.[0]?.schema;
  if (!schema) throw new Error('the control API document has no body schema for loadFixtures');
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', title: 'payments-sandbox fixtures document, version 1', ...schema };
}

async function writable(store: Store, dataFile: string | undefined): Promise<boolean> {
  if (!store.health().writable) return false;
  if (dataFile === undefined) return true;
  try {
    await access(dirname(dataFile), constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
