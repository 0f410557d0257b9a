import { accessSync, constants } from 'node:fs';
import { isCI } from '../browser/chromium.js';

/**
 * Whether this run can start HAProxy, read by vitest.config.ts (to skip the
 * tests that run it), by the run's end notice and by
 * test/examples/deploy.test.ts, which checks and runs the load balancer of
 * examples/deploy/. As with Chromium and PostgreSQL: a contributor's machine
 * need not have HAProxy, and there those tests are skipped and the run says
 * so; CI must have it (.ci/run installs it), and there a missing one fails them.
 */

/** Where HAProxy is: HAPROXY_PATH, else Debian's package. */
export const HAPROXY = process.env.HAPROXY_PATH ?? '/usr/sbin/haproxy';

/** The vitest tag of the tests that run HAProxy, which skips them when it is missing outside CI. */
export const HAPROXY_TAG = 'haproxy';

/** The command that installs it on Debian or Ubuntu (HAProxy 2.6 on Debian 12). */
export const INSTALL_HAPROXY = 'apt-get install -y --no-install-recommends haproxy';

/** Whether HAPROXY names an executable file. Never throws: a machine without HAProxy is a normal case here. */
export function haproxyFound(): boolean {
  try {
    accessSync(HAPROXY, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Whether the HAProxy tests are skipped in this run: HAProxy is missing and this is not CI. */
export function haproxyTestsSkipped(env: NodeJS.ProcessEnv = process.env): boolean {
  return !haproxyFound() && !isCI(env);
}

/**
 * The one line that ends a run whose HAProxy tests were skipped: which files,
 * why, and how to run them. `files` are paths relative to the repository,
 * such as `test/examples/deploy.test.ts`.
 */
export function skippedHaproxyTestsLine(files: readonly string[]): string {
  const which = files.length === 1 ? files[0] : `{${[...files].sort().join(',')}}`;
  return `Skipped the HAProxy tests, no HAProxy at ${HAPROXY}: ${which}. Run them with Debian's HAProxy installed (${INSTALL_HAPROXY}) or HAPROXY_PATH=/path/to/haproxy npm test`;
}
