// A scenario of hundreds of DKAN datasets, built a resource at a time: each served as a lone one is.
import { describe, expect, it, onTestFinished } from 'vitest';
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

describe('a scenario of many DKAN datasets', () => {
  it('serves the first, a middle and the last of 300 datasets', async () => {
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
