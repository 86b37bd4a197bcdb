import { describe, expect, it } from 'vitest';
import { ownCpuMs, processCpuMs } from '../../src/platform/data/process-cpu.js';

// A query process reports ownCpuMs with each answer; the parent reads the same process in /proc when a job
// may have turned slow or be sharing its place, and takes the difference. Both must be one clock, fine
// enough for a few milliseconds, or a job's cost is misjudged.
describe.runIf(process.platform === 'linux')('ownCpuMs', () => {
  it('reads the clock /proc gives for this process: never ahead of a later read, never behind an earlier one', () => {
    let spin = 0;
    const steps: number[] = [];
    for (let round = 0; round < 400; round++) {
      const before = ownCpuMs();
      const fromProc = processCpuMs(process.pid)!;
      const after = ownCpuMs();
      // getrusage gives user and system time each cut to microseconds, /proc the sum in nanoseconds.
      expect(before).toBeLessThanOrEqual(fromProc + 0.005);
      expect(fromProc).toBeLessThanOrEqual(after + 0.005);
      steps.push(after);
      for (let i = 0; i < 20_000; i++) spin += Math.sqrt(i + round);
    }
    expect(spin).toBeGreaterThan(0);
    // Finer than /proc/<pid>/stat's 10 ms ticks: readings between them.
    expect(steps.filter((t) => Math.abs(t / 10 - Math.round(t / 10)) > 0.01).length).toBeGreaterThan(200);
  });

  it('is null for a process that does not exist', () => {
    expect(processCpuMs(2 ** 22 + 12_345)).toBeNull();
  });
});
