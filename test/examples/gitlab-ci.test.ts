import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/process.js';

/**
 * examples/ci/gitlab-ci.yml is a pipeline GitLab would accept:
 * gitlab-ci-local (4.73.0, the last release that runs on Node 20) lists its
 * jobs only after checking the file against GitLab's own JSON Schema of
 * .gitlab-ci.yml, which it ships, and after its own checks (a job without a
 * script, a stage the pipeline does not declare). It is run as the command
 * it is, in an empty folder of its own (it writes a .gitlab-ci-local folder
 * beside the file), offline. Broken copies are refused, so the check can
 * fail. What the job's script does is run in test/examples/ci-recipes.test.ts.
 */

const execute = promisify(execFile);
const CLI = join(dirname(createRequire(import.meta.url).resolve('gitlab-ci-local/package.json')), 'dist/index.js');
const PIPELINE = join(ROOT, 'examples/ci/gitlab-ci.yml');
const folders: string[] = [];
afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

/** gitlab-ci-local's verdict on a pipeline's text: whether it listed the jobs, and what it printed. */
async function check(text: string): Promise<{ ok: boolean; output: string }> {
  const folder = await mkdtemp(join(tmpdir(), 'payments-sandbox-gitlab-'));
  folders.push(folder);
  await writeFile(join(folder, '.gitlab-ci.yml'), text);
  // Its own settings live in $HOME; the folder is no git repository, which it notes and works without.
  const env = { PATH: process.env.PATH ?? '', HOME: folder, NO_COLOR: '1' };
  try {
    const { stdout, stderr } = await execute(process.execPath, [CLI, '--list'], { cwd: folder, env, timeout: 60_000 });
    return { ok: true, output: stdout + stderr };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    return { ok: false, output: `${failed.stdout ?? ''}${failed.stderr ?? failed.message}` };
  }
}

describe('examples/ci/gitlab-ci.yml', () => {
  it('passes GitLab\'s schema and gitlab-ci-local\'s checks, with one job', { timeout: 60_000 }, async () => {
    const { ok, output } = await check(await readFile(PIPELINE, 'utf8'));
    expect(output).toMatch(/json schema validated/);
    expect(ok, output).toBe(true);
    expect(output).toMatch(/^integration-tests\s+test\s+on_success/m);
  });

  it('is refused with a value GitLab\'s schema does not allow', { timeout: 60_000 }, async () => {
    const text = await readFile(PIPELINE, 'utf8');
    expect(text).toContain('    when: always\n');
    const { ok, output } = await check(text.replace('    when: always\n', '    when: failure\n'));
    expect(ok).toBe(false);
    expect(output).toMatch(/'when' property must be one of \[on_success, on_failure, always\] \(found failure\) at integration-tests\.artifacts\.when/);
  });

  it('is refused with a stage the pipeline does not declare', { timeout: 60_000 }, async () => {
    const text = await readFile(PIPELINE, 'utf8');
    const { ok, output } = await check(text.replace('  stage: test\n', '  stage: deploy\n'));
    expect(ok).toBe(false);
    expect(output).toMatch(/stage:deploy not found for integration-tests/);
  });

  it('refuses a script at the top level, outside any job', { timeout: 60_000 }, async () => {
    const { ok, output } = await check('image: node:20\nscript:\n  - npx payments-sandbox --in-memory &\n  - npm test\n');
    expect(ok).toBe(false);
    expect(output).toMatch(/script must have script specified/);
  });
});
