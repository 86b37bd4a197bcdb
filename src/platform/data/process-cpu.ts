// The CPU time a process's main thread (where a query process runs its jobs) has used, as Linux counts it:
// read for another process in /proc, or asked of the kernel for this one, on the same clock.
import { readFileSync } from 'node:fs';

/**
 * CPU time (ms) the main thread of a process has run, from /proc/<pid>/schedstat (its first field, in
 * nanoseconds: the scheduler's own sum; Linux); null elsewhere or once the process is gone. /proc/<pid>/stat
 * counts in 10 ms ticks, too coarse for a job's few milliseconds.
 */
export function processCpuMs(pid: number | undefined): number | null {
  if (pid === undefined || process.platform !== 'linux') return null;
  try {
    const stat = readFileSync(`/proc/${pid}/schedstat`, 'latin1');
    return Number(stat.slice(0, stat.indexOf(' '))) / 1e6;
  } catch {
    return null;
  }
}

/**
 * This thread's CPU time as processCpuMs reads it from another process: getrusage(RUSAGE_THREAD) splits the
 * same scheduler sum into user and system time. No file is opened, so it is cheap enough for every answer of
 * a query process (reading /proc costs 15-50 µs here). Node before 22.19 lacks threadCpuUsage: /proc then.
 */
export function ownCpuMs(): number {
  if (typeof process.threadCpuUsage !== 'function') return processCpuMs(process.pid) ?? 0;
  const used = process.threadCpuUsage();
  return (used.user + used.system) / 1000;
}
