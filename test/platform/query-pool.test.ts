// The query pool: answers from worker threads, a time limit with the right kind of error, inline for in-memory stores.
import Database from '../../fixtures/lib/sqlite.js';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config.js';
import { FixtureStore } from '../../src/platform/data/fixture-store.js';
import { QueryPool, WorkBudgetError, type Step } from '../../src/platform/data/query-pool.js';

const store = FixtureStore.open(resolveConfig({}).dataDir);
const pool = new QueryPool({ size: 1 });
afterAll(async () => {
  await pool.close();
  store.close();
});

// Some hundreds of milliseconds of SQLite work: far over a 100 ms budget.
const SLOW: Step = {
  op: 'pluckGet',
  sql: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000000) SELECT count(*) FROM c',
  params: [],
};

describe('QueryPool', () => {
  it('runs statements on a worker and returns one result per step, as the store itself would', async () => {
    const steps: Step[] = [
      { op: 'pluckGet', sql: "SELECT value FROM mockyard_meta WHERE key = 'fingerprint'", params: [] },
      { op: 'all', sql: 'SELECT key FROM mockyard_meta WHERE key IN (?, ?) ORDER BY key', params: ['seed', 'scale'] },
      { op: 'rawAll', sql: 'SELECT @a, @b', params: { a: 1, b: 'x' } },
    ];
    expect(store.dbPath).not.toBeNull();
    const out = await pool.run(store, steps, 5000);
    expect(out).toEqual([store.fingerprint, [{ key: 'scale' }, { key: 'seed' }], [[1, 'x']]]);
  });

  it('reports SQL errors as errors, not as budget errors', async () => {
    await expect(
      pool.run(store, [{ op: 'get', sql: 'SELECT * FROM no_such_table', params: [] }], 5000),
    ).rejects.toThrow(/no such table/);
  });

  it('answers a statement over its budget at once (started), and one that cannot start in time (not started)', async () => {
    const running = pool.run(store, [SLOW], 100).catch((e: unknown) => e);
    const waiting = pool.run(store, [SLOW], 100).catch((e: unknown) => e);
    // A third while one worker drains the first and another runs the second: no worker within its budget.
    const third = pool.run(store, [SLOW], 100).catch((e: unknown) => e);
    const [a, b, c] = await Promise.all([running, waiting, third]);
    expect(a).toBeInstanceOf(WorkBudgetError);
    expect((a as WorkBudgetError).started).toBe(true);
    expect(b).toBeInstanceOf(WorkBudgetError);
    expect(c).toBeInstanceOf(WorkBudgetError);
    expect((c as WorkBudgetError).started).toBe(false);
  });

  it('runs the steps of a store without a database file inline', async () => {
    const db = new Database(':memory:');
    const memory = new FixtureStore({ db, filesDir: '/nonexistent', fingerprint: 'scenario' });
    expect(memory.dbPath).toBeNull();
    expect(await pool.run(memory, [{ op: 'pluckGet', sql: 'SELECT 6 * 7', params: [] }], 100)).toEqual([42]);
    db.close();
  });
});
