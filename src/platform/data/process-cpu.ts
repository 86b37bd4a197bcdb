// The CPU time another process has used, as Linux tells it in /proc.
import { readFileSync } from 'node:fs';

/** CPU time (user + system, ms) a process has used, from /proc (Linux); null elsewhere or once it is gone. */
export function processCpuMs(pid: number | undefined): number | null {
  if (pid === undefined || process.platform !== 'linux') return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, in clock ticks of 10 ms (USER_HZ is 100 on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}
