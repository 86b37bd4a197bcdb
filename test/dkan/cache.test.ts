// Repeated queries reuse the answer; the SQL exported for the benchmark is the SQL the handler runs.
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { FixtureStore } from '../../src/platform/fixture-store.js';
import { catalogOf } from '../../src/areas/dkan/datasets.js';
import { BENCHMARK_WORKLOAD, benchmarkPath, benchmarkValues, sqlForRequest } from '../../src/areas/dkan/index.js';
import { catalog, query } from './helpers.js';

const { app, stores, config } = await testApp();
const { app: uncached } = await testApp({ dkanCacheSize: 0 });

describe('answers for repeated queries', () => {
  it('are byte-identical to a fresh computation, across both query forms', async () => {
    const value = benchmarkValues(stores.current)[3]!;
    const path = benchmarkPath(value);
    const first = await query(app, path);
    const again = await query(app, path);
    const fresh = await query(uncached, path);
    expect(again.body).toBe(first.body);
    expect(fresh.body).toBe(first.body);
    const specForm = `/datastore/query/${BENCHMARK_WORKLOAD.datasetId}/0?conditions=${encodeURIComponent(JSON.stringify([{ property: 'ndc_description', value, operator: '=' }]))}&sort=nadac_per_unit&limit=100&offset=200`;
    // The rows, count and schema agree; `query` echoes each form as sent (DKAN's Query.php 68).
    const { query: specEcho, ...spec } = (await query(app, specForm)).json();
    const { query: dkanEcho, ...dkan } = first.json();
    expect(spec).toEqual(dkan);
    expect(specEcho.sort).toBe('nadac_per_unit');
    expect(dkanEcho.sorts).toEqual([{ property: 'nadac_per_unit', order: 'asc' }]);
  });

  it('keep answering, from the new database, after watch mode swaps it in', async () => {
    const path = `/datastore/query/${BENCHMARK_WORKLOAD.datasetId}/1?limit=2`;
    const before = await query(app, path);
    stores.swap(FixtureStore.open(config.dataDir, stores.current.generation + 1));
    const after = await query(app, path);
    expect(after.body).toBe(before.body);
    expect((await catalog(app)).length).toBeGreaterThan(0);
  });
});

describe('benchmark workload', () => {
  it('has values that fill the page at offset 200 on the large resource', () => {
    expect(benchmarkValues(stores.current).length).toBeGreaterThanOrEqual(100);
  });

  it('exports the exact SQL the handler runs, giving the same results and count', async () => {
    for (const value of benchmarkValues(stores.current).slice(0, 5)) {
      const path = benchmarkPath(value);
      const body = (await query(app, path)).json() as { results: unknown[]; count: number };
      const plan = sqlForRequest(stores.current, config, path);
      expect(JSON.parse(stores.current.db.prepare(plan.rowsSql).pluck().get(plan.rowsParams) as string)).toEqual(body.results);
      expect(stores.current.db.prepare(plan.countSql).pluck().get(plan.countParams)).toBe(body.count);
      expect(body.results).toHaveLength(BENCHMARK_WORKLOAD.limit);
    }
  });

  it('sorts on any column by walking that column index, never a temporary sort of the whole table', () => {
    const res = catalogOf(stores.current).byDataset.get(BENCHMARK_WORKLOAD.datasetId)![0]!;
    for (const column of res.columns) {
      for (const order of ['asc', 'desc']) {
        const plan = sqlForRequest(stores.current, config, `/datastore/query/${BENCHMARK_WORKLOAD.datasetId}/0?sorts[0][property]=${column.name}&sorts[0][order]=${order}&limit=100&offset=1000`);
        const steps = (stores.current.db.prepare(`EXPLAIN QUERY PLAN ${plan.rowsSql}`).all(plan.rowsParams) as { detail: string }[]).map((s) => s.detail);
        expect(steps.join('\n'), `${column.name} ${order}`).not.toMatch(/TEMP B-TREE/);
      }
    }
  });
});
