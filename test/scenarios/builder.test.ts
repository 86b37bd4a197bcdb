// The scenario builder's time limit: a build shaped to run for minutes is refused and stopped.
import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ScenarioBuilder } from '../../src/scenarios/builder.js';
import { ScenarioError } from '../../src/scenarios/errors.js';

/** Many small DKAN datasets: a body of 65 KB that takes seconds to build (each dataset is a table). */
const manyDatasets = (n: number) =>
  JSON.stringify({
    dkan: {
      datasets: Array.from({ length: n }, (_, i) => ({
        id: `d${i}`,
        resources: [{ columns: ['a', 'b'], rows: [[1, 2]] }],
      })),
    },
  });

describe('ScenarioBuilder', () => {
  it('refuses a build past its limit with a 413, and builds again afterwards in a fresh process', async () => {
    // A limit of 1 ms against a build of seconds: the build cannot win, whatever the machine's speed.
    const strict = new ScenarioBuilder(1);
    try {
      const err = await strict.build('many', manyDatasets(1000)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ScenarioError);
      expect(err).toMatchObject({ statusCode: 413, pointer: null });
      expect((err as Error).message).toMatch(/took longer than 0.001 s and was stopped/);
    } finally {
      strict.close();
    }
    const builder = new ScenarioBuilder();
    try {
      const built = await builder.build('few', manyDatasets(2));
      expect(built.counts.dkan).toMatchObject({ datasets: 2 });
      await rm(built.dir, { recursive: true, force: true });
    } finally {
      builder.close();
    }
  });
});
