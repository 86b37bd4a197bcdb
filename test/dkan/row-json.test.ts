// Whole rows come from JSON written at build time; they must carry exactly what per-column formatting gives.
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { expectContract } from '../helpers/contract.js';
import { OP_INDEX, catalog, type Envelope } from './helpers.js';

const { app } = await testApp();
const datasets = await catalog(app);

describe('whole-row answers', () => {
  it.each(datasets.flatMap((d) => d.resources.map((r) => ({ id: d.id, r }))))(
    'match per-column formatting for $id index $r.index',
    async ({ id, r }) => {
      const base = `/dkan/datastore/query/${id}/${r.index}?limit=300&offset=7`;
      const whole = await app.inject(base);
      expectContract(OP_INDEX, whole);
      // Naming the columns in another order takes the per-column path.
      const reversed = r.columns
        .map((c, i) => `properties[${i}]=${encodeURIComponent(c.name)}`)
        .reverse()
        .join('&');
      const perColumn = await app.inject(`${base}&${reversed}`);
      expect(perColumn.statusCode).toBe(200);
      const a = (whole.json() as Envelope).results as Record<string, string>[];
      const b = (perColumn.json() as Envelope).results as Record<string, string>[];
      expect(a.length).toBeGreaterThan(0);
      expect(a).toEqual(b);
      // Keys keep the resource's column order, as DKAN returns them.
      expect(Object.keys(a[0]!)).toEqual(r.columns.map((c) => c.name));
    },
  );
});
