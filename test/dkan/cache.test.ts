// Repeated queries reuse the answer; planQuery is the SQL the handler runs, and every column sorts through an index.
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { FixtureStore } from '../../src/platform/data/fixture-store.js';
import { catalogOf, type Resource } from '../../src/areas/dkan/datasets.js';
import { sqlForRequest } from '../../bench/dkan-shapes.js';
import { catalog, query } from './helpers.js';

const { app, stores, config } = await testApp();
const { app: uncached } = await testApp({ dkanNoCache: true });

// The largest resource, filtered on a text column and sorted on a numeric one, with values read from its table.
const resource: Resource = catalogOf(stores.current)
  .datasets.flatMap((d) => d.resources)
  .reduce((a, b) => (b.rows > a.rows ? b : a));
const textColumn = resource.columns.find((c) => c.type === 'text')!;
const numberColumn = resource.columns.find((c) => c.type === 'decimal' || c.type === 'integer')!;
/** Text values with at least 100 rows each, most frequent first. */
const fullValues = stores.current.db
  .prepare(
    `SELECT ${textColumn.ident} FROM ${resource.table} GROUP BY 1 HAVING count(*) >= 100 ORDER BY count(*) DESC, 1 LIMIT 5`,
  )
  .pluck()
  .all() as string[];
const base = `/datastore/query/${resource.datasetId}/${resource.index}`;
const filtered = (value: string) =>
  `${base}?conditions[0][property]=${textColumn.name}&conditions[0][value]=${encodeURIComponent(value)}&conditions[0][operator]==&sorts[0][property]=${numberColumn.name}&sorts[0][order]=asc&limit=100&offset=0`;
const planFor = (path: string) => sqlForRequest(stores.current, config, path);

describe('answers for repeated queries', () => {
  it('are byte-identical to a fresh computation, across both query forms', async () => {
    expect(fullValues.length).toBeGreaterThan(0);
    const value = fullValues[0]!;
    const path = filtered(value);
    const first = await query(app, path);
    const again = await query(app, path);
    const fresh = await query(uncached, path);
    expect(again.body).toBe(first.body);
    expect(fresh.body).toBe(first.body);
    const specForm = `${base}?conditions=${encodeURIComponent(JSON.stringify([{ property: textColumn.name, value, operator: '=' }]))}&sort=${numberColumn.name}&limit=100&offset=0`;
    // The echo is the query as sent (DKAN's Query.php), so only the answer itself is the same.
    const { query: _echo, ...answer } = JSON.parse(first.body) as Record<string, unknown>;
    const { query: _other, ...shorthand } = JSON.parse((await query(app, specForm)).body) as Record<string, unknown>;
    expect(shorthand).toEqual(answer);
  });

  it('keep answering, from the new database, after watch mode swaps it in', async () => {
    const path = `${base}?limit=2`;
    const before = await query(app, path);
    stores.swap(FixtureStore.open(config.dataDir, stores.current.generation + 1));
    const after = await query(app, path);
    expect(after.body).toBe(before.body);
    expect((await catalog(app)).length).toBeGreaterThan(0);
  });
});

describe('the query plan', () => {
  it('is the SQL the handler runs, giving the same results and count', async () => {
    for (const value of fullValues) {
      const path = filtered(value);
      const body = (await query(app, path)).json() as { results: unknown[]; count: number };
      const plan = planFor(path);
      expect(JSON.parse(stores.current.db.prepare(plan.rowsSql).pluck().get(plan.rowsParams) as string)).toEqual(
        body.results,
      );
      expect(stores.current.db.prepare(plan.countSql).pluck().get(plan.countParams)).toBe(body.count);
      expect(body.results).toHaveLength(100);
    }
  });

  it('sorts on any column by walking that column index, never a temporary sort of the whole table', () => {
    for (const column of resource.columns) {
      for (const order of ['asc', 'desc']) {
        const plan = planFor(
          `${base}?sorts[0][property]=${column.name}&sorts[0][order]=${order}&limit=100&offset=1000`,
        );
        const steps = (
          stores.current.db.prepare(`EXPLAIN QUERY PLAN ${plan.rowsSql}`).all(plan.rowsParams) as { detail: string }[]
        ).map((s) => s.detail);
        expect(steps.join('\n'), `${column.name} ${order}`).not.toMatch(/TEMP B-TREE/);
      }
    }
  });
});
