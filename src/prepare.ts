// Build step (`npm run build` runs it after tsc): prepares what does not
// change at run time from the YAML files, which stay the only source. It
// fails the build when the prepared validators and prism disagree.
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { prepareRenderer } from './pages/reference.js';
import { prepareCatalogue } from './scenarios/prepared-catalogue.js';
import { prepareStoreValidators } from './store/validators.js';
import { disagreements } from './validation/agreement.js';
import { parseDocument, validatorModules } from './validation/document.js';
import { loadOperations } from './validation/operations.js';
import { PREPARED_FOLDER, preparedJson, preparedModule, preparedResponsesJson } from './validation/prepared.js';

const DOCUMENTS = ['payments-api.yaml', 'control-api.yaml'].map((name) => fileURLToPath(new URL(`../openapi/${name}`, import.meta.url)));

await mkdir(PREPARED_FOLDER, { recursive: true });
for (const document of DOCUMENTS) {
  const parsed = await parseDocument(document);
  const modules = validatorModules(parsed, '../validation/formats.js');
  for (const [kind, code] of Object.entries(modules)) await writeFile(preparedModule(document, kind), code);
  // Serving reads no response of the document: they go to a file of their own, read only to check an answer.
  const served = parsed.operations.map(({ responses: _responses, ...operation }) => operation);
  await writeFile(preparedJson(document), JSON.stringify({ source: parsed.source, operations: served, plans: parsed.plans, modules: Object.keys(modules) }));
  await writeFile(preparedResponsesJson(document), JSON.stringify({ source: parsed.source, responses: parsed.operations.map((operation) => operation.responses) }));
  const found = disagreements(await loadOperations(document));
  if (found.length > 0) {
    for (const { operation, request, compiled, prism } of found.slice(0, 5)) {
      console.error(`${operation} ${JSON.stringify(request)}\n  prepared: ${JSON.stringify(compiled)}\n  prism:    ${JSON.stringify(prism)}`);
    }
    console.error(`the prepared validators of ${document} disagree with prism on ${found.length} requests`);
    process.exit(1);
  }
}
await prepareCatalogue();
await prepareStoreValidators();
await prepareRenderer();
