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
    expect(taken[3]!.bytes).toBe(256 * KiB);
    expect(taken[4]!.bytes).toBe(128 * KiB);
    expect(taken[999]!.bytes).toBe(16 * KiB);
    // Many downloads hold about what 16 KiB each would: the larger chunks of the first few add 2 MiB.
    const held = taken.reduce((sum, t) => sum + t.bytes, 0);
    expect(held).toBeLessThanOrEqual(1000 * 16 * KiB + 2 * 1024 * KiB);
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
