// The query executor: every DKAN query and AGCO search, on any store, runs in a few child processes with
// read-only connections, under one work budget per request (--query-timeout). See docs/queries.md.
import { fork } from 'node:child_process';
import { availableParallelism, setPriority } from 'node:os';
import { TASKS, type Delivered, type TaskInput, type TaskName, type TaskResult } from '../../query-tasks.js';
import type { FixtureStore } from './fixture-store.js';
import { delivered, settle, type ChildMessage, type Job, type Slot } from './query-job.js';
import { QUERY_PROCESS_FLAGS, childEnv } from './child-env.js';
import { processCpuMs } from './process-cpu.js';
import { queryChildScript } from './query-child-script.js';
import type { Step } from './steps.js';
import { WorkBudgetError } from './work-budget-error.js';

export type { Step, StepOp } from './steps.js';
export { WorkBudgetError } from './work-budget-error.js';
export { runSteps } from './steps.js';

/** CPU priorities (nice): new jobs as the server itself, jobs known to be slow far below (see docs/queries.md). */
const FAST_NICE = 0;
const SLOW_NICE = 19;

export interface QueryPoolOptions {
  /**
   * Jobs that run at once while none is slow; default: the cores this process may run on, at most 4. More
   * jobs at once than cores only split the CPU between them, each process with its own rank arrays in the
   * caches (docs/queries.md).
   */
  size?: number;
  /** How long a job runs before it counts as slow: it then yields the CPU and its place (default 100 ms). */
  slowMs?: number;
  /** How long a job runs alone before the next waiting job starts beside it (default 10 ms; see #share). */
  shareMs?: number;
  /** Slow jobs that may run at once; one more that turns slow is stopped and answered busy (default: size, at least 2). */
  maxSlow?: number;
  /** At most this many processes in all (default size (at least 2) + maxSlow + 1: a job beside all of them gets one). */
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
 * `size` jobs run at once at the server's CPU priority; one that has run `shareMs` lets the next start beside
 * it. A job that has run `slowMs` is slow: its process drops to the lowest priority and no longer counts
 * against `size`, so new (mostly cheap) queries keep getting a process and the CPU while up to `maxSlow` slow
 * ones finish or run out of budget. One more that turns slow is stopped at once and answered busy.
 */
export class QueryPool {
  readonly size: number;
  readonly slowMs: number;
  readonly shareMs: number;
  readonly maxSlow: number;
  readonly maxProcesses: number;
  #slots: Slot[] = [];
  /** The query process's script, found (or, from the sources, bundled) at the first start. */
  #script: string | null = null;
  /** Stores recently queried: a new process opens them before its first job. */
  #recent = new Map<string, string>();
  #queue: Job[] = [];
  #nextId = 1;
  #closed = false;
  #warm = false;
  /** Until every process has started once: they start one after another (prestart). */
  #warming = true;
  #events: QueryPoolEvents;
  #watched = new WeakSet<FixtureStore>();
  /** Processes that start at once for waiting jobs: the cores this process may run on. */
  #startsAtOnce = Math.max(1, availableParallelism());

