// equalToJson's array options, as WireMock's EqualToJsonPattern reads them, at any size.
import { describe, expect, it } from 'vitest';
import { jsonEqual } from '../../src/stubs/json-equal.js';

describe('equalToJson with ignoreArrayOrder', () => {
  it('matches the same items in any order, at any depth, and nothing more or less', () => {
    expect(jsonEqual([1, { a: [2, 3] }, 'x'], ['x', { a: [3, 2] }, 1], true, false)).toBe(true);
    expect(jsonEqual([1, 1, 2], [1, 2, 2], true, false)).toBe(false);
    expect(jsonEqual([{ a: 1, b: 2 }], [{ b: 2, a: 1 }], true, false)).toBe(true);
    expect(jsonEqual([{ a: 1 }], [{ a: 1, b: 2 }], true, false)).toBe(false);
    expect(jsonEqual(['1'], [1], true, false)).toBe(false);
    expect(jsonEqual([1, 2], [2, 1], false, false)).toBe(false);
  });

  it('with ignoreExtraElements, pairs items as WireMock does, not the first fit', () => {
    // WireMock 3.13 matches this body (checked against its jar): {"a":1} must leave {"a":1,"b":2} to the other.
    expect(jsonEqual([{ a: 1 }, { a: 1, b: 2 }], [{ a: 1, b: 2 }, { a: 1 }], true, true)).toBe(true);
    expect(jsonEqual([{ a: 1 }, { a: 1 }], [{ a: 1, b: 2 }], true, true)).toBe(false);
    // A chain: each expected item's first fit is the one the next one needs.
    const n = 300;
    const expected = Array.from({ length: n }, (_, i) => ({ t: 1, k: [i] }));
    const actual = Array.from({ length: n }, (_, i) => ({ t: 1, k: i === n - 1 ? [i] : [i, i + 1] }));
    expect(jsonEqual(expected.reverse(), actual, true, true)).toBe(true);
    // 20,000 objects with an id each, in another order: found through the index of their first plain key.
    const many = Array.from({ length: 20_000 }, (_, i) => ({ id: i, name: `n${i}` }));
    const shuffled = [...many].reverse().map((o) => ({ ...o, extra: true }));
    expect(jsonEqual(many, shuffled, true, true)).toBe(true);
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

  it('tells a body nested thousands deep apart by its depth, without recursing into it, and Infinity from null', () => {
    let deep: unknown = 0;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(jsonEqual([1], deep, true, false)).toBe(false);
    expect(jsonEqual([[1]], [deep], true, false)).toBe(false);
    expect(jsonEqual([null], JSON.parse('[1e999]'), true, false)).toBe(false);
    expect(jsonEqual([{ x: null }], JSON.parse('[{"x":-1e400}]'), true, false)).toBe(false);
    expect(jsonEqual([0], [-0], true, false)).toBe(true);
  });

  it('with ignoreExtraElements, finds objects through their first plain key, and compares at most a million values', () => {
    const wanted = Array.from({ length: 1300 }, (_, q) => ({ q }));
    const expected = [{ l: wanted }];
    // Each decoy holds the items in reverse with the last one wrong.
    const decoys = Array.from({ length: 75 }, () => ({ l: [...wanted.slice(0, -1), { q: -1 }].reverse() }));
    expect(jsonEqual(expected, decoys, true, true)).toBe(false);
    expect(jsonEqual(expected, [...decoys, { l: [...wanted].reverse() }], true, true)).toBe(true);
    // Objects without a plain value to look them up by are searched for: 1300 in reverse in each of 75 decoys
    // is about 63 million comparisons. Past the budget, the rest are not compared: no match.
    const nested = wanted.map(({ q }) => ({ q: { v: q } }));
    const nestedDecoys = Array.from({ length: 75 }, () => ({
      l: [...nested.slice(0, -1), { q: { v: -1 } }].reverse(),
    }));
    expect(jsonEqual([{ l: nested }], [...nestedDecoys, { l: [...nested].reverse() }], true, true)).toBe(false);
    // 300 of them in reverse: 45,000 comparisons, within it.
    const some = nested.slice(0, 300);
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
