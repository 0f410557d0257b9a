import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { HttpOperation } from './http-shapes.js';
import type { RequestPlan, Validators } from './request-plan.js';

/** Where the build puts what it prepares from the YAML files (dist/prepared/ of the package). */
export const PREPARED_FOLDER = fileURLToPath(new URL('../../dist/prepared/', import.meta.url));

/** SHA-256 (hex) of a document's bytes. */
export const sourceHash = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** The name the prepared files of a document go by: its file name without extension (`payments-api`). */
export const preparedName = (file: string): string => basename(file, extname(file));

/**
 * A document's prepared copy: prism's operations and the plans, as JSON, and
 * which validator modules lie beside it. The operations come without their
 * documented responses, most of the document's bytes, which serving never
 * reads: they lie in a file of their own (readPreparedResponses).
 */
export interface PreparedDocument {
  /** SHA-256 of the document it was prepared from */
  source: string;
  /** without `responses` */
  operations: HttpOperation[];
  plans: RequestPlan[];
  /** the ajv kinds (src/validation/ajv.ts) that have a module of standalone validators */
  modules: string[];
}

/** The JSON file of a document's prepared copy. */
export const preparedJson = (document: string, folder = PREPARED_FOLDER): string => join(folder, `${preparedName(document)}.json`);

/** The JSON file of the documented responses of a document's operations, `{source, responses}`, one entry per operation in order. */
export const preparedResponsesJson = (document: string, folder = PREPARED_FOLDER): string => join(folder, `${preparedName(document)}.responses.json`);

/**
 * The documented responses of the operations of a prepared copy, in the
 * order of its operations: read only to check a response (synchronously, as
 * that check is), never to serve.
 * @param source SHA-256 of the document the prepared copy was made from
 * @throws Error when the file is missing or was made from another document (a broken build)
 */
export function readPreparedResponses(document: string, source: string): HttpOperation['responses'][] {
  const file = preparedResponsesJson(document);
  const prepared = JSON.parse(readFileSync(file, 'utf8')) as { source: string; responses: HttpOperation['responses'][] };
  if (prepared.source !== source) throw new Error(`${file} was prepared from another version of ${document}: run npm run build`);
  return prepared.responses;
}

/** The module of a document's standalone validators of one ajv kind. */
export const preparedModule = (document: string, kind: string, folder = PREPARED_FOLDER): string => join(folder, `${preparedName(document)}.${kind}.js`);

/**
 * The prepared copy of a document, when the build made one from these very
 * bytes; undefined when there is none, or the document changed since (then
 * it is parsed at start-up, as before the build).
 */
export async function readPrepared(document: string, bytes: Buffer): Promise<(PreparedDocument & { validators: Validators }) | undefined> {
  let prepared: PreparedDocument;
  try {
    prepared = JSON.parse(await readFile(preparedJson(document), 'utf8')) as PreparedDocument;
  } catch {
    return undefined;
  }
  if (prepared.source !== sourceHash(bytes)) return undefined;
  const modules = await Promise.all(prepared.modules.map((kind) => import(pathToFileURL(preparedModule(document, kind)).href) as Promise<Validators>));
  return { ...prepared, validators: Object.assign({}, ...modules) as Validators };
}
