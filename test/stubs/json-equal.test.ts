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

  it('tells a body nested thousands deep apart without walking it, and Infinity from null', () => {
    let deep: unknown = 0;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(jsonEqual([1], deep, true, false)).toBe(false);
    expect(jsonEqual([[1]], [deep], true, false)).toBe(false);
    expect(jsonEqual([null], JSON.parse('[1e999]'), true, false)).toBe(false);
    expect(jsonEqual([{ x: null }], JSON.parse('[{"x":-1e400}]'), true, false)).toBe(false);
    expect(jsonEqual([0], [-0], true, false)).toBe(true);
  });

  it('with ignoreExtraElements, searches at most a million items over the whole body, nested lists included', () => {
    const wanted = Array.from({ length: 1300 }, (_, q) => ({ q }));
    const expected = [{ l: wanted }];
    // Every object holds the items in reverse with the last wrong: each is searched through (845,000
    // comparisons), and none matches. Past the million, the rest are not compared: no match either.
    const actual = Array.from({ length: 75 }, () => ({ l: [...wanted.slice(0, -1), { q: -1 }].reverse() }));
    expect(jsonEqual(expected, actual, true, true)).toBe(false);
    const right = { l: [...wanted].reverse() };
    expect(jsonEqual(expected, [right, ...actual], true, true)).toBe(true);
    expect(jsonEqual(expected, [...actual, right], true, true)).toBe(false);
  });
});
