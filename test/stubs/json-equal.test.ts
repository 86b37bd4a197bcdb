// equalToJson's array options, as WireMock's EqualToJsonPattern reads them, at any size.
import { describe, expect, it } from 'vitest';
import { jsonEqual } from '../../src/stubs/pattern-match.js';

describe('equalToJson with ignoreArrayOrder', () => {
  it('matches the same items in any order, at any depth, and nothing more or less', () => {
    expect(jsonEqual([1, { a: [2, 3] }, 'x'], ['x', { a: [3, 2] }, 1], true, false)).toBe(true);
    expect(jsonEqual([1, 1, 2], [1, 2, 2], true, false)).toBe(false);
    expect(jsonEqual([{ a: 1, b: 2 }], [{ b: 2, a: 1 }], true, false)).toBe(true);
    expect(jsonEqual([{ a: 1 }], [{ a: 1, b: 2 }], true, false)).toBe(false);
    expect(jsonEqual(['1'], [1], true, false)).toBe(false);
    expect(jsonEqual([1, 2], [2, 1], false, false)).toBe(false);
  });

  it('with ignoreExtraElements, finds each expected item among more', () => {
    expect(jsonEqual([2, { a: 1 }], [{ a: 1, b: 2 }, 3, 2], true, true)).toBe(true);
    expect(jsonEqual([2, 2], [2, 3], true, true)).toBe(false);
    expect(jsonEqual([{ a: 1 }, { a: 1 }], [{ a: 1, b: 1 }, { a: 2 }], true, true)).toBe(false);
  });

  it('compares 100,000 items in reverse order by counting, not by a search per item', () => {
    const expected = Array.from({ length: 100_000 }, (_, i) => ({ id: i, tags: [i % 7, i % 3] }));
    const actual = [...expected].reverse().map((e) => ({ tags: [...e.tags].reverse(), id: e.id }));
    expect(jsonEqual(expected, actual, true, false)).toBe(true);
    actual[0] = { id: -1, tags: [] };
    expect(jsonEqual(expected, actual, true, false)).toBe(false);
    const numbers = Array.from({ length: 100_000 }, (_, i) => i);
    expect(jsonEqual(numbers, [...numbers].reverse(), true, true)).toBe(true);
  });
});
