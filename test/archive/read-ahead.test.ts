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
    const ahead = new ReadAhead(4096 * KiB, 16 * KiB, 256 * KiB);
    const taken = Array.from({ length: 1000 }, () => ahead.take());
    expect(taken[15]!.bytes).toBe(256 * KiB);
    expect(taken[16]!.bytes).toBe(128 * KiB);
    expect(taken[999]!.bytes).toBe(16 * KiB);
    // What the downloads in flight hold stays near the budget, however many there are.
    const held = taken.reduce((sum, t) => sum + t.bytes, 0);
    expect(held).toBeLessThanOrEqual(32 * 1024 * KiB);
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
