import type { TestProject } from 'vitest/node';
import { HAPROXY_TAG, haproxyTestsSkipped, skippedHaproxyTestsLine } from '../support/haproxy-binary.js';
import { POSTGRES_TAG, postgresTestsSkipped, skippedPostgresTestsLine } from '../support/postgres-binaries.js';
import { BROWSER_TAG, browserTestsSkipped, skippedBrowserTestsLine } from './chromium.js';

/**
 * vitest's global setup, for its teardown: when the browser tests of this
 * run were skipped for want of Chromium, its PostgreSQL tests for want of
 * PostgreSQL, or its HAProxy tests for want of HAProxy, the run ends with one
 * line for each saying which and how to run them, so that a passing run
 * without them is never mistaken for one with them. A teardown rather than a
 * reporter, so that it prints whichever reporter the command line picks,
 * after its summary.
 */
export default function setup(project: TestProject): () => void {
  return () => {
    /** The files of this run whose every test was skipped and at least one carries `tag`, relative to the repository. */
    const skippedWith = (tag: string): string[] =>
      project.vitest.state
        .getTestModules()
        .filter((module) => module.state() === 'skipped' && [...module.children.allTests()].some((test) => test.tags.includes(tag)))
        .map((module) => module.relativeModuleId.split('\\').join('/'));
    /** The files of this run with tests that carry `tag`, every one of them skipped: a file may hold others beside them (test/examples/deploy.test.ts). */
    const taggedSkippedIn = (tag: string): string[] =>
      project.vitest.state
        .getTestModules()
        .filter((module) => {
          const tagged = [...module.children.allTests()].filter((test) => test.tags.includes(tag));
          return tagged.length > 0 && tagged.every((test) => test.result().state === 'skipped');
        })
        .map((module) => module.relativeModuleId.split('\\').join('/'));
    // A run that asked for no such test has none to mention.
    if (browserTestsSkipped()) {
      const skipped = skippedWith(BROWSER_TAG);
      if (skipped.length > 0) console.log(skippedBrowserTestsLine(skipped));
    }
    if (postgresTestsSkipped()) {
      const skipped = skippedWith(POSTGRES_TAG);
      if (skipped.length > 0) console.log(skippedPostgresTestsLine(skipped));
    }
    if (haproxyTestsSkipped()) {
      const skipped = taggedSkippedIn(HAPROXY_TAG);
      if (skipped.length > 0) console.log(skippedHaproxyTestsLine(skipped));
    }
  };
}
