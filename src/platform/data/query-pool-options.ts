// What a query executor (query-pool.ts) is given: its limits, and whom it tells what it did.

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
