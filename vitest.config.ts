import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { BROWSER_TAG, CHROMIUM, browserTestsSkipped } from './test/browser/chromium.js';
import { HAPROXY, HAPROXY_TAG, haproxyTestsSkipped } from './test/support/haproxy-binary.js';
import { POSTGRES_TAG, postgresTestsSkipped } from './test/support/postgres-binaries.js';

/**
 * Two projects. `unit`: test/unit/, which mirrors src/; its tests open no
 * socket and start no process, and test/support/no-sockets.ts fails any that
 * does. `e2e`: every other test, for what only a real listener, process,
 * browser or install shows (and `e2e-mocks`, its files that replace a module).
 * `npm test` runs them all; `npm run test:unit` the first.
 * The browser tests need Chromium. A contributor without it still runs every
 * other test, and the run ends saying which browser tests it skipped and how
 * to run them; CI never skips them, so a missing browser fails there.
 * The PostgreSQL tests (tagged `postgres` by describeWithPostgres) need
 * PostgreSQL's programs (Debian's `postgresql`, or PG_BIN), and are skipped
 * and reported the same way, and so are the tests that run HAProxy (tagged
 * `haproxy`: Debian's `haproxy`, or HAPROXY_PATH).
 */
/** End-to-end files that replace a module with vi.mock: they run with their own modules (the `e2e-mocks` project). */
export const MOCKS_MODULES = ['test/store/lock-race.test.ts'];

export default defineConfig({
  test: {
    // One worker per core, and one more. Vitest's default leaves one core to its own process, which idles while the
    // workers run: on a 2-core machine that is one worker, and the whole run in series. Most end-to-end files wait
    // (on a browser, PostgreSQL, a lease, a receiver) more than they compute: a third worker fills that time.
    maxWorkers: Math.max(2, availableParallelism()) + 1,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/docs/**/*.test.ts'],
          setupFiles: ['test/support/no-sockets.ts'],
          // Its files share their worker's modules: the OpenAPI documents, parsed and compiled once per
          // worker instead of once per file, were most of its time. Each file still starts its own sandboxes.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/**/*.test.ts'],
          exclude: ['test/unit/**', 'test/docs/**', '**/node_modules/**', ...MOCKS_MODULES],
          // Its files share their worker's modules too: each file still starts its own sandboxes, processes and browsers, and
          // puts back what it changes of the process (environment, spies); the source's modules, compiled once per worker
          // instead of once per file, were a fifth of the run's CPU (docs/performance.md, "The test run").
          isolate: false,
          // The browser, PostgreSQL and HAProxy tests are end to end: the tags and the closing lines belong to this project alone (one line a run for each).
          tags: [
            {
              name: BROWSER_TAG,
              description: `drives Chromium (${CHROMIUM}); skipped when it is missing, except in CI`,
              skip: browserTestsSkipped(),
            },
            {
              name: POSTGRES_TAG,
              description: 'starts its own PostgreSQL server (initdb, pg_ctl); skipped when PostgreSQL is missing, except in CI',
              skip: postgresTestsSkipped(),
            },
            {
              name: HAPROXY_TAG,
              description: `runs HAProxy (${HAPROXY}); skipped when it is missing, except in CI`,
              skip: haproxyTestsSkipped(),
            },
          ],
          globalSetup: ['test/browser/skipped-notice.ts'],
        },
      },
      {
        extends: true,
        // A file that replaces a module (vi.mock) gets modules of its own, and lends its copy to no other file.
        test: { name: 'e2e-mocks', include: [...MOCKS_MODULES] },
      },
    ],
  },
});
