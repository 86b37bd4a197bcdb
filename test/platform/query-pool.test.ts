// The query executor: answers from child processes, a budget that kills the process running an over-budget
// statement, cheap queries answered beside expensive ones, and scenario stores queried the same way.
import { EventEmitter, once } from 'node:events';
import { readFileSync } from 'node:fs';
import { availableParallelism, getPriority } from 'node:os';
import Database from '../../fixtures/lib/sqlite.js';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config.js';
import { QUERY_PROCESS_FLAGS } from '../../src/platform/data/child-env.js';
import { FixtureStore } from '../../src/platform/data/fixture-store.js';
import { QueryPool, WorkBudgetError, type Step } from '../../src/platform/data/query-pool.js';
import { ScenarioBodyChecker, buildScenario, openScenario } from '../../src/scenarios/build.js';
import { bindQuery, parseFilter } from '../../src/areas/agco/filters.js';
import { definitionsAnswer } from '../../src/areas/agco/queries.js';
import { SLICE_BYTES } from '../../src/query-tasks.js';
import { until } from '../helpers/wait.js';

const store = FixtureStore.open(resolveConfig({}).dataDir);
const killed = new EventEmitter();
// Room for more slow jobs than the tests start: the cheap query may itself count as slow on a busy machine.
const pool = new QueryPool({ size: 2, slowMs: 20, maxSlow: 8 }, { killed: (pid) => killed.emit('killed', pid) });
afterAll(async () => {
  await pool.close();
  store.close();
});

