import { readFile } from 'node:fs/promises';
import { bodySchema, describe } from '../validation/check-request.js';
import { operationId, requestViolations, type HttpOperation } from '../validation/operations.js';
import { FixturesError, parseFixturesText, type FixturesDocument } from './fixtures.js';
import { SnapshotError, type KnownStates, type SnapshotDocument } from './known-states.js';
import type { SnapshotRecords } from '../store/store.js';

/**
 * A `--snapshot` or `--fixtures` file the sandbox could not load at start:
 * one line naming the file, what is wrong and where; nothing was changed.
 */
export class KnownStateError extends Error {
  override name = 'KnownStateError';
}

/** The start-up's known state: a snapshot, then fixtures files in order (README, "Known states"). */
export interface StartFiles {
  snapshot?: string;
  fixtures?: readonly string[];
}

/**
 * Loads the start-up's snapshot, then each fixtures file, each checked
 * against the control API's document as the same body over HTTP would be
 * (putSnapshot, loadFixtures); then keeps the state as the baseline a reset
 * returns to. A fixtures file found loaded already (a store file that holds
 * its result) is reported through `note`, not loaded twice.
 * @throws KnownStateError naming the file and the step or field; the state is as it was before that file
 */
export async function loadStartFiles(states: KnownStates, operations: HttpOperation[], files: StartFiles, note: (line: string) => void): Promise<void> {
  // What the store file held from earlier runs is no part of the baseline (docs/decisions.md#d85-reset-returns-to-the-start-files).
  const start = states.take();
  const documents: FixturesDocument[] = [];
  if (files.snapshot !== undefined) {
    const path = files.snapshot;
    let parsed: unknown;
    try {
      parsed = JSON.parse(await text(path, '--snapshot')) as unknown;
    } catch (error) {
      if (error instanceof KnownStateError) throw error;
      throw new KnownStateError(`--snapshot ${path} is not JSON (${(error as Error).message}): give a snapshot taken with GET /__sandbox/snapshot`);
    }
    const document = checked(operations, 'putSnapshot', parsed, path, '--snapshot');
    try {
      const payments = await states.loadSnapshot(document as SnapshotDocument);
      note(`snapshot ${path} loaded: ${payments} payments`);
    } catch (error) {
      if (error instanceof SnapshotError) throw new KnownStateError(`--snapshot ${path}: ${error.message}`);
      throw error;
    }
  }
  for (const path of files.fixtures ?? []) {
    let parsed: unknown;
    try {
      parsed = await parseFixturesText(await text(path, '--fixtures'));
    } catch (error) {
      if (error instanceof FixturesError) throw new KnownStateError(`--fixtures ${path}: ${error.message}`);
      throw error;
    }
    const document = checked(operations, 'loadFixtures', parsed, path, '--fixtures') as FixturesDocument;
    documents.push(document);
    try {
      const result = await states.loadFixtures(document);
      note(result.loaded ? `fixtures ${path} loaded: ${result.steps.length} steps` : `fixtures ${path}: ${result.message}`);
    } catch (error) {
      if (error instanceof FixturesError) throw new KnownStateError(`--fixtures ${path}: ${error.message}${error.step?.field ? ` (at ${error.step.field})` : ''}`);
      throw error;
    }
  }
  // With neither, there is no baseline: a reset forgets. A snapshot replaced whatever the store held, so the state now is the start files' own.
  if (files.snapshot !== undefined || (documents.length > 0 && !holdsRecords(start.records))) states.keepBaseline();
  else if (documents.length > 0) states.keepBaselineOf(documents, start.overrides);
}

function holdsRecords(records: SnapshotRecords): boolean {
  return Object.values(records).some((rows: readonly unknown[]) => rows.length > 0);
}

/**
 * Checks a document against the body schema of a control operation.
 * @returns the document, typed by the schema it passed
 * @throws KnownStateError naming each field that breaks it (`steps.0.api.method must be ...`)
 */
export function checked(operations: HttpOperation[], id: 'putSnapshot' | 'loadFixtures', document: unknown, path: string, flag: string): unknown {
  const operation = operations.find((candidate) => operationId(candidate) === id);
  if (!operation) throw new Error(`the control API document has no operation ${id}`);
  const violations = requestViolations(operation, { method: operation.method, path: operation.path, query: {}, headers: { 'content-type': 'application/json' }, body: document });
  if (violations.length === 0) return document;
  // The sentences POST /__sandbox/fixtures and PUT /__sandbox/snapshot answer for the same body.
  throw new KnownStateError(`${flag} ${path}: ${describe(violations, { body: document, schema: bodySchema(operation) })}`);
}

async function text(path: string, flag: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new KnownStateError(`${flag} ${path} cannot be read (${code ?? (error as Error).message}): give the path of a ${flag === '--snapshot' ? 'snapshot (GET /__sandbox/snapshot)' : 'fixtures document'}`);
  }
}
