import { describe, expect, it } from 'vitest';
import { ownCpuMs, processCpuMs } from '../../src/platform/data/process-cpu.js';

// A query process reports ownCpuMs with each answer; the parent reads the same process in /proc when a job
// may have turned slow, and takes the difference. Both must be one clock, or a job's cost is misjudged.
describe.runIf(process.platform === 'linux')('ownCpuMs', () => {
  it('reads the clock /proc gives for this process: never ahead of a later read, never behind an earlier one', () => {
    let seen = 0;
    let spin = 0;
    // Enough work to cross many 10 ms ticks of user time, and system time through the reads themselves.
    for (let round = 0; round < 400; round++) {
      const before = ownCpuMs();
      const fromProc = processCpuMs(process.pid)!;
      const after = ownCpuMs();
      expect(before).toBeLessThanOrEqual(fromProc);
      expect(fromProc).toBeLessThanOrEqual(after);
      expect(before % 10).toBe(0);
      seen = after;
      for (let i = 0; i < 20_000; i++) spin += Math.sqrt(i + round);
    }
    expect(spin).toBeGreaterThan(0);
    expect(seen).toBeGreaterThan(0);
  });
});
