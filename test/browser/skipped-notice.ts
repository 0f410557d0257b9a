import type { TestProject } from 'vitest/node';
import { BROWSER_TAG, browserTestsSkipped, skippedBrowserTestsLine } from './chromium.js';

/**
 * vitest's global setup, for its teardown: when the browser tests of this
 * run were skipped for want of Chromium, the run ends with one line saying
 * which and how to run them, so that a passing run without them is never
 * mistaken for one with them. A teardown rather than a reporter, so that it
 * prints whichever reporter the command line picks, after its summary.
 */
export default function setup(project: TestProject): () => void {
  return () => {
    if (!browserTestsSkipped()) return;
    const skipped = project.vitest.state
      .getTestModules()
      .filter((module) => module.state() === 'skipped' && [...module.children.allTests()].some((test) => test.tags.includes(BROWSER_TAG)))
      .map((module) => module.relativeModuleId.split('\\').join('/'));
    // A run that asked for no browser test has none to mention.
    if (skipped.length > 0) console.log(skippedBrowserTestsLine(skipped));
  };
}
