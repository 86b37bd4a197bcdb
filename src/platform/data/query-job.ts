// What the query executor (query-pool.ts) keeps of a job and of each of its processes, and what they say.
import type { ChildProcess } from 'node:child_process';
import type { TaskName } from '../../query-tasks.js';
import type { FixtureStore } from './fixture-store.js';

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
  /** The process runs at the slow jobs' CPU priority (it ran one that turned slow). */
  demoted: boolean;
  /** CPU time (ms) the process had used when it last went idle, as it said in its last message. */
  idleCpuMs: number;
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
  | { idle: true; cpuMs: number }
  | { id: number; slice: Uint8Array }
  | {
      id: number;
      cpuMs: number;
      result?: unknown;
      /** The result was bytes, sent before this message in slices. */
      sliced?: true;
      stale?: boolean;
      error?: { message: string; code?: string };
    };
