import { defineConfig } from 'vitest/config';

/**
 * Two projects. `unit`: test/unit/, which mirrors src/; its tests open no
 * socket and start no process, and test/support/no-sockets.ts fails any that
 * does. `e2e`: every other test, for what only a real listener, process,
 * browser or install shows. `npm test` runs both; `npm run test:unit` the first.
 */
export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          setupFiles: ['test/support/no-sockets.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/**/*.test.ts'],
          exclude: ['test/unit/**', '**/node_modules/**'],
        },
      },
    ],
  },
});
