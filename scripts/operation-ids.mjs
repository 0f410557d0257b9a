#!/usr/bin/env node
// Writes src/model/operation-ids.ts, the operationIds of openapi/payments-api.yaml and of
// openapi/control-api.yaml, before the sources are compiled: each document is the one list of its
// operations, and each registry (src/domain/registry.ts, src/control/registry.ts) is checked against
// it by the compiler. The file is left alone when unchanged.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const root = fileURLToPath(new URL('..', import.meta.url));
const idsOf = (file) => {
  const document = parse(readFileSync(`${root}openapi/${file}`, 'utf8'));
  return Object.values(document.paths).flatMap((item) =>
    ['get', 'put', 'post', 'delete', 'patch'].flatMap((method) => (item[method]?.operationId ? [item[method].operationId] : [])),
  );
};
const list = (name, file, ids) => [
  `/** The operationIds of openapi/${file}, in the document's order. */`,
  `export const ${name} = [`,
  ...ids.map((id) => `  '${id}',`),
  '] as const;',
  '',
];
const lines = [
  '// Written from openapi/payments-api.yaml and openapi/control-api.yaml by scripts/operation-ids.mjs when the project is built: edit the documents, not this file.',
  '',
  ...list('OPERATION_IDS', 'payments-api.yaml', idsOf('payments-api.yaml')),
  ...list('CONTROL_OPERATION_IDS', 'control-api.yaml', idsOf('control-api.yaml')),
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
