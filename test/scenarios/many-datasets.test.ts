// Scenarios of thousands of DKAN datasets: built in time linear in their number, each dataset served as a lone one is.
import { rm } from 'node:fs/promises';
import { describe, expect, it, onTestFinished } from 'vitest';
import { buildScenarioInTurns } from '../../src/scenarios/build.js';
import { testApp } from '../helpers/app.js';
import { inScenario, putScenario } from './helpers.js';

const WORDS = ['alpha', 'beta', 'gamma'];

/** n datasets of one resource of three rows: an integer and a text column (so an FTS5 table too). */
const manyDatasets = (n: number) => ({
  dkan: {
    datasets: Array.from({ length: n }, (_, i) => ({
      id: `d${i}`,
      resources: [{ rows: WORDS.map((word, k) => ({ n: i * 10 + k, name: `${word} ${i}` })) }],
    })),
  },
});

/** CPU time (user and system, ms) of building n datasets the way the builder's process does. */
async function buildCpuMs(n: number): Promise<number> {
  const start = process.cpuUsage();
  const built = await buildScenarioInTurns('many', manyDatasets(n));
  const used = process.cpuUsage(start);
  await rm(built.dir, { recursive: true, force: true });
  return (used.user + used.system) / 1000;
}

describe('a scenario of many DKAN datasets', () => {
  it('builds in time linear in the number of datasets', { timeout: 120_000 }, async () => {
    // CPU time, not wall-clock time: other processes on a busy machine do not count. Four times the datasets
    // took 22 times as long before (each CREATE paid for every object and statement made before it); linear
    // is 4, and what is left over comes from garbage collection's timing.
    await buildCpuMs(100);
    const small = await buildCpuMs(500);
    const large = await buildCpuMs(2000);
    expect(large / small, `500 datasets: ${small.toFixed(0)} ms, 2,000: ${large.toFixed(0)} ms`).toBeLessThan(8);
  });

  it('serves the first, a middle and the last of 300 datasets, whose tables were set aside while built', async () => {
    const { app } = await testApp();
    onTestFinished(() => app.close());
    await putScenario(app, 'many', manyDatasets(300));
    for (const i of [0, 137, 299]) {
      const query = async (q: string) => {
        const res = await app.inject({ url: `/dkan/datastore/query/d${i}/0?${q}`, headers: inScenario('many') });
        expect(res.statusCode, res.body).toBe(200);
        return (res.json() as { results: { n: string; name: string }[] }).results.map((r) => r.n);
      };
      const n = (k: number) => String(i * 10 + k);
      // A sort (the column's ranks), LIKE (its LIKE texts), match (the FTS5 table) and an equality (its index).
      expect(await query('sorts[0][property]=n&sorts[0][order]=desc')).toEqual([n(2), n(1), n(0)]);
      const like = `conditions[0][property]=name&conditions[0][value]=${encodeURIComponent(`BETA ${i}%`)}&conditions[0][operator]=like`;
      expect(await query(like)).toEqual([n(1)]);
      expect(
        await query('conditions[0][property]=name&conditions[0][value]=gamma&conditions[0][operator]=match'),
      ).toEqual([n(2)]);
      expect(await query(`conditions[0][property]=n&conditions[0][value]=${n(0)}`)).toEqual([n(0)]);
    }
  });
});
