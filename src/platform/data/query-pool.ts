// Unbounded SQL (DKAN queries, AGCO text-search counts) runs here: off the event loop, in a few worker threads with
// their own read-only connections, under a time limit per request.
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { SQLITE_MODULE } from '../../../fixtures/lib/sqlite.js';
import type { FixtureStore } from './fixture-store.js';

export type StepOp = 'get' | 'all' | 'pluckGet' | 'pluckAll' | 'rawAll';

/** One prepared statement to run: positional (array) or named (object) parameters, as better-sqlite3 binds them. */
export interface Step {
  op: StepOp;
  sql: string;
  params: unknown[] | Record<string, unknown>;
}

/**
 * The request's time ran out. `started` tells whether its SQL was running (the query itself is too
 * expensive: a client error) or still waiting for a free worker (the server is busy: try again).
 */
export class WorkBudgetError extends Error {
  constructor(
    readonly budgetMs: number,
    readonly started: boolean,
  ) {
    super(started ? `query ran longer than ${budgetMs} ms` : `no query worker became free within ${budgetMs} ms`);
  }
}

/** Runs steps on the store's own connection, on the calling thread. */
export function runSteps(store: FixtureStore, steps: readonly Step[]): unknown[] {
  return steps.map((s) => {
    const stmt = store.prepare(s.sql);
    const params = s.params as unknown[];
    switch (s.op) {
      case 'get':
        return stmt.pluck(false).raw(false).get(params);
      case 'all':
        return stmt.pluck(false).raw(false).all(params);
      case 'pluckGet':
        return stmt.pluck(true).get(params);
      case 'pluckAll':
        return stmt.pluck(true).all(params);
      case 'rawAll':
        return stmt.raw(true).all(params);
    }
  });
}

/**
 * The worker's code, plain JavaScript sent as text (`eval`), so the same pool works from the bundle,
 * from tsc's output and from the test runner's TypeScript. better-sqlite3 is loaded from the path the
 * main thread resolved. Statements mirror `runSteps`.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
// A lower CPU priority for this thread (on Linux a thread's own nice value): the event loop wins a shared core.
try { require('node:os').setPriority(10); } catch {}
const Database = require(workerData.sqlite);
let conn = null;
function connect(path, fingerprint) {
  if (conn && conn.path === path && conn.fingerprint === fingerprint) return conn;
  if (conn) conn.db.close();
  conn = null;
  const db = new Database(path, { readonly: true, fileMustExist: true });
  // No memory map here: page faults of long scans in several threads contend with the event loop's own
  // memory mappings (the process's mmap lock) and stall it; plain reads into SQLite's cache do not.
  db.pragma('mmap_size = 0');
  db.pragma('cache_size = -16384');
  const found = db.prepare("SELECT value FROM mockyard_meta WHERE key = 'fingerprint'").pluck().get();
  // The file at this path is another generation already (a rebuild renamed a new one over it).
  if (found !== fingerprint) {
    db.close();
    return null;
  }
  conn = { path, fingerprint, db, stmts: new Map() };
  return conn;
}
parentPort.on('message', (job) => {
  try {
    const c = connect(job.path, job.fingerprint);
    if (!c) return parentPort.postMessage({ id: job.id, stale: true });
    const results = job.steps.map((s) => {
      let stmt = c.stmts.get(s.sql);
      if (!stmt) {
        if (c.stmts.size >= 1000) c.stmts.clear();
        stmt = c.db.prepare(s.sql);
        c.stmts.set(s.sql, stmt);
      }
      if (s.op === 'get') return stmt.pluck(false).raw(false).get(s.params);
      if (s.op === 'all') return stmt.pluck(false).raw(false).all(s.params);
      if (s.op === 'pluckGet') return stmt.pluck(true).get(s.params);
      if (s.op === 'pluckAll') return stmt.pluck(true).all(s.params);
      return stmt.raw(true).all(s.params);
    });
    parentPort.postMessage({ id: job.id, results });
  } catch (err) {
    parentPort.postMessage({ id: job.id, error: { message: String((err && err.message) || err), code: err && err.code } });
  }
});
`;

interface Job {
  id: number;
  path: string;
  fingerprint: string;
  steps: readonly Step[];
  store: FixtureStore;
  resolve(results: unknown[]): void;
  reject(err: unknown): void;
  budgetMs: number;
  timer: NodeJS.Timeout;
  worker?: Slot;
}

interface Slot {
  worker: Worker;
  job: Job | null;
  /** Still running a statement whose request was already answered (over its budget). */
  draining: boolean;
}

export interface QueryPoolOptions {
  /** Worker threads; default: the machine's cores, at least 2 and at most 4. */
  size?: number;
}