  constructor(options: QueryPoolOptions = {}, events: QueryPoolEvents = {}) {
    this.size = options.size ?? Math.min(4, availableParallelism());
    this.slowMs = options.slowMs ?? 100;
    this.shareMs = Math.min(this.slowMs, options.shareMs ?? 10);
    this.maxSlow = options.maxSlow ?? Math.max(2, this.size);
    this.maxProcesses = Math.max(1, options.maxProcesses ?? Math.max(2, this.size) + this.maxSlow + 1);
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

  /**
   * Runs a named task of query-tasks.ts on the store, under the same rules as `run`. A `heavy` job (one the
   * caller cannot bound by a table's rows, such as a join) waits behind every other job that is waiting:
   * a lookup does not queue behind joins that may each run out their budget.
   */
  runTask<N extends TaskName>(
    store: FixtureStore,
    task: N,
    input: TaskInput<N>,
    budgetMs: number,
    { heavy = false }: { heavy?: boolean } = {},
  ): Promise<Delivered<TaskResult<N>>> {
    // A store without a database file (one made in memory by a caller) has nothing a process could open.
    if (store.dbPath === null || this.#closed) return Promise.resolve().then(() => runInline(store, task, input));
    this.#watch(store);
    return new Promise<Delivered<TaskResult<N>>>((resolve, reject) => {
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
        shared: false,
        heavy,
        parts: [],
        timer: setTimeout(() => this.#expire(job), budgetMs),
      };
      this.#remember(job.path, job.fingerprint);
      const firstHeavy = heavy ? -1 : this.#queue.findIndex((j) => j.heavy);
      if (firstHeavy < 0) this.#queue.push(job);
      else this.#queue.splice(firstHeavy, 0, job);
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
    this.#script ??= queryChildScript();
    const child = fork(this.#script, [], {
      serialization: 'advanced',
      // Not the server's own flags (a test runner's, an inspector's): the query process's (child-env.ts).
      execArgv: [...QUERY_PROCESS_FLAGS],
      env: childEnv(process.env),
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    // An idle executor does not keep the server's process alive.
    child.unref();
    child.channel?.unref();
    const slot: Slot = { child, ready: false, job: null, demoted: false, idleCpuMs: 0 };
    child.on('message', (msg: ChildMessage) => this.#onReply(slot, msg));
    child.on('exit', () => this.#onExit(slot));
    child.on('error', () => this.#onExit(slot));
    this.#slots.push(slot);
    return slot;
  }

  #onReply(slot: Slot, msg: ChildMessage): void {
    if ('slice' in msg) {
      // Part of a long answer: it is kept until the answer's last message says the job is done.
      if (slot.job?.id === msg.id) slot.job.parts.push(msg.slice);
      return;
    }
    slot.idleCpuMs = msg.cpuMs;
    if ('idle' in msg) return;
    if ('ready' in msg) {
      slot.ready = true;
      // Its connections open before its first job: a spare answers as fast as a process that served before.
      slot.child.send({ warm: [...this.#recent] });
      this.#dispatch();
      return;
    }
    const job = slot.job;
    if (!job || job.id !== msg.id) return;
    this.#finish(slot, job);
    if (slot.demoted) this.#promote(slot);
    if (msg.stale) {
      // The file on disk is a newer generation already: the request's own (older) store answers it.
      settle(job, () => runInline(job.store, job.task, job.input as never));
    } else if (msg.error) {
      job.reject(Object.assign(new Error(msg.error.message), { code: msg.error.code }));
    } else {
      job.resolve(msg.sliced ? job.parts : delivered(msg.result));
    }
    this.#dispatch();
  }

  /** Back to the server's priority after a slow job; where the OS does not allow that, the process goes. */
  #promote(slot: Slot): void {
    try {
      setPriority(slot.child.pid!, FAST_NICE);
      slot.demoted = false;
    } catch {
      this.#stop(slot);
    }
  }

  #remember(path: string, fingerprint: string): void {
    this.#recent.delete(path);
    this.#recent.set(path, fingerprint);
    for (const p of this.#recent.keys()) if (this.#recent.size > 4) this.#recent.delete(p);
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
   * Starts all `maxProcesses` processes and keeps them (a killed one is replaced): every place a job can
   * have, slow jobs included, has a process ready, so no query waits for one to start (a start costs a
   * quarter of a second of CPU, seconds on a busy machine). Servers call it once they listen. They start one
   * after another, each once the one before is ready, so a server that has just started keeps a core for
   * its first answers; a job that finds no process ready still starts one at once (#dispatchQueue).
   */
  prestart(): void {
    this.#warm = true;
    this.#replenish();
  }

  #replenish(): void {
    if (this.#closed || !this.#warm) return;
    if (this.#warming) {
      if (this.#slots.length < this.maxProcesses && this.#slots.every((s) => s.ready)) this.#spawn();
      this.#warming = this.#slots.length < this.maxProcesses || this.#slots.some((s) => !s.ready);
      return;
    }
    // Once warm, a process that went (killed over budget, or after a slow job) is replaced at once.
    while (this.#slots.length < this.maxProcesses) this.#spawn();
  }

  #dispatch(): void {
    this.#dispatchQueue();
    this.#replenish();
  }

  #dispatchQueue(): void {
    while (this.#queue.length > 0 && !this.#closed) {
      // A heavy job (a join) never takes a shared place: joins alone do not fill every process.
      const heavy = this.#queue[0]!.heavy;
      const running = this.#slots.filter((s) => s.job !== null && !s.job.slow && (heavy || !s.job.shared)).length;
      if (running >= this.size) return;
      const slot = this.#slots.find((s) => s.ready && s.job === null);
      if (!slot) {
        // Processes still starting will take the queue when they are ready. A start is about 120 ms of CPU
        // here: more starts at once than cores only make the first one ready later.
        const wanted = Math.min(this.#queue.length, this.#startsAtOnce);
        let starting = this.#slots.filter((s) => !s.ready).length;
        while (starting++ < wanted && this.#slots.length < this.maxProcesses) this.#spawn();
        return;
      }
      const job = this.#queue.shift()!;
      slot.job = job;
      job.startedAt = performance.now();
      job.cpuAtStart = slot.idleCpuMs;
      // A job in flight keeps this process alive until its answer arrives.
      slot.child.channel?.ref();
      job.slowTimer = setTimeout(() => this.#share(slot, job), this.shareMs);
      slot.child.send({ id: job.id, path: job.path, fingerprint: job.fingerprint, task: job.task, input: job.input });
    }
  }

  /**
   * The job has run `shareMs`: its place goes to the next waiting job (unless that one is heavy), which starts
   * beside it and shares the CPU. Jobs shorter than that (nearly all) run `size` at a time, each process's rank
   * arrays alone in a core's caches, and a cheap query waits for a long one `shareMs` at most.
   */
  #share(slot: Slot, job: Job): void {
    if (slot.job !== job) return;
    job.shared = true;
    job.slowTimer = setTimeout(() => this.#turnSlow(slot, job), this.slowMs - this.shareMs);
    this.#dispatch();
  }

  /**
   * The job has run `slowMs`: its process drops to the lowest CPU priority and its place goes to the next
   * job. Beyond `maxSlow` slow jobs it is stopped instead and answered busy (503 with Retry-After).
   */
  #turnSlow(slot: Slot, job: Job): void {
    if (slot.job !== job) return;
    const cpu = processCpuMs(slot.child.pid);
    if (cpu !== null && job.cpuAtStart !== undefined && cpu - job.cpuAtStart < this.slowMs / 2) {
      // Mostly waiting for a CPU (a busy machine), not expensive: it keeps its priority for now.
      job.slowTimer = setTimeout(() => this.#turnSlow(slot, job), this.slowMs);
      return;
    }
    job.slow = true;
    if (this.#slots.filter((s) => s.job?.slow).length > this.maxSlow) {
      this.#kill(slot, job, new WorkBudgetError(job.budgetMs, false, this.maxSlow));
      return;
    }
    try {
      setPriority(slot.child.pid!, SLOW_NICE);
      slot.demoted = true;
    } catch {
      // Not allowed here: it keeps its priority, and still its place goes to the next job.
    }
    this.#dispatch();
  }

  /** Stops a running job's process (the only way to stop a statement SQLite is running) and rejects the job. */
  #kill(slot: Slot, job: Job, err: WorkBudgetError): void {
    this.#finish(slot, job);
    const pid = slot.child.pid;
    this.#stop(slot);
    if (pid !== undefined) this.#events.killed?.(pid);
    job.reject(err);
    this.#dispatch();
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
    // Mostly spent waiting for a process: the server was busy, not the query too big.
    const started = performance.now() - job.startedAt! >= budgetMs / 2;
    this.#kill(slot, job, new WorkBudgetError(budgetMs, started));
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

function runInline<N extends TaskName>(store: FixtureStore, task: N, input: TaskInput<N>): Delivered<TaskResult<N>> {
  return delivered((TASKS[task] as (s: FixtureStore, i: unknown) => unknown)(store, input)) as Delivered<TaskResult<N>>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Where areas run SQL (see QueryPool). */
    queryPool: QueryPool;
  }
}
