// The CPU time a process has used, as Linux tells it in /proc: read for another process, or computed for
// this one on the same clock.
import { readFileSync } from 'node:fs';

/** Clock ticks in /proc are 10 ms (USER_HZ is 100 on Linux; proc_pid_stat(5)). */
const TICK_US = 10_000;

/** CPU time (user + system, ms) a process has used, from /proc (Linux); null elsewhere or once it is gone. */
export function processCpuMs(pid: number | undefined): number | null {
  if (pid === undefined || process.platform !== 'linux') return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, in clock ticks.
    return (Number(fields[11]) + Number(fields[12])) * (TICK_US / 1000);
  } catch {
    return null;
  }
}

/**
 * This process's CPU time as processCpuMs would read it from another: /proc's utime and stime are
 * getrusage's counters, each cut down to whole ticks. No file is opened, so it is cheap enough for every
 * job of a query process (reading /proc costs about 50 µs here).
 */
export function ownCpuMs(): number {
  const used = process.cpuUsage();
  return (Math.floor(used.user / TICK_US) + Math.floor(used.system / TICK_US)) * (TICK_US / 1000);
}
