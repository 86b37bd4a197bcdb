// The download read-ahead budget (files.ts): a lone download reads in large chunks, many share the budget.
import { describe, expect, it } from 'vitest';
import { ReadAhead } from '../../src/areas/archive/files.js';

const KiB = 1024;

describe('ReadAhead', () => {
  it('gives a lone download the largest chunk', () => {
    const ahead = new ReadAhead();
    const one = ahead.take();
    expect(one.bytes).toBe(256 * KiB);
    one.release();
    expect(ahead.active).toBe(0);
  });

  it('shares the budget among downloads in flight, never below the smallest chunk', () => {
    const ahead = new ReadAhead();
    const taken = Array.from({ length: 1000 }, () => ahead.take());
    expect(taken.slice(0, 9).map((t) => t.bytes / KiB)).toEqual([256, 128, 64, 64, 32, 32, 32, 32, 16]);
    expect(taken[999]!.bytes).toBe(16 * KiB);
    // Many downloads hold about what 16 KiB each would: the larger chunks of the first few add half a MiB.
    const held = taken.reduce((sum, t) => sum + t.bytes, 0);
    expect(held).toBe(1000 * 16 * KiB + 512 * KiB);
    for (const t of taken) t.release();
    expect(ahead.active).toBe(0);
    expect(ahead.take().bytes).toBe(256 * KiB);
  });

  it('counts a release once, however often it is called', () => {
    const ahead = new ReadAhead();
    const a = ahead.take();
    const b = ahead.take();
    a.release();
    a.release();
    expect(ahead.active).toBe(1);
    b.release();
    expect(ahead.active).toBe(0);
  });
});
