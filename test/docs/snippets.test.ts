import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The TypeScript a user copies from the README and docs/testing.md compiles
 * under `strict`, against the package's own sources (`payments-sandbox` and
 * `payments-sandbox/testing` mapped to src/). Each ```ts block is a module of
 * its own; the names the prose leaves to the reader (a receiver's URL, a
 * paymentReference) are declared for it. In memory: no file written, no
 * process, no socket.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOCUMENTS = ['README.md', 'docs/testing.md'];
/** Names a snippet uses that the prose around it supplies. */
const PROSE = 'declare const receiverUrl: string;\ndeclare const paymentReference: string;\n';

interface Snippet {
  name: string;
  text: string;
}

function snippets(): Snippet[] {
  return DOCUMENTS.flatMap((document) => {
    const text = readFileSync(join(ROOT, document), 'utf8');
    return [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match, index) => {
      const line = text.slice(0, match.index).split('\n').length;
      return { name: `${document.replace(/\W/g, '-')}-${index}-line-${line}.ts`, text: `${match[1]}\nexport {};\n${PROSE}` };
    });
  });
}

function diagnostics(found: Snippet[]): string[] {
  const folder = join(ROOT, 'test', 'docs', 'snippets');
  const files = new Map(found.map((snippet) => [join(folder, snippet.name), snippet.text]));
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ['node'],
    baseUrl: ROOT,
    paths: { 'payments-sandbox': ['src/index.ts'], 'payments-sandbox/testing': ['src/testing/index.ts'] },
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (path) => files.has(path) || fileExists.call(host, path);
  host.readFile = (path) => files.get(path) ?? readFile.call(host, path);
  host.getSourceFile = (path, language, ...rest) => {
    const text = files.get(path);
    return text === undefined ? getSourceFile.call(host, path, language, ...rest) : ts.createSourceFile(path, text, language);
  };
  const program = ts.createProgram([...files.keys()], options, host);
  // The snippets' own diagnostics only: the sources they import are checked by the build.
  return [...files.keys()].flatMap((path) => {
    const source = program.getSourceFile(path)!;
    return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((diagnostic) => {
      const { line } = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      return `${path.slice(folder.length + 1)}:${line + 1}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    });
  });
}

describe('the TypeScript snippets of the docs', () => {
  it('are there to check', () => {
    expect(snippets().length).toBeGreaterThanOrEqual(7);
  });

  it('type-check under strict against the package; a key pair used without its check would not', { timeout: 60_000 }, () => {
    // One program for both: building it is what takes the time.
    const careless = "import { connectToSandbox } from 'payments-sandbox/testing';\nconst { keyPair } = connectToSandbox();\nkeyPair.publicKey;\nexport {};\n";
    const found = diagnostics([...snippets(), { name: 'careless.ts', text: careless }]);
    expect(found.filter((line) => !line.startsWith('careless.ts'))).toEqual([]);
    expect(found.join('\n')).toMatch(/^careless\.ts:3: 'keyPair' is possibly 'undefined'/m);
  });
});
