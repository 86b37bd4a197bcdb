// The rank path (src/areas/dkan/ranked.ts) must answer exactly as the plain SQL of the same query:
// every shape of the benchmark's mix, plus the edges (NULLs, mixed case, CSV, rowIds, keys=false).
import { describe, expect, it } from 'vitest';
import { catalogOf } from '../../src/areas/dkan/datasets.js';
import { parseQueryString, readQuery } from '../../src/areas/dkan/parse.js';
import { planQuery } from '../../src/areas/dkan/sql.js';
import { rankedResource, unsupported } from '../../src/areas/dkan/ranked.js';
import { dkanShapes, resourceRef, sqlForRequest } from '../../bench/dkan-shapes.js';
import { testApp } from '../helpers/app.js';

const { app, store, config } = await testApp({ dkanNoCache: true });
const resources = catalogOf(store).datasets.flatMap((d) => d.resources);

/** What the plain SQL path gives for a query: the `results` array and `count`. */
function plain(path: string): { results: unknown; count: number } {
  const plan = sqlForRequest(store, config, path);
  return {
    results: JSON.parse(store.prepare(plan.rowsSql).pluck(true).get(plan.rowsParams) as string),
    count: store.prepare(plan.countSql).pluck(true).get(plan.countParams) as number,
  };
}

describe('DKAN rank path', () => {
  it('has rank arrays for every column of every resource', () => {
    for (const r of resources) expect(rankedResource(store, r)?.columns.size, r.title).toBe(r.columns.length);
  });

  it.each(resources.map((r) => [r.title, r] as const))(
    'answers the query mix on %s exactly as the plain SQL does',
    async (_title, r) => {
      const shapes = dkanShapes(store, resourceRef(store, r.datasetId, r.index), 140, 11);
      for (const shape of shapes) {
        const path = shape.path.replace(/^\/dkan/, '');
        const res = await app.inject(`/dkan${path}`);
        expect(res.statusCode, path).toBe(200);
        const body = res.json<{ results: unknown; count: number }>();
        const want = plain(path);
        expect(body.count, path).toBe(want.count);
        expect(body.results, path).toEqual(want.results);
      }
    },
    // 140 shapes, each also run as plain SQL: seconds on an idle machine, more on a busy CI runner.
    180_000,
  );

  it('agrees on NULLs, empty strings, letter case, CSV, rowIds and keys=false', async () => {
    const r = resources.find((x) => x.columns.some((c) => c.type === 'date'))!;
    const text = r.columns.find((c) => c.type === 'text')!;
    const date = r.columns.find((c) => c.type === 'date')!;
    const value = String(
      store.prepare(`SELECT ${text.ident} FROM ${r.table} WHERE ${text.ident} <> '' LIMIT 1`).pluck().get(),
    );
    const base = `/datastore/query/${r.datasetId}/${r.index}`;
    const cases = [
      `conditions[0][property]=${text.name}&conditions[0][operator]==&conditions[0][value]=${encodeURIComponent(value.toLowerCase())}`,
      `conditions[0][property]=${text.name}&conditions[0][operator]=in&conditions[0][value][0]=${encodeURIComponent(value.toUpperCase())}&conditions[0][value][1]=zz`,
      `conditions[0][property]=${date.name}&conditions[0][operator]=is_empty&sorts[0][property]=${text.name}&sorts[0][order]=desc`,
      `conditions[0][property]=${date.name}&conditions[0][operator]=not_empty&sorts[0][property]=${date.name}&sorts[0][order]=asc&offset=3`,
      `conditions[0][property]=${date.name}&conditions[0][operator]=<>&conditions[0][value]=&rowIds=true&limit=7`,
      `conditions[0][groupOperator]=or&conditions[0][conditions][0][property]=${text.name}&conditions[0][conditions][0][value]=${encodeURIComponent(value)}&conditions[0][conditions][0][operator]==&conditions[0][conditions][1][property]=${date.name}&conditions[0][conditions][1][operator]=is_empty&keys=false`,
      `sorts[0][property]=record_number&sorts[0][order]=desc&limit=5&properties[0]=${text.name}`,
      `sorts[0][property]=${text.name}&sorts[0][order]=asc&sorts[1][property]=record_number&sorts[1][order]=desc&limit=20`,
    ];
    for (const qs of cases) {
      const json = (await app.inject(`/dkan${base}?${qs}`)).json<{ results: unknown; count: number }>();
      const want = plain(`${base}?${qs}`);
      expect({ results: json.results, count: json.count }, qs).toEqual(want);
    }
    const read = (qs: string) =>
      readQuery(parseQueryString(qs), {
        resource: r,
        byId: () => undefined,
        maxLimit: config.dkanMaxLimit,
        download: false,
      });
    expect(unsupported(read(`${cases[2]}&format=csv`), rankedResource(store, r)!)).toBeNull();
    const csv = await app.inject(`/dkan${base}?${cases[2]}&format=csv&limit=50`);
    const plan = planQuery(read(`${cases[2]}&format=csv&limit=50`));
    const rows = store.prepare(plan.rowsSql).raw(true).all(plan.rowsParams) as unknown[][];
    expect(csv.body.trimEnd().split('\n').length).toBe(rows.length + 1);
  });
});
