import { readFile } from 'node:fs/promises';
import { API_BASE, CONTROL_BASE } from '../model/bases.js';
import { STEPS, STEPS_MARKER } from '../model/operations.js';

/** The OpenAPI documents the control API serves, by name: the files shipped in openapi/. */
export interface ServedDocuments {
  'payments-api': string;
  'control-api': string;
}

/** Where each document's API lives under the sandbox's base URL. */
const MOUNTS: Record<keyof ServedDocuments, string> = { 'payments-api': API_BASE, 'control-api': CONTROL_BASE };

/**
 * The paths under the control base that serve the documents, which ask for
 * no control token: they are the shipped files, and the API reference and
 * tools importing them must read them without one (control-api.yaml, "Access").
 */
export const DOCUMENT_PATHS: readonly string[] = Object.keys(MOUNTS).flatMap((name) => [`/openapi/${name}.yaml`, `/openapi/${name}.json`]);

/**
 * GET /__sandbox/openapi/{document} (control-api.yaml, getApiDocument): a
 * shipped document as YAML (comments and order kept) or JSON, with
 * `servers` naming this sandbox, so that a tool importing it from the
 * running sandbox calls the sandbox. The YAML parser is loaded on first
 * use, and each answer is kept per base URL.
 * @param publicUrl the base URL links are built on (`--public-url`, or the listening address)
 * @returns for a name the document lists (`payments-api.yaml`...), the media type and the text
 */
export function documentReader(files: ServedDocuments, publicUrl: () => string): (name: string) => Promise<{ type: string; text: string }> {
  const answers = new Map<string, { type: string; text: string }>();
  return async (name) => {
    const base = publicUrl();
    const key = `${name} ${base}`;
    const known = answers.get(key);
    if (known) return known;
    const [document, format] = name.split('.') as [keyof ServedDocuments, 'yaml' | 'json'];
    const { parseDocument, visit } = await import('yaml');
    const parsed = parseDocument(await readFile(files[document], 'utf8'));
    // The document names no operation itself: the served copy lists the sandbox's steps (src/model/operations.ts, STEPS).
    visit(parsed, {
      Map: (_key, node) => {
        if (node.get(STEPS_MARKER) === 'steps') node.set('enum', parsed.createNode([...STEPS]));
      },
    });
    parsed.set('servers', [{ url: `${base}${MOUNTS[document]}`, description: 'this sandbox' }]);
    const answer = format === 'json'
      ? { type: 'application/json; charset=utf-8', text: JSON.stringify(parsed.toJS(), null, 2) }
      : { type: 'application/yaml; charset=utf-8', text: parsed.toString() };
    answers.set(key, answer);
    return answer;
  };
}
