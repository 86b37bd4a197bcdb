// equalToJson's comparison, as WireMock's EqualToJsonPattern (JsonUnit) makes it: numbers by value, lists in
// order or not, extra fields and items allowed or not, bounded in work whatever the body.
import { isObject } from './errors.js';
import { shapeOf } from './json-shape.js';

/**
 * Values compared at most in one whole comparison (each object's keys, each list's items, at any depth): past
 * it, no match. Matching objects in any order with extra elements searches (each may match more than one
 * item), and a search's every comparison counts: 800 objects of 85 keys searched through 800 others held every
 * client 2.9 s while counting searches alone. A body of 1 MiB has fewer values than this in order.
 */
const MAX_WORK = 1_000_000;
/** What looking at one candidate of a search costs in that budget: a value's comparison costs one. */
const SEARCH_STEP = 4;

/**
 * Whether two arrays hold the same items in any order (their items' order inside ignored too). Each item is
 * named by a number, equal items by the same one (a tree's canonical form): a list by its items' numbers
 * sorted, an object by its keys sorted with their values' numbers. So the work is one visit per value, where
 * comparing item by item was quadratic (100,000 items in reverse order held every client 13 s). Values of
 * different depths differ: a body deeper than the expected value (it could be thousands deep) is told apart by
 * its depth, counted once with a stack of its own (json-shape.ts), before any recursion.
 */
