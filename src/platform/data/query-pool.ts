// The query executor: every DKAN query and AGCO search, on any store, runs in a few child processes with
// read-only connections, under one work budget per request (--query-timeout). See docs/queries.md.
import { type ChildProcess, fork } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { TASKS, type TaskInput, type TaskName, type TaskResult } from '../../query-tasks.js';
import type { FixtureStore } from './fixture-store.js';
import { queryChildScript } from './query-child-script.js';
import type { Step } from './steps.js';

export type { Step, StepOp } from './steps.js';
export { runSteps } from './steps.js';

/**
 * The request's time ran out. `started` tells whether its SQL was running (the query itself is too
 * expensive: a client error) or still waiting for a free process (the server is busy: try again).
 */
export class WorkBudgetError extends Error {
  constructor(
    readonly budgetMs: number,
    readonly started: boolean,
  ) {
    super(started ? `query ran longer than ${budgetMs} ms` : `no query process became free within ${budgetMs} ms`);
  }
}

interface Job {
  id: number;
  path: string;
  fingerprint: string;
  task: TaskName;
  input: unknown;
  store: FixtureStore;
  resolve(result: unknown): void;
  reject(err: unknown): void;
  budgetMs: number;
  /** One deadline from arrival: waiting for a process and running share the budget. */
  timer: NodeJS.Timeout;
  startedAt?: number;
  /** Set once the job runs longer than `slowMs`: it no longer holds one of the `size` places. */
  slow: boolean;
  slowTimer?: NodeJS.Timeout;
}

interface Slot {
  child: ChildProcess;
  ready: boolean;
  job: Job | null;
}

type Reply =
  | { ready: true }
  | { id: number; result?: unknown; stale?: boolean; error?: { message: string; code?: string } };

export interface QueryPoolOptions {
  /** Jobs that run at once while none is slow; default: the machine's cores, at least 2 and at most 4. */
  size?: number;
  /** How long a job runs before it counts as slow and another process may start beside it (default 100 ms). */
  slowMs?: number;
  /** At most this many processes in all, slow jobs included (default size + 4). */
  maxProcesses?: number;
}

/** What the executor did, for tests and the health of a running mockyard. */
export interface QueryPoolEvents {
  /** A process was killed because its job ran over the budget. */
  killed?: (pid: number) => void;
}

/**
 * Child processes (src/query-child.ts) at a lower CPU priority, each running one job at a time: a list of
 * statements, or a named task (query-tasks.ts) such as a whole DKAN answer. A job is answered within its
 * budget from arrival, waiting for a process included. SQLite cannot be interrupted from another thread, and
 * a worker thread that is terminated keeps running its statement, so a job over budget is stopped by
 * SIGKILL of its process: it uses no CPU after that, and a new process takes its place on demand.
 *
 * `size` jobs run at once; a job that has run `slowMs` stops counting against that, so cheap queries keep
 * getting a process while a few expensive ones finish or are killed (up to `maxProcesses` in all).
 */
export class QueryPool {
  readonly size: number;
  readonly slowMs: number;
  readonly maxProcesses: number;
  #slots: Slot[] = [];
  #queue: Job[] = [];
  #nextId = 1;
  #closed = false;
  #warm = false;
  #events: QueryPoolEvents;
  #watched = new WeakSet<FixtureStore>();

  constructor(options: QueryPoolOptions = {}, events: QueryPoolEvents = {}) {
    this.size = options.size ?? Math.min(4, Math.max(2, availableParallelism()));
    this.slowMs = options.slowMs ?? 100;
    this.maxProcesses = Math.max(this.size, options.maxProcesses ?? this.size + 4);
    this.#events = events;
  }

  /** Process ids of the executor's processes now (for tests and diagnostics). */
  get pids(): number[] {
    return this.#slots.map((s) => s.child.pid!).filter((p) => p !== undefined);
  }

  /**
   * Runs `steps` and resolves with one result per step. Rejects with WorkBudgetError when `budgetMs` after
   * the call the steps have not finished: started: false when they were still waiting for a process or
   * ran less than half of it (the server was busy), true when they ran longer (the query is too big).
   */
  run(store: FixtureStore, steps: readonly Step[], budgetMs: number): Promise<unknown[]> {
    return this.runTask(store, 'steps', steps, budgetMs);
  }

