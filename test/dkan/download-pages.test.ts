// A DKAN download's later pages: refused as busy, a page waits its turn within its time instead of cutting the body.
import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { largestResource } from '../../bench/dkan-shapes.js';
import { resourceAt, resourceById } from '../../src/areas/dkan/datasets.js';
import { parseQueryString, readQuery } from '../../src/areas/dkan/parse.js';
import { downloadQuery } from '../../src/areas/dkan/queries.js';
import type { QueryPool } from '../../src/platform/data/query-pool.js';
import { WorkBudgetError } from '../../src/platform/data/work-budget-error.js';
import { testApp } from '../helpers/app.js';

const { app, store, config } = await testApp();
const ref = largestResource(store);
const resource = resourceAt(store, ref.datasetId, String(ref.index))!;
// Three pages of 20,000 rows or fewer.
const q = readQuery(parseQueryString('format=csv&limit=45000&sorts[0][property]=record_number&sorts[0][order]=desc'), {
  resource,
  byId: (id) => resourceById(store, id),
  maxLimit: config.dkanMaxLimit,
  download: true,
});

/** The app's executor, with the jobs whose numbers are in `refuse` rejected as `err` instead of run. */
function refusing(refuse: Set<number>, err: () => Error): QueryPool {
  let job = 0;
  return new Proxy(app.queryPool, {
    get(target, key) {
      if (key !== 'runTask') return Reflect.get(target, key);
      return (...args: Parameters<QueryPool['runTask']>) =>
        refuse.has(++job) ? Promise.reject(err()) : target.runTask(...args);
    },
  });
}

describe('a DKAN download', () => {
  const whole = async (pool: QueryPool) => text((await downloadQuery(pool, store, config, q)).body);

  it('is the same whole body when later pages are first refused as busy', async () => {
    const expected = await whole(app.queryPool);
    expect(expected.split('\n').length).toBe(45_000 + 2);
    // Jobs 2 and 3 (the second page, twice) and 5 (the third) are refused: no free process, one slow job too many.
    const busy = refusing(new Set([2, 3, 5]), () => new WorkBudgetError(5000, false, 2));
    expect(await whole(busy)).toBe(expected);
  });

  it('is cut when a later page runs past its time: the query itself failed', async () => {
    const tooLong = refusing(new Set([2]), () => new WorkBudgetError(20_000, true));
    await expect(whole(tooLong)).rejects.toThrow(/ran longer than 20000 ms/);
  });
});