/**
 * A small pool of worker threads at a lower CPU priority (nice 10). Each job is a list of statements run in
 * order on one worker's read-only connection to the store's database file, under a time limit for
 * waiting for a free worker and the same limit for running. A store without a database file (an
 * in-memory scenario) has no file a worker could open: its steps run inline, bounded by its small size.
 *
 * SQLite cannot be interrupted from outside its thread: a job over its limit is answered at once, and
 * its worker finishes the statement in the background ("draining") while up to `size` more workers
 * take new jobs. Terminating a busy worker instead would stall the event loop while its isolate is torn down.
 */
export class QueryPool {
  readonly size: number;
  #slots: Slot[] = [];
  #queue: Job[] = [];
  #nextId = 1;
  #closed = false;
  #sqlite = createRequire(import.meta.url).resolve(SQLITE_MODULE);

  constructor(options: QueryPoolOptions = {}) {
    this.size = options.size ?? Math.min(4, Math.max(2, availableParallelism()));
  }

  /**
   * Runs `steps` and resolves with one result per step. Rejects with WorkBudgetError when no worker is
   * free within `budgetMs` (started: false), or when the steps run longer than `budgetMs` (started: true).
   */
  run(store: FixtureStore, steps: readonly Step[], budgetMs: number): Promise<unknown[]> {
    if (store.dbPath === null || this.#closed) return Promise.resolve().then(() => runSteps(store, steps));
    return new Promise((resolve, reject) => {
      const job: Job = {
        id: this.#nextId++,
        path: store.dbPath!,
        fingerprint: store.fingerprint,
        steps,
        store,
        resolve,
        reject,
        budgetMs,
        timer: setTimeout(() => this.#expire(job), budgetMs),
      };
      this.#queue.push(job);
      this.#dispatch();
    });
  }

  #spawn(): Slot {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { sqlite: this.#sqlite } });
    worker.unref();
    const slot: Slot = { worker, job: null, draining: false };
    worker.on(
      'message',
      (msg: { id: number; results?: unknown[]; stale?: boolean; error?: { message: string; code?: string } }) => {
        if (slot.draining) {
          slot.draining = false;
          this.#dispatch();
          return;
        }
        const job = slot.job;
        if (!job || job.id !== msg.id) return;
        slot.job = null;
        clearTimeout(job.timer);
        if (msg.stale) {
          // The file on disk is already a newer generation: the request's own (older) store answers it.
          try {
            job.resolve(runSteps(job.store, job.steps));
          } catch (err) {
            job.reject(err);
          }
        } else if (msg.error) {
          job.reject(Object.assign(new Error(msg.error.message), { code: msg.error.code }));
        } else {
          job.resolve(msg.results!);
        }
        this.#dispatch();
      },
    );
    worker.on('error', (err) => {
      const job = slot.job;
      this.#remove(slot);
      if (job) {
        clearTimeout(job.timer);
        job.reject(err);
      }
      this.#dispatch();
    });
    this.#slots.push(slot);
    return slot;
  }

  #remove(slot: Slot): void {
    const i = this.#slots.indexOf(slot);
    if (i >= 0) this.#slots.splice(i, 1);
  }

  #dispatch(): void {
    while (this.#queue.length > 0 && !this.#closed) {
      let slot = this.#slots.find((s) => s.job === null && !s.draining);
      if (!slot) {
        // At most `size` workers on live requests, and as many again finishing abandoned statements.
        const draining = this.#slots.filter((s) => s.draining).length;
        if (this.#slots.length - draining >= this.size || this.#slots.length >= 2 * this.size) return;
        slot = this.#spawn();
      }
      const job = this.#queue.shift()!;
      slot.job = job;
      job.worker = slot;
      // The wait is over: the same budget again for running.
      clearTimeout(job.timer);
      job.timer = setTimeout(() => this.#expire(job), job.budgetMs);
      slot.worker.postMessage({ id: job.id, path: job.path, fingerprint: job.fingerprint, steps: job.steps });
    }
  }

  #expire(job: Job): void {
    const { budgetMs } = job;
    const queued = this.#queue.indexOf(job);
    if (queued >= 0) {
      this.#queue.splice(queued, 1);
      job.reject(new WorkBudgetError(budgetMs, false));
      return;
    }
    const slot = job.worker;
    if (!slot || slot.job !== job) return;
    slot.job = null;
    slot.draining = true;
    job.reject(new WorkBudgetError(budgetMs, true));
    this.#dispatch();
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) {
      clearTimeout(job.timer);
      job.reject(new WorkBudgetError(0, false));
    }
    const slots = this.#slots.splice(0);
    for (const s of slots) {
      if (s.job) {
        clearTimeout(s.job.timer);
        s.job.reject(new WorkBudgetError(0, false));
      }
    }
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Where areas run SQL that may take long (see QueryPool). */
    queryPool: QueryPool;
  }
}
