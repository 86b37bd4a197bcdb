// Repeated queries reuse the answer; the SQL exported for the benchmark is the SQL the handler runs.
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { BENCHMARK_WORKLOAD, benchmarkPath, benchmarkValues, sqlForRequest } from '../../src/areas/dkan/index.js';
import { catalog, query } from './helpers.js';

const { app, store, config } = await testApp();
const { app: uncached } = await testApp({ dkanCacheSize: 0 });

describe('answers for repeated queries', () => {
  it('are byte-identical to a fresh computation, across both query forms', async () => {
    const value = benchmarkValues(store)[3]!;
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
    store.swap();
    const after = await query(app, path);
    expect(after.body).toBe(before.body);
    expect((await catalog(app)).length).toBeGreaterThan(0);
  });
});

describe('benchmark workload', () => {
  it('has values that fill the page at offset 200 on the large resource', () => {
    expect(benchmarkValues(store).length).toBeGreaterThanOrEqual(100);
  });

  it('exports the exact SQL the handler runs, giving the same results and count', async () => {
    for (const value of benchmarkValues(store).slice(0, 5)) {
      const path = benchmarkPath(value);
      const body = (await query(app, path)).json() as { results: unknown[]; count: number };
      const plan = sqlForRequest(store, config, path);
      expect(JSON.parse(store.db.prepare(plan.rowsSql).pluck().get(plan.rowsParams) as string)).toEqual(body.results);
      expect(store.db.prepare(plan.countSql).pluck().get(plan.countParams)).toBe(body.count);
      expect(body.results).toHaveLength(BENCHMARK_WORKLOAD.limit);
    }
  });

  it('pages through an index on (filter column, sort column), never a temporary sort', () => {
    const plan = sqlForRequest(store, config, benchmarkPath(benchmarkValues(store)[0]!));
    const steps = (store.db.prepare(`EXPLAIN QUERY PLAN ${plan.rowsSql}`).all(plan.rowsParams) as { detail: string }[]).map((s) => s.detail);
    expect(steps.join('\n')).toMatch(/USING INDEX .*ndc_description=\?/);
    expect(steps.join('\n')).not.toMatch(/TEMP B-TREE/);
  });
});