  /** Runs a named task of query-tasks.ts on the store, under the same rules as `run`. */
  runTask<N extends TaskName>(
    store: FixtureStore,
    task: N,
    input: TaskInput<N>,
    budgetMs: number,
  ): Promise<TaskResult<N>> {
    // A store without a database file (one made in memory by a caller) has nothing a process could open.
    if (store.dbPath === null || this.#closed) return Promise.resolve().then(() => runInline(store, task, input));
    this.#watch(store);
    return new Promise<TaskResult<N>>((resolve, reject) => {
      const job: Job = {
        id: this.#nextId++,
        path: store.dbPath!,
        fingerprint: store.fingerprint,
        task,
        input,
        store,
        resolve: resolve as (r: unknown) => void,
        reject,
        budgetMs,
        slow: false,
        timer: setTimeout(() => this.#expire(job), budgetMs),
      };
      this.#queue.push(job);
      this.#dispatch();
    });
  }

  /** Processes close their connection to a store's file once the store is closed. */
  #watch(store: FixtureStore): void {
    if (this.#watched.has(store)) return;
    this.#watched.add(store);
    const path = store.dbPath!;
    store.onClose(() => {
      for (const s of this.#slots) if (s.ready && s.child.connected) s.child.send({ forget: path });
    });
  }

  #spawn(): Slot {
    const child = fork(queryChildScript(), [], {
      serialization: 'advanced',
      execArgv: [],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    // An idle executor does not keep the server's process alive.
    child.unref();
    child.channel?.unref();
    const slot: Slot = { child, ready: false, job: null };
    child.on('message', (msg: Reply) => this.#onReply(slot, msg));
    child.on('exit', () => this.#onExit(slot));
    child.on('error', () => this.#onExit(slot));
    this.#slots.push(slot);
    return slot;
  }

  #onReply(slot: Slot, msg: Reply): void {
    if ('ready' in msg) {
      slot.ready = true;
      this.#dispatch();
      return;
    }
    const job = slot.job;
    if (!job || job.id !== msg.id) return;
    this.#finish(slot, job);
    if (msg.stale) {
      // The file on disk is a newer generation already: the request's own (older) store answers it.
      settle(job, () => runInline(job.store, job.task, job.input as never));
    } else if (msg.error) {
      job.reject(Object.assign(new Error(msg.error.message), { code: msg.error.code }));
    } else {
      job.resolve(msg.result);
    }
    // More processes than `size` are there for slow jobs only: one that is idle again goes (one spare stays).
    const idle = this.#slots.filter((s) => s.job === null).length;
    if (this.#slots.length > this.size && idle > 1 && this.#queue.length === 0) this.#stop(slot);
    this.#dispatch();
  }

  #onExit(slot: Slot): void {
    const i = this.#slots.indexOf(slot);
    if (i < 0) return;
    this.#slots.splice(i, 1);
    const job = slot.job;
    if (job) {
      this.#finish(slot, job);
      job.reject(new Error('the query process ended unexpectedly'));
    }
    this.#dispatch();
  }

  #finish(slot: Slot, job: Job): void {
    slot.job = null;
    slot.child.channel?.unref();
    clearTimeout(job.timer);
    clearTimeout(job.slowTimer);
  }

  #stop(slot: Slot): void {
    const i = this.#slots.indexOf(slot);
    if (i >= 0) this.#slots.splice(i, 1);
    slot.child.kill('SIGKILL');
  }

  /**
   * Starts `size` processes now, and from then on keeps one idle process ready beside the busy ones: a
   * query never waits for a process to start, not even after a kill. Servers call it once they listen.
   */
  prestart(): void {
    this.#warm = true;
    this.#replenish();
  }

  #replenish(): void {
    if (this.#closed || !this.#warm) return;
    const idle = this.#slots.filter((s) => s.job === null).length;
    let missing = Math.max(this.size - this.#slots.length, idle === 0 ? 1 : 0);
    while (missing-- > 0 && this.#slots.length < this.maxProcesses) this.#spawn();
  }

  #dispatch(): void {
    this.#dispatchQueue();
    this.#replenish();
  }

  #dispatchQueue(): void {
    while (this.#queue.length > 0 && !this.#closed) {
      const running = this.#slots.filter((s) => s.job !== null && !s.job.slow).length;
      if (running >= this.size) return;
      const slot = this.#slots.find((s) => s.ready && s.job === null);
      if (!slot) {
        // Processes still starting will take the queue when they are ready.
        let starting = this.#slots.filter((s) => !s.ready).length;
        while (starting++ < this.#queue.length && this.#slots.length < this.maxProcesses) this.#spawn();
        return;
      }
      const job = this.#queue.shift()!;
      slot.job = job;
      job.startedAt = performance.now();
      // A job in flight keeps this process alive until its answer arrives.
      slot.child.channel?.ref();
      job.slowTimer = setTimeout(() => {
        job.slow = true;
        this.#dispatch();
      }, this.slowMs);
      slot.child.send({ id: job.id, path: job.path, fingerprint: job.fingerprint, task: job.task, input: job.input });
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
    const slot = this.#slots.find((s) => s.job === job);
    if (!slot) return;
    this.#finish(slot, job);
    // Mostly spent waiting for a process: the server was busy, not the query too big.
    const started = performance.now() - job.startedAt! >= budgetMs / 2;
    // The only way to stop a statement SQLite is running: its process goes, with its CPU time.
    const pid = slot.child.pid;
    this.#stop(slot);
    if (pid !== undefined) this.#events.killed?.(pid);
    job.reject(new WorkBudgetError(budgetMs, started));
    this.#dispatch();
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) {
      clearTimeout(job.timer);
      job.reject(new WorkBudgetError(0, false));
    }
    const slots = this.#slots.splice(0);
    await Promise.all(
      slots.map((s) => {
        const job = s.job;
        if (job) {
          this.#finish(s, job);
          job.reject(new WorkBudgetError(0, false));
        }
        if (s.child.exitCode !== null || s.child.signalCode !== null) return undefined;
        return new Promise<void>((resolve) => {
          s.child.once('exit', () => resolve());
          // Referenced again, or an idle event loop would end before the exit is seen.
          s.child.ref();
          s.child.kill('SIGKILL');
        });
      }),
    );
  }
}

function runInline<N extends TaskName>(store: FixtureStore, task: N, input: TaskInput<N>): TaskResult<N> {
  return (TASKS[task] as (s: FixtureStore, i: unknown) => unknown)(store, input) as TaskResult<N>;
}

function settle(job: Job, compute: () => unknown): void {
  try {
    job.resolve(compute());
  } catch (err) {
    job.reject(err);
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Where areas run SQL (see QueryPool). */
    queryPool: QueryPool;
  }
}
