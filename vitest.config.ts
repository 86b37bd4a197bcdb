import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // .ci/run asks for a JSON report to print CI's closing line from.
    reporters: process.env.VITEST_JSON_REPORT ? ['default', 'json'] : ['default'],
    outputFile: process.env.VITEST_JSON_REPORT ? { json: process.env.VITEST_JSON_REPORT } : undefined,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/heavy/**'],
          // Files share a fork's module cache: importing the app (Fastify, Swagger, TypeBox) once per fork
          // instead of once per file takes the suite's import time from ~180 s to ~35 s. Tests hold no
          // module-level state (each builds its own app and runtime), so sharing modules changes nothing else.
          isolate: false,
        },
      },
      // Timing and memory checks of a whole server under load (wall-clock and RSS goals): not part of
      // `npm test`, which must not depend on timing; `npm run test:heavy` runs them one file at a time.
      {
        extends: true,
        test: {
          name: 'heavy',
          include: process.env.MOCKYARD_HEAVY === '1' ? ['test/heavy/**/*.test.ts'] : [],
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
