// What the query executor (query-pool.ts) keeps of a job and of each of its processes, and what they say.
import type { ChildProcess } from 'node:child_process';
import { TASKS, type Delivered, type TaskInput, type TaskName, type TaskResult } from '../../query-tasks.js';
import type { FixtureStore } from './fixture-store.js';
import { WorkBudgetError } from './work-budget-error.js';

export interface Job {
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
  /** CPU time (ms) its process had used when the job started: what the process said when it was last idle. */
  cpuAtStart?: number;
  /** Set once the job runs longer than `slowMs`: it no longer holds one of the `size` places. */
  slow: boolean;
  /** Set once the job runs longer than `shareMs`: the next job starts beside it. */
  shared: boolean;
  /** Waits behind the jobs that are not (runTask). */
  heavy: boolean;
  slowTimer?: NodeJS.Timeout;
  /** Slices of a long answer received so far (query-child.ts sends bytes over SLICE_BYTES in slices). */
  parts: Uint8Array[];
}

export interface Slot {
  child: ChildProcess;
  ready: boolean;
  job: Job | null;
  /**
   * Jobs sent with the running one, in one message, to run after it in this order (a batch): when every place
   * is taken, waiting jobs go to a process that frees up a few at a time (takeFollowers).
   */
  followers: Job[];
  /** The process runs at the slow jobs' CPU priority (it ran one that turned slow). */
  demoted: boolean;
  /** CPU time (ms) the process had used when it sent its last message (at the end of a job, or of a few). */
  idleCpuMs: number;
  /** When the process last sent a message (performance.now()). */
  heardAt: number;
}

/** Resolves the job with what compute returns, or rejects it with what it throws. */
export function settle(job: Job, compute: () => unknown): void {
  try {
    job.resolve(compute());
  } catch (err) {
    job.reject(err);
  }
}

/** A task's result as its caller gets it (Delivered): bytes as a list of parts. */
export const delivered = (result: unknown): unknown => (result instanceof Uint8Array ? [result] : result);

/**
 * What a query process says to the server. Each message but a slice says how much CPU time the process has
 * used so far (`cpuMs`), so that a job's own cost is known without reading /proc for every job.
 */
export type ChildMessage =
  | { ready: true; cpuMs: number }
  | { answers: JobAnswer[]; cpuMs: number }
  | { idle: true; cpuMs: number }
  | { id: number; slice: Uint8Array }
  | JobAnswer;

/** One job's answer: its result, or that the store's file is another generation (stale), or its error. */
export interface JobAnswer {
  id: number;
  cpuMs: number;
  result?: unknown;
  /** The result was bytes, sent before this message in slices. */
  sliced?: true;
  stale?: boolean;
  error?: { message: string; code?: string };
}

/** What the server sends a query process for one job. */
export interface JobMessage {
  id: number;
  path: string;
  fingerprint: string;
  task: TaskName;
  input: unknown;
}

export const jobMessage = (job: Job): JobMessage => ({
  id: job.id,
  path: job.path,
  fingerprint: job.fingerprint,
  task: job.task,
  input: job.input,
});

/** A task run on the server's own connection (a store without a file, a closed pool, a stale answer). */
export function runInline<N extends TaskName>(
  store: FixtureStore,
  task: N,
  input: TaskInput<N>,
): Delivered<TaskResult<N>> {
  return delivered((TASKS[task] as (s: FixtureStore, i: unknown) => unknown)(store, input)) as Delivered<TaskResult<N>>;
}

/** Jobs that will not run: a closing executor answers them busy. */
export function rejectAll(jobs: readonly Job[]): void {
  for (const job of jobs) {
    clearTimeout(job.timer);
    job.reject(new WorkBudgetError(0, false));
  }
}

/** Kills a query process and resolves once it has exited. */
export function killAndWait(child: ChildProcess): Promise<void> | undefined {
  if (child.exitCode !== null || child.signalCode !== null) return undefined;
  return new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    // Referenced again, or an idle event loop would end before the exit is seen.
    child.ref();
    child.kill('SIGKILL');
  });
}

/** Settles a job with its process's answer. */
export function settleAnswer(job: Job, msg: JobAnswer): void {
  if (msg.stale) {
    // The file on disk is a newer generation already: the request's own (older) store answers it.
    settle(job, () => runInline(job.store, job.task, job.input as never));
  } else if (msg.error) {
    job.reject(Object.assign(new Error(msg.error.message), { code: msg.error.code }));
  } else {
    job.resolve(msg.sliced ? job.parts : delivered(msg.result));
  }
}

/**
 * Jobs at most that go to a process behind the one it starts, in one message, when every place is taken:
 * it answers them in a few messages too (query-child.ts), so the server and the process switch a few times
 * per batch instead of twice per job (docs/queries.md).
 */
export const MAX_FOLLOWERS = 7;

/**
 * The waiting jobs that follow one to its process: from the front of the queue, up to MAX_FOLLOWERS, none
 * heavy (a join may run out its budget: it neither leads a batch nor follows in one). Followers still waiting
 * when the job has run `shareMs` come back to the queue (QueryPool#share).
 */
export function takeFollowers(queue: Job[]): Job[] {
  const followers: Job[] = [];
  while (followers.length < MAX_FOLLOWERS && queue.length > 0 && !queue[0]!.heavy) followers.push(queue.shift()!);
  return followers;
}

/** The jobs that were to run after the slot's job go back to the front of the queue, in their order. */
export function returnFollowers(slot: Slot, queue: Job[]): void {
  const back = slot.followers.splice(0);
  if (back.length === 0) return;
  queue.unshift(...back);
  if (slot.child.connected) slot.child.send({ skip: back.map((j) => j.id) });
}
