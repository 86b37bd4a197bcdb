// Unbounded SQL (DKAN queries, AGCO text-search counts) runs here: off the event loop, in a few worker threads with
// their own read-only connections, under a time limit per request.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { runStep, type Step } from './sql-steps.js';
import { queryWorkerFile } from './worker-file.js';
import type { FixtureStore } from './fixture-store.js';

export type { Step, StepOp } from './sql-steps.js';

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

/** Runs steps on the store's own connection, on the calling thread (the same code as a worker's). */
export function runSteps(store: FixtureStore, steps: readonly Step[]): unknown[] {
  return steps.map((s) => runStep(store.prepare(s.sql), s.op, s.params));
}

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
    const worker = new Worker(queryWorkerFile());
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
