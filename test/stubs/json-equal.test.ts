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

  it('with ignoreExtraElements, compares at most a million values over the whole body, nested lists included', () => {
    const wanted = Array.from({ length: 1300 }, (_, q) => ({ q }));
    const expected = [{ l: wanted }];
    // Every object holds the items in reverse with the last wrong: each is searched through (about 845,000
    // items, each a comparison of its key), and none matches. Past the budget, the rest are not compared: no
    // match either.
    const actual = Array.from({ length: 75 }, () => ({ l: [...wanted.slice(0, -1), { q: -1 }].reverse() }));
    expect(jsonEqual(expected, actual, true, true)).toBe(false);
    expect(jsonEqual(expected, [...actual, { l: [...wanted].reverse() }], true, true)).toBe(false);
    // 500 items in reverse: 125,000 comparisons, within it.
    const some = wanted.slice(0, 500);
    expect(jsonEqual([{ l: some }], [{ l: [...some].reverse() }], true, true)).toBe(true);
  });

  it('counts each key of each object searched against the same budget', () => {
    const item = (i: number, last: number) =>
      Object.fromEntries(Array.from({ length: 85 }, (_, k) => [`k${k}`, k === 84 ? 2 * i + last : 0]));
    const expected = Array.from({ length: 800 }, (_, i) => item(i, 0));
    const decoys = Array.from({ length: 800 }, (_, i) => item(i, 1));
    // Every decoy is compared with every expected object key by key up to the last: 54 million values.
    expect(jsonEqual(expected, [...decoys, ...expected], true, true)).toBe(false);
    const few = expected.slice(0, 50);
    expect(jsonEqual(few, [...decoys.slice(0, 50), ...few], true, true)).toBe(true);
  });
});
