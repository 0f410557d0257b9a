#!/usr/bin/env node
// Writes src/model/operation-ids.ts, the operationIds of openapi/payments-api.yaml, before the sources
// are compiled: the document is the one list of operations, and the operation registry
// (src/domain/registry.ts) is checked against it by the compiler. The file is left alone when unchanged.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const root = fileURLToPath(new URL('..', import.meta.url));
const document = parse(readFileSync(`${root}openapi/payments-api.yaml`, 'utf8'));
const ids = Object.values(document.paths).flatMap((item) =>
  ['get', 'put', 'post', 'delete', 'patch'].flatMap((method) => (item[method]?.operationId ? [item[method].operationId] : [])),
);
const lines = [
  '// Written from openapi/payments-api.yaml by scripts/operation-ids.mjs when the project is built: edit the document, not this file.',
  '',
  '/** The operationIds of openapi/payments-api.yaml, in the document\'s order. */',
  'export const OPERATION_IDS = [',
  ...ids.map((id) => `  '${id}',`),
  '] as const;',
  '',
];
const target = `${root}src/model/operation-ids.ts`;
const text = lines.join('\n');
let before = '';
try {
  before = readFileSync(target, 'utf8');
} catch {
  // Not written yet: a fresh clone.
}
if (before !== text) writeFileSync(target, text);
