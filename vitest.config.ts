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
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, 'test/heavy/**'] },
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
