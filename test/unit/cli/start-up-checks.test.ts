import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dataFolderProblem, fileSystemProblem, scenarioFolderProblem } from '../../../src/cli/start-up-checks.js';

/**
 * The folders the command line names, checked before anything is opened:
 * one line naming the path and the fix, and nothing created
 * (docs/decisions.md#d68-start-up-refusals). A folder this user cannot
 * write to needs another user: test/cli/start-up-refusals.test.ts.
 */

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'payments-sandbox-checks-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('scenarioFolderProblem', () => {
  it('accepts a folder it can read', () => {
    expect(scenarioFolderProblem(dir, { flag: '--scenarios' })).toBeUndefined();
  });

  it('names a missing folder, as given on the command line or in the environment', () => {
    const missing = join(dir, 'nope');
    expect(scenarioFolderProblem(missing, { flag: '--scenarios' })).toBe(
      `--scenarios ${missing}: the scenario folder ${missing} does not exist: create it, or name the folder that holds your scenario files`,
    );
    expect(scenarioFolderProblem(missing, { variable: 'SANDBOX_SCENARIOS' })).toMatch(new RegExp(`^SANDBOX_SCENARIOS=${missing}: `));
  });

  it('names a file given for a folder, and the folder that holds it', () => {
    const file = join(dir, 'team.yaml');
    writeFileSync(file, '');
    expect(scenarioFolderProblem(file, { flag: '--scenarios' })).toBe(`--scenarios ${file}: ${file} is a file, not a folder: name the folder that holds it (${dir})`);
    expect(scenarioFolderProblem(join(file, 'more'), { flag: '--scenarios' })).toContain('is not a folder (a part of the path is a file)');
  });

  it('creates nothing', () => {
    scenarioFolderProblem(join(dir, 'a', 'b'), { flag: '--scenarios' });
    expect(existsSync(join(dir, 'a'))).toBe(false);
  });
});

describe('dataFolderProblem', () => {
  it('accepts a file, existing or not, in a writable folder', () => {
    expect(dataFolderProblem(join(dir, 'sb.json'), { flag: '--data' })).toBeUndefined();
    writeFileSync(join(dir, 'kept.json'), '{}');
    expect(dataFolderProblem(join(dir, 'kept.json'), { flag: '--data' })).toBeUndefined();
    expect(dataFolderProblem(join(dir, 'payments-sandbox.json'), 'default')).toBeUndefined();
  });

  it('refuses a missing folder with the three ways out, and does not create it', () => {
    const folder = join(dir, 'missing', 'deeper');
    const file = join(folder, 'sb.json');
    expect(dataFolderProblem(file, { flag: '--data' })).toBe(
      `--data ${file}: the folder ${folder} does not exist (it is not created): create it (mkdir -p ${folder}), or choose another store file with --data <file>, or keep no file with --in-memory`,
    );
    expect(dataFolderProblem(file, { variable: 'SANDBOX_DATA' })).toMatch(new RegExp(`^SANDBOX_DATA=${file}: the folder`));
    expect(existsSync(join(dir, 'missing'))).toBe(false);
  });

  it('quotes a folder with spaces in its mkdir', () => {
    const folder = join(dir, "team's data");
    expect(dataFolderProblem(join(folder, 'sb.json'), { flag: '--data' })).toContain(`(mkdir -p '${dir}/team'\\''s data')`);
  });

  it('refuses a folder that is a file, and a store file that is a folder', () => {
    writeFileSync(join(dir, 'plain'), '');
    expect(dataFolderProblem(join(dir, 'plain', 'sb.json'), { flag: '--data' })).toBe(
      `--data ${join(dir, 'plain', 'sb.json')}: ${join(dir, 'plain')} is not a folder: choose another store file with --data <file>, or keep no file with --in-memory`,
    );
    mkdirSync(join(dir, 'store'));
    expect(dataFolderProblem(join(dir, 'store'), { flag: '--data' })).toBe(
      `--data ${join(dir, 'store')}: ${join(dir, 'store')} is a folder: name a file in it (${join(dir, 'store')}/payments-sandbox.json), or keep no file with --in-memory`,
    );
  });

  it('for the default file, speaks of the working directory', () => {
    const gone = join(dir, 'gone');
    expect(dataFolderProblem(join(gone, 'payments-sandbox.json'), 'default')).toBe(
      `the store file is kept in the working directory by default, and ${gone} is not writable by this user (ENOENT): run from a writable folder, choose another store file with --data <file>, or keep no file with --in-memory`,
    );
  });
});

describe('fileSystemProblem', () => {
  it('makes one line of an error of the file system: the operation, the path, the reason and the code', () => {
    const error = Object.assign(new Error("EACCES: permission denied, open '/srv/scenarios/team.yaml'"), { code: 'EACCES', syscall: 'open', path: '/srv/scenarios/team.yaml' });
    expect(fileSystemProblem(error)).toBe('cannot open /srv/scenarios/team.yaml: permission denied (EACCES)');
  });

  it('leaves any other error alone', () => {
    expect(fileSystemProblem(new Error('boom'))).toBeUndefined();
    expect(fileSystemProblem(Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE', port: 4010 }))).toBeUndefined();
    expect(fileSystemProblem(undefined)).toBeUndefined();
  });
});