/** SQLite work without end in practice: a count over a billion generated rows. */
const ENDLESS: Step = {
  op: 'pluckGet',
  sql: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT count(*) FROM c',
  params: [],
};

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('QueryPool', () => {
  it('runs statements in a child process and returns one result per step, as the store itself would', async () => {
    const steps: Step[] = [
      { op: 'pluckGet', sql: "SELECT value FROM mockyard_meta WHERE key = 'fingerprint'", params: [] },
      { op: 'all', sql: 'SELECT key FROM mockyard_meta WHERE key IN (?, ?) ORDER BY key', params: ['seed', 'scale'] },
      { op: 'rawAll', sql: 'SELECT @a, @b', params: { a: 1, b: 'x' } },
    ];
    expect(store.dbPath).not.toBeNull();
    const out = await pool.run(store, steps, 30_000);
    expect(out).toEqual([store.fingerprint, [{ key: 'scale' }, { key: 'seed' }], [[1, 'x']]]);
    expect(pool.pids.length).toBeGreaterThan(0);
    expect(pool.pids).not.toContain(process.pid);
  });

  it.runIf(process.platform === 'linux')(
    "starts its processes with the query process's V8 flags, not the server's",
    async () => {
      await pool.run(store, [{ op: 'pluckGet', sql: 'SELECT 1', params: [] }], 30_000);
      for (const pid of pool.pids) {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0');
        expect(argv).toEqual(expect.arrayContaining([...QUERY_PROCESS_FLAGS]));
        for (const flag of process.execArgv) expect(argv).not.toContain(flag);
      }
    },
  );

  it('reports SQL errors as errors, not as budget errors', async () => {
    await expect(
      pool.run(store, [{ op: 'get', sql: 'SELECT * FROM no_such_table', params: [] }], 30_000),
    ).rejects.toThrow(/no such table/);
  });

  it('stops a statement over its budget by ending its process, and answers started: true', async () => {
    // A process ready first, so that the budget is spent running, not starting one.
    await pool.run(store, [{ op: 'pluckGet', sql: 'SELECT 1', params: [] }], 30_000);
    const gone = once(killed, 'killed');
    const err = await pool.run(store, [ENDLESS], 200).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkBudgetError);
    expect((err as WorkBudgetError).started).toBe(true);
    const [pid] = (await gone) as [number];
    // SIGKILL: the process, and the statement it was running, use no CPU any more.
    await until(() => !alive(pid));
    expect(pool.pids).not.toContain(pid);
    // A new process takes its place for the next query.
    expect(await pool.run(store, [{ op: 'pluckGet', sql: 'SELECT 6 * 7', params: [] }], 30_000)).toEqual([42]);
  });

  it('answers a cheap query while four expensive ones are still running', async () => {
    let heavyDone = 0;
    const heavy = Array.from({ length: 4 }, () =>
      pool
        .run(store, [ENDLESS], 120_000)
        .catch((e: unknown) => e)
        .finally(() => heavyDone++),
    );
    const cheap = await pool.run(
      store,
      [{ op: 'pluckGet', sql: 'SELECT count(*) FROM mockyard_meta', params: [] }],
      120_000,
    );
    expect(cheap).toEqual([expect.any(Number)]);
    expect(heavyDone).toBe(0);
    // A fifth request that cannot start in time is answered as "busy", not run late.
    const tiny = new QueryPool({ size: 1, slowMs: 60_000, maxProcesses: 1 });
    const first = tiny.run(store, [ENDLESS], 60_000).catch((e: unknown) => e);
    const second = await tiny.run(store, [ENDLESS], 150).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(WorkBudgetError);
    expect((second as WorkBudgetError).started).toBe(false);
    await tiny.close();
    expect(await first).toBeInstanceOf(WorkBudgetError);
    await pool.close();
    for (const h of heavy) expect(await h).toBeInstanceOf(WorkBudgetError);
  });

  it('lowers a slow job to the lowest CPU priority, and answers one slow job beyond maxSlow busy at once', async () => {
    const narrow = new QueryPool({ size: 1, slowMs: 300, maxSlow: 1 });
    try {
      await narrow.run(store, [{ op: 'pluckGet', sql: 'SELECT 1', params: [] }], 30_000);
      const first = narrow.run(store, [ENDLESS], 60_000).catch((e: unknown) => e);
      await until(() => narrow.pids.some((pid) => getPriority(pid) === 19));
      const second = await narrow.run(store, [ENDLESS], 60_000).catch((e: unknown) => e);
      expect(second).toBeInstanceOf(WorkBudgetError);
      // Busy (503 with Retry-After), not "too long": the server refused it, long before its budget ran out.
      expect((second as WorkBudgetError).started).toBe(false);
      expect((second as Error).message).toMatch(/more than 1 slow/);
      // The area's busy answer says why, not that nothing could start within its budget (it was refused at once).
      expect((second as WorkBudgetError).busyReason).toBe('1 slow query was already running');
      expect(new WorkBudgetError(5000, false).busyReason).toBe('no query could start within 5000 ms');
      // Cheap work still runs beside the one slow job, at the server's priority.
      expect(await narrow.run(store, [{ op: 'pluckGet', sql: 'SELECT 6 * 7', params: [] }], 60_000)).toEqual([42]);
      await narrow.close();
      expect(await first).toBeInstanceOf(WorkBudgetError);
    } finally {
      await narrow.close();
    }
  });

  it('runs waiting lookups before waiting heavy jobs (joins), each kind in arrival order', async () => {
    // One process, so that every job after the first waits; slowMs beyond the test, so none turns slow.
    const single = new QueryPool({ size: 1, slowMs: 600_000, maxSlow: 1, maxProcesses: 1 });
    try {
      await single.run(store, [{ op: 'pluckGet', sql: 'SELECT 1', params: [] }], 30_000);
      const order: string[] = [];
      const job = (name: string, heavy: boolean) =>
        single
          .runTask(store, 'steps', [{ op: 'pluckGet', sql: 'SELECT ?', params: [name] }], 60_000, { heavy })
          .then(() => order.push(name));
      // The first takes the one process at once; the rest wait, queued in this same turn of the loop.
      const done = [job('first', true), job('join1', true), job('lookup1', false), job('join2', true)];
      done.push(job('lookup2', false));
      await Promise.all(done);
      expect(order).toEqual(['first', 'lookup1', 'lookup2', 'join1', 'join2']);
    } finally {
      await single.close();
    }
  });

  it('starts no more processes at once for waiting jobs than there are cores', async () => {
    const fresh = new QueryPool({ size: 4, maxSlow: 4 });
    try {
      const jobs = Array.from({ length: 6 }, () =>
        fresh.run(store, [{ op: 'pluckGet', sql: 'SELECT 1', params: [] }], 60_000),
      );
      // Forked in this turn of the loop: none can be ready yet.
      expect(fresh.pids.length).toBe(Math.min(6, availableParallelism()));
      expect(await Promise.all(jobs)).toEqual(Array.from({ length: 6 }, () => [1]));
    } finally {
      await fresh.close();
    }
  });

  it('queries a scenario store from its own file, off the event loop', async () => {
    const scenarioPool = new QueryPool({ size: 1 });
    const built = openScenario(
      buildScenario(
        'executor',
        { agco: { definitions: [{ Id: 'Hello', Translations: [{ LanguageId: 1033, StringValue: 'Hi' }] }] } },
        new ScenarioBodyChecker(),
      ),
    );
    try {
      expect(built.store.dbPath).not.toBeNull();
      const out = await scenarioPool.run(
        built.store,
        [{ op: 'pluckGet', sql: "SELECT value FROM mockyard_meta WHERE key = 'scenario'", params: [] }],
        30_000,
      );
      expect(out).toEqual(['executor']);
      expect(scenarioPool.pids.length).toBe(1);
    } finally {
      await scenarioPool.close();
      built.store.close();
      built.cleanup();
    }
  });

  it('starts a waiting job beside one that has run shareMs, so a cheap query does not wait for a long one', async () => {
    // One place, and no job ever slow: only sharing lets the cheap query run before the endless one ends. Both
    // wait for the first process, which takes the cheap one in a batch behind the endless one: sharing takes
    // it back to run in another process.
    const one = new QueryPool({ size: 1, slowMs: 600_000, shareMs: 10 });
    try {
      let longDone = false;
      const long = one.run(store, [ENDLESS], 600_000).finally(() => {
        longDone = true;
      });
      const cheap = await one.run(store, [{ op: 'pluckGet', sql: 'SELECT 6 * 7', params: [] }], 600_000);
      expect(cheap).toEqual([42]);
      expect(longDone).toBe(false);
      long.catch(() => {});
    } finally {
      await one.close();
    }
  });

  it('answers the jobs batched behind one over its budget from a new process, and only that one busy', async () => {
    // A started process runs the first job; the rest, queued in the same turn of the loop, go to it in one
    // batch once that job is answered. No share, no slow job: only the budget ends the endless one.
    const fresh = new QueryPool({ size: 1, slowMs: 600_000, shareMs: 600_000, maxProcesses: 2 });
    try {
      await fresh.run(store, [{ op: 'pluckGet', sql: 'SELECT 1', params: [] }], 600_000);
      const first = fresh.run(store, [{ op: 'pluckGet', sql: 'SELECT 1', params: [] }], 600_000);
      const endless = fresh.run(store, [ENDLESS], 1000);
      const cheap = [1, 2, 3].map((n) =>
        fresh.run(store, [{ op: 'pluckGet', sql: 'SELECT ? + 1', params: [n] }], 600_000),
      );
      const [over, ...rest] = await Promise.allSettled([endless, ...cheap]);
      expect(await first).toEqual([1]);
      expect(over.status === 'rejected' && over.reason instanceof WorkBudgetError && over.reason.started).toBe(true);
      expect(rest.map((r) => (r.status === 'fulfilled' ? r.value : r.reason))).toEqual([[2], [3], [4]]);
    } finally {
      await fresh.close();
    }
  });

  it('answers a job whose budget runs out while it waits in a batch busy, not started, and the rest of the batch', async () => {
    const fresh = new QueryPool({ size: 1, slowMs: 600_000, shareMs: 600_000, maxProcesses: 2 });
    try {
      const slow =
        'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000000) SELECT count(*) FROM c';
      const first = fresh.run(store, [{ op: 'pluckGet', sql: slow, params: [] }], 600_000);
      const impatient = fresh.run(store, [{ op: 'pluckGet', sql: 'SELECT 1', params: [] }], 1);
      const after = fresh.run(store, [{ op: 'pluckGet', sql: 'SELECT 2', params: [] }], 600_000);
      const [a, b, c] = await Promise.allSettled([first, impatient, after]);
      expect(a).toEqual({ status: 'fulfilled', value: [3_000_000] });
      expect(b.status === 'rejected' && b.reason instanceof WorkBudgetError && !b.reason.started).toBe(true);
      expect(c).toEqual({ status: 'fulfilled', value: [2] });
    } finally {
      await fresh.close();
    }
  });

  it('delivers bytes longer than one message holds in slices, whole and in order', async () => {
    const own = new QueryPool({ size: 1 });
    const definitions = Array.from({ length: 5000 }, (_, i) => ({
      Id: `S.${i}`,
      DescriptionForTranslator: `${i}`.repeat(100),
    }));
    const built = openScenario(buildScenario('slices', { agco: { definitions } }, new ScenarioBodyChecker()));
    try {
      const job = { filter: parseFilter(bindQuery({ limit: '5000' })), rendering: 'json' as const };
      const parts = (await own.runTask(built.store, 'agco:definitions', job, 30_000))!;
      expect(parts.length).toBeGreaterThan(1);
      expect(parts.every((p) => p.byteLength <= SLICE_BYTES)).toBe(true);
      expect(Buffer.concat(parts)).toEqual(Buffer.from(definitionsAnswer(built.store, job)!));
    } finally {
      await own.close();
      built.store.close();
      built.cleanup();
    }
  });

  it('reads database files through a memory map, keeping one shared lock instead of locking per statement', async () => {
    const own = new QueryPool({ size: 1 });
    const [mode, mapped] = await own
      .run(
        store,
        [
          { op: 'pluckGet', sql: 'PRAGMA locking_mode', params: [] },
          { op: 'pluckGet', sql: 'PRAGMA mmap_size', params: [] },
        ],
        30_000,
      )
      .finally(() => own.close());
    expect(mode).toBe('exclusive');
    expect(mapped).toBeGreaterThan(0);
    // The server's own connection keeps its lock too.
    expect(store.db.pragma('locking_mode', { simple: true })).toBe('exclusive');
    // A shared lock: other readers still read the file.
    const other = new Database(store.dbPath!, { readonly: true, fileMustExist: true });
    try {
      expect(other.prepare('SELECT count(*) FROM mockyard_meta').pluck().get()).toBeGreaterThan(0);
    } finally {
      other.close();
    }
  });

  it('runs the steps of a store without a database file inline', async () => {
    const inline = new QueryPool({ size: 1 });
    const db = new Database(':memory:');
    const memory = new FixtureStore({ db, filesDir: '/nonexistent', fingerprint: 'scenario' });
    expect(memory.dbPath).toBeNull();
    expect(await inline.run(memory, [{ op: 'pluckGet', sql: 'SELECT 6 * 7', params: [] }], 100)).toEqual([42]);
    expect(inline.pids).toEqual([]);
    db.close();
    await inline.close();
  });
});