function sameItems(expected: unknown[], actual: unknown[]): boolean {
  if (shapeOf(actual).depth !== shapeOf(expected).depth) return false;
  const names = new Map<string, number>();
  const counts = new Map<number, number>();
  for (const a of actual) {
    const key = canonicalName(a, names);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  for (const e of expected) {
    const key = canonicalName(e, names);
    const left = counts.get(key) ?? 0;
    if (left === 0) return false;
    counts.set(key, left - 1);
  }
  return true;
}

/** The number naming a value's canonical form among `names` (see sameItems). */
function canonicalName(v: unknown, names: Map<string, number>): number {
  let form: string;
  if (Array.isArray(v)) form = `[${v.map((x) => canonicalName(x, names)).sort((a, b) => a - b)}]`;
  else if (isObject(v))
    form = `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalName(v[k], names)}`)
      .join(',')}}`;
  // The type, then the value as `===` tells values apart (1 and 1.0 alike; Infinity is not null).
  else form = `${typeof v}:${v === null ? 'null' : String(v)}`;
  let name = names.get(form);
  if (name === undefined) {
    name = names.size;
    names.set(form, name);
  }
  return name;
}

/** JSON equality as WireMock's EqualToJsonPattern (JsonUnit): numbers by value, options for arrays and extra fields. */
export function jsonEqual(
  expected: unknown,
  actual: unknown,
  anyOrder: boolean,
  extra: boolean,
  budget = { left: MAX_WORK },
): boolean {
  if (--budget.left < 0) return false;
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return false;
    if (!extra && actual.length !== expected.length) return false;
    if (!anyOrder) {
      // ignoreExtraElements also ignores extra array items (JsonUnit's IGNORING_EXTRA_ARRAY_ITEMS).
      return expected.every((e, i) => i < actual.length && jsonEqual(e, actual[i], anyOrder, extra, budget));
    }
    // Each expected element takes a distinct actual one. Without extra elements that is equality of the two
    // multisets (sameItems).
    if (!extra) return sameItems(expected, actual);
    return pairedUp(expected, actual, (e, a) => jsonEqual(e, a, anyOrder, extra, budget), budget);
  }
  if (isObject(expected)) {
    if (!isObject(actual)) return false;
    const keys = Object.keys(expected);
    if (!extra && Object.keys(actual).length !== keys.length) return false;
    return keys.every((k) => Object.hasOwn(actual, k) && jsonEqual(expected[k], actual[k], anyOrder, extra, budget));
  }
  return expected === actual;
}

/**
 * Whether every expected item can take an actual item of its own that it matches (with extra elements, one
 * expected object may match several actual ones, and the first that fits may be the one another needs, so
 * items are paired up by augmenting paths, as a bipartite matching: `[{"a":1},{"a":1,"b":2}]` takes
 * `[{"a":1,"b":2},{"a":1}]`, as WireMock finds). Plain values pair by count. Every item looked at counts
 * against the budget.
 */
function pairedUp(
  expected: unknown[],
  actual: unknown[],
  fits: (e: unknown, a: unknown) => boolean,
  budget: { left: number },
): boolean {
  const plain = new Map<unknown, number>();
  const objects: number[] = [];
  actual.forEach((a, k) => {
    if (typeof a === 'object' && a !== null) objects.push(k);
    else plain.set(a, (plain.get(a) ?? 0) + 1);
  });
  const wanted: unknown[] = [];
  for (const e of expected) {
    if (typeof e === 'object' && e !== null) wanted.push(e);
    else {
      const left = plain.get(e) ?? 0;
      if (left === 0) return false;
      plain.set(e, left - 1);
    }
  }
  const m = objects.length;
  // Whether a pair fits, asked once.
  const known = new Map<number, boolean>();
  const pairFits = (i: number, j: number): boolean => {
    const key = i * m + j;
    let f = known.get(key);
    if (f === undefined) {
      f = fits(wanted[i], actual[objects[j]!]);
      known.set(key, f);
    }
    return f;
  };
  const candidates = candidatesOf(wanted, actual, objects, budget);
  return augmented(wanted.length, m, candidates, pairFits, budget);
}

/**
 * For each expected object, the actual objects it can fit (their places in `objects`): those with the same
 * value under its first key of a plain value (an id, mostly), found through an index of that key built once;
 * all of them for a list, or an object without such a key.
 */
function candidatesOf(wanted: unknown[], actual: unknown[], objects: number[], budget: { left: number }): number[][] {
  const m = objects.length;
  const all = Array.from({ length: m }, (_, j) => j);
  const byKey = new Map<string, Map<unknown, number[]>>();
  return wanted.map((e): number[] => {
    if (Array.isArray(e)) return all;
    const entry = Object.entries(e as object).find(([, v]) => typeof v !== 'object' || v === null);
    if (!entry) return all;
    const [key, value] = entry;
    let index = byKey.get(key);
    if (!index) {
      // Built once per key, counted in the budget as a look at every object.
      budget.left -= m;
      if (budget.left < 0) return [];
      index = new Map();
      for (let j = 0; j < m; j++) {
        const a = actual[objects[j]!] as Record<string, unknown>;
        if (Array.isArray(a) || !Object.hasOwn(a, key)) continue;
        const list = index.get(a[key]);
        if (list) list.push(j);
        else index.set(a[key], [j]);
      }
      byKey.set(key, index);
    }
    return index.get(value) ?? [];
  });
}

/**
 * Whether each of `n` expected items can hold an actual object of its own among its candidates, given whether
 * a pair fits: an augmenting path from each item in turn (Kuhn's algorithm), depth first with a stack of its
 * own, as paths can be long.
 */
function augmented(
  n: number,
  m: number,
  candidates: number[][],
  fits: (i: number, j: number) => boolean,
  budget: { left: number },
): boolean {
  // Which expected item holds each actual object; which search last looked at it.
  const owner = new Int32Array(m).fill(-1);
  const seen = new Int32Array(m).fill(-1);
  for (let start = 0; start < n; start++) {
    const items = [start];
    const next = [0];
    const took: number[] = [];
    let paired = false;
    while (items.length > 0 && !paired) {
      const d = items.length - 1;
      const i = items[d]!;
      const list = candidates[i]!;
      let at = next[d]!;
      let j = -1;
      for (; at < list.length; at++) {
        budget.left -= SEARCH_STEP;
        if (budget.left < 0) return false;
        if (seen[list[at]!] !== start && fits(i, list[at]!)) {
          j = list[at]!;
          break;
        }
      }
      if (j < 0) {
        items.pop();
        next.pop();
        continue;
      }
      next[d] = at + 1;
      seen[j] = start;
      took[d] = j;
      if (owner[j]! < 0) {
        for (let k = 0; k <= d; k++) owner[took[k]!] = items[k]!;
        paired = true;
      } else {
        items.push(owner[j]!);
        next.push(0);
      }
    }
    if (!paired) return false;
  }
  return true;
}
