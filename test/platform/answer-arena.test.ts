// The query process's memory for answers: regions that do not overlap until a reset, the same memory after it.
import { describe, expect, it } from 'vitest';
import { AnswerArena } from '../../src/platform/data/answer-arena.js';

describe('AnswerArena', () => {
  it('hands out regions that never overlap until a reset, and reuses its blocks after one', () => {
    const arena = new AnswerArena(1000, 2);
    const taken = [300, 300, 300, 300, 300].map((size, i) => arena.take(size).fill(i + 1));
    // Each region still holds what was written to it: no later one was laid over it.
    taken.forEach((b, i) => expect(b.every((x) => x === i + 1)).toBe(true));
    expect(arena.heldBytes).toBe(2000);
    // Past its two blocks, and longer than a block: memory of their own, not the blocks'.
    const own = [arena.take(300), arena.take(5000)];
    for (const b of own) expect(b.buffer).not.toBe(taken[0]!.buffer);
    expect(arena.heldBytes).toBe(2000);
    arena.reset();
    const again = arena.take(300);
    expect(again.buffer).toBe(taken[0]!.buffer);
    expect(again.byteOffset).toBe(taken[0]!.byteOffset);
  });
});
