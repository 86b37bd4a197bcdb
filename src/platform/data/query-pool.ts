// The query executor: every DKAN query and AGCO search, on any store, runs in a few child processes with
// read-only connections, under one work budget per request (--query-timeout). See docs/queries.md.
import { availableParallelism, setPriority } from 'node:os';
import type { Delivered, TaskInput, TaskName, TaskResult } from '../../query-tasks.js';
import type { FixtureStore } from './fixture-store.js';
import {
  jobMessage,
  killAndWait,
  rejectAll,
  returnFollowers,
  runInline,
  settleAnswer,
  takeFollowers,
  type ChildMessage,
  type Job,
  type JobAnswer,
  type Slot,
} from './query-job.js';
import { processCpuMs } from './process-cpu.js';
import { forkQueryProcess, queryChildScript } from './query-child-script.js';
import type { Step } from './steps.js';
import type { QueryPoolEvents, QueryPoolOptions } from './query-pool-options.js';
import { WorkBudgetError } from './work-budget-error.js';

export type { QueryPoolEvents, QueryPoolOptions } from './query-pool-options.js';
export type { Step, StepOp } from './steps.js';
export { WorkBudgetError } from './work-budget-error.js';
export { runSteps } from './steps.js';

/** CPU priorities (nice): new jobs as the server itself, jobs known to be slow far below (see docs/queries.md). */
const FAST_NICE = 0;
const SLOW_NICE = 19;

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
 *
 * A job that takes the last free place takes waiting jobs with it, run in order and answered a few at a time
 * (a batch: takeFollowers; the server and the process switch less often; docs/queries.md).
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
    const child = forkQueryProcess(this.#script);
    const slot: Slot = { child, ready: false, job: null, followers: [], demoted: false, idleCpuMs: 0, heardAt: 0 };
    child.on('message', (msg: ChildMessage) => this.#onReply(slot, msg));
    child.on('exit', () => this.#onExit(slot));
    child.on('error', () => this.#onExit(slot));
    this.#slots.push(slot);
    return slot;
  }

  #onReply(slot: Slot, msg: ChildMessage): void {
    slot.heardAt = performance.now();
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
    if ('answers' in msg) for (const answer of msg.answers) this.#answered(slot, answer);
    else this.#answered(slot, msg);
    this.#dispatch();
  }

  /** A job's answer: the job settles, and the next job of its batch, if any, is the one running. */
  #answered(slot: Slot, msg: JobAnswer): void {
    const job = slot.job;
    if (!job || job.id !== msg.id) return;
    this.#finish(slot, job);
    if (slot.demoted) this.#promote(slot);
    const next = slot.followers.shift();
    if (next) this.#start(slot, next, msg.cpuMs);
    settleAnswer(job, msg);
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
    returnFollowers(slot, this.#queue);
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
      // When no other place is free after it, waiting jobs go with it (a batch); not while a job runs long
      // (shared): batches would then go, one after another, to processes still cold (docs/queries.md).
      const batch = !job.heavy && running + 1 >= this.size && !this.#slots.some((s) => s.job?.shared);
      this.#start(slot, job, slot.idleCpuMs);
      const followers = (slot.followers = batch ? takeFollowers(this.#queue) : []);
      slot.child.send(followers.length === 0 ? jobMessage(job) : { jobs: [job, ...followers].map(jobMessage) });
    }
  }

  /** The job is the one its process runs now. */
  #start(slot: Slot, job: Job, cpuMs: number): void {
    slot.job = job;
    job.startedAt = performance.now();
    job.cpuAtStart = cpuMs;
    // A job in flight keeps this process alive until its answer arrives.
    slot.child.channel?.ref();
    this.#shareIn(slot, job, this.shareMs);
  }

  /** Asks #share in `ms`, after that turn's I/O: an answer that has arrived meanwhile is read first. */
  #shareIn(slot: Slot, job: Job, ms: number): void {
    job.slowTimer = setTimeout(() => setImmediate(() => this.#share(slot, job)), ms);
  }

  /**
   * The job has run `shareMs`: its place goes to the next waiting job (unless that one is heavy), which starts
   * beside it and shares the CPU. Jobs shorter than that (nearly all) run `size` at a time, each process's rank
   * arrays alone in a core's caches, and a cheap query waits for a long one `shareMs` at most.
   */
  #share(slot: Slot, job: Job): void {
    if (slot.job !== job) return;
    // A process answers a batch's jobs in groups, at least every FLUSH_MS (query-child.ts): the job that
    // runs long is the one running since the process last said anything.
    const quiet = performance.now() - Math.max(slot.heardAt, job.startedAt!);
    if (quiet < this.shareMs) {
      this.#shareIn(slot, job, this.shareMs - quiet);
      return;
    }
    returnFollowers(slot, this.#queue);
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
    returnFollowers(slot, this.#queue);
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
    returnFollowers(slot, this.#queue);
    this.#stop(slot);
    if (pid !== undefined) this.#events.killed?.(pid);
    job.reject(err);
    this.#dispatch();
  }

  #expire(job: Job): void {
    const { budgetMs } = job;
    // Not started: out of the queue, or out of its batch (its process is told to skip it).
    const batch = this.#slots.find((s) => s.followers.includes(job));
    const list = batch?.followers ?? this.#queue;
    if (list.includes(job)) {
      list.splice(list.indexOf(job), 1);
      if (batch?.child.connected) batch.child.send({ skip: [job.id] });
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
    rejectAll(this.#queue.splice(0));
    const slots = this.#slots.splice(0);
    await Promise.all(
      slots.map((s) => {
        const job = s.job;
        if (job) this.#finish(s, job);
        rejectAll([...(job ? [job] : []), ...s.followers.splice(0)]);
        return killAndWait(s.child);
      }),
    );
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Where areas run SQL (see QueryPool). */
    queryPool: QueryPool;
  }
}
