// Pages of the rank path (ranked.ts): the kept rows from an offset, read along a walk of the sort keys'
// order; or, for two keys, without any order of every row by both (rank-order.ts would make one). The first
// key's own order is then walked run by run (a run: the rows of one value, in record_number order), whole
// runs before the page are passed by their counts, and only the runs the page falls in are ordered by the
// second key, with a counting pass over each. A first use costs a pass or two over the rows the page
// reaches, instead of a pass per key over every row into a new array (tens of milliseconds at 1M rows).
import { scanKept, type KeptBytes, type Scanned } from './kept-scan.js';
import type { Orders, RankSource, TwoKeys, Walk } from './rank-order.js';

/**
 * Which rows are kept: keep[rn] (col null), keep[col.ranks[rn]], or every row (keep null); 1 is kept.
 * `count`: how many rows are kept in all.
 */
export interface Kept {
  keep: Uint8Array | null;
  col: RankSource | null;
  count: number;
}

/** The part of a run a page wants: its kept rows `skip` to `skip + take - 1`, appended to `out`. */
interface Want {
  skip: number;
  take: number;
  out: number[];
}

/**
 * What paging one run did: the kept rows of the run it passed before the page (all of them if it ended), and
 * the rows and ranks it read, for the cost of going without a combined order (Orders.spend).
 */
type Paged = Scanned;

/**
 * Rows `offset` to `offset + limit - 1` of the kept rows, ordered by `first`, then `second`, then
 * record_number in the second key's direction: the order SQL gives for `ORDER BY first, second`. `read`:
 * how many rows and ranks the page went through.
 */
export function twoKeyPage(
  orders: Orders,
  keys: TwoKeys,
  kept: Kept,
  offset: number,
  limit: number,
): { rows: number[]; read: number } {
  const { order, starts } = orders.of(keys.first);
  const distinct = starts.length - 2;
  const { keep, col } = kept;
  const out: number[] = [];
  let skip = offset;
  let read = 0;
  for (let j = 1; j <= distinct && out.length < limit; j++) {
    const r = keys.firstDesc ? distinct + 1 - j : j;
    const from = starts[r]!;
    const to = starts[r + 1]!;
    read++;
    if (to - from === 1) {
      // One row (a nearly unique first key): in order by itself.
      const rn = order[from]!;
      if (!isKept(kept, rn)) continue;
      if (skip > 0) skip--;
      else out.push(rn);
      continue;
    }
    // How many of the run's rows are kept, when that is known without reading them.
    const known = keep === null ? to - from : col === keys.first ? (keep[r] === 1 ? to - from : 0) : null;
    if (skip >= to - from || (known !== null && skip >= known)) {
      // The page starts past this run: its kept rows are counted (a short run's, as the run is short).
      const passed = known ?? countKept(order, from, to, kept);
      read += known === null ? to - from : 0;
      skip -= passed;
      continue;
    }
    const run = order.subarray(from, to);
    const take = limit - out.length;
    const want = { skip, take, out };
    const paged =
      keys.second === null ? inRecordOrder(run, keys.desc, kept, want) : ofRun(orders, keys, r, run, kept, known, want);
    read += paged.read;
    skip -= paged.passed;
  }
  return { rows: out, read };
}

function countKept(order: Uint32Array, from: number, to: number, kept: Kept): number {
  const { keep } = kept;
  if (keep === null) return to - from;
  const lookup = kept.col?.ranks ?? null;
  let count = 0;
  if (lookup === null) for (let i = from; i < to; i++) count += keep[order[i]!]!;
  else for (let i = from; i < to; i++) count += keep[lookup[order[i]!]!]!;
  return count;
}

const isKept = (kept: Kept, rn: number): boolean =>
  kept.keep === null || kept.keep[kept.col === null ? rn : kept.col.ranks[rn]!] === 1;

/**
 * Kept rows `skip` to `skip + take - 1` of one run of the first key, by the second key, in whichever way
 * reads least: along the second key's own order (about (skip + take) * rows / kept steps, plus making that
 * order the first time), counting the run's rows per rank of the second key (two passes over the run and one
 * over the ranks), or sorting the run's kept rows (a short run).
 */
function ofRun(
  orders: Orders,
  keys: TwoKeys,
  r: number,
  run: Uint32Array,
  kept: Kept,
  known: number | null,
  want: Want,
): Paged {
  const { skip, take } = want;
  const second = keys.second!;
  const rows = keys.first.ranks.length - 1;
  // Unknown: as many as the filter keeps of all the rows.
  const keptHere = Math.max(1, known ?? Math.round((run.length * kept.count) / rows));
  const along = Math.ceil(((skip + take) * rows) / keptHere) + (orders.has(second) ? 0 : rows);
  const counting = 2 * run.length + second.distinct;
  const sorting = 4 * run.length * Math.log2(run.length + 1);
  if (along <= counting && along <= sorting) return alongSecond(orders, keys, r, kept, want);
  if (sorting <= counting) return sortedRun(run, second, keys.desc, kept, want);
  return bySecondKey(orders, run, second, keys.desc, kept, want);
}

/** Along the second key's own order (rank, then record_number; from the end when descending). */
function alongSecond(orders: Orders, keys: TwoKeys, r: number, kept: Kept, want: Want): Paged {
  const order = orders.of(keys.second!).order;
  const only = { ranks: keys.first.ranks, rank: r };
  return scanKept(
    order,
    order.length,
    keys.desc,
    keptBytes(kept),
    want.skip,
    want.out,
    want.out.length + want.take,
    only,
  );
}

/** A short run's kept rows sorted by the second key, then record_number (both descending when `desc`). */
function sortedRun(run: Uint32Array, second: RankSource, desc: boolean, kept: Kept, want: Want): Paged {
  const { skip, take, out } = want;
  const ranks = second.ranks;
  const rows = run.filter((rn) => isKept(kept, rn));
  const sign = desc ? -1 : 1;
  rows.sort((a, b) => (ranks[a]! - ranks[b]! || a - b) * sign);
  for (let i = skip; i < Math.min(rows.length, skip + take); i++) out.push(rows[i]!);
  return { passed: Math.min(skip, rows.length), read: run.length };
}

/** Kept rows of a run in record_number order (descending when `desc`). */
function inRecordOrder(run: Uint32Array, desc: boolean, kept: Kept, want: Want): Paged {
  return scanKept(run, run.length, desc, keptBytes(kept), want.skip, want.out, want.out.length + want.take);
}

const keptBytes = (kept: Kept): KeptBytes => ({ keep: kept.keep, lookup: kept.col?.ranks ?? null });

/**
 * By counting: the run's kept rows are counted per rank of `second`, the ranks the slice covers found from
 * those counts, and one more pass in record_number order puts each of their rows in its place.
 */
function bySecondKey(
  orders: Orders,
  run: Uint32Array,
  second: RankSource,
  desc: boolean,
  kept: Kept,
  want: Want,
): Paged {
  const { skip, take, out } = want;
  const ranks = second.ranks;
  const counts = orders.scratch(second);
  const n = run.length;
  const total = countByRank(run, ranks, keptBytes(kept), counts);
  const read = 2 * n + second.distinct;
  if (total <= skip) {
    clearCounts(counts, run, ranks);
    return { passed: total, read };
  }
  const size = Math.min(take, total - skip);
  // Each rank's count becomes where its rows start among the run's kept rows; the slice spans lo..hi.
  const distinct = second.distinct;
  let at = 0;
  let lo = 0;
  let hi = 0;
  for (let j = 1; j <= distinct; j++) {
    const r = desc ? distinct + 1 - j : j;
    const c = counts[r]!;
    // Only ranks of the run's rows are written: clearCounts zeroes no others.
    if (c === 0) continue;
    counts[r] = at;
    if (at + c > skip) {
      if (lo === 0) lo = r;
      hi = r;
    }
    at += c;
    if (at >= skip + size) break;
  }
  const [min, max] = lo <= hi ? [lo, hi] : [hi, lo];
  const base = out.length;
  out.length = base + size;
  for (let i = 0; i < n; i++) {
    const rn = run[desc ? n - 1 - i : i]!;
    const r = ranks[rn]!;
    if (r < min || r > max || !isKept(kept, rn)) continue;
    const p = counts[r]!++;
    if (p >= skip && p < skip + size) out[base + p - skip] = rn;
  }
  clearCounts(counts, run, ranks);
  return { passed: skip, read };
}

/** Adds each kept row of the run to its rank's count (no branch per row); returns how many were kept. */
function countByRank(run: Uint32Array, ranks: Uint32Array, { keep, lookup }: KeptBytes, counts: Uint32Array): number {
  const n = run.length;
  let total = 0;
  if (keep === null) {
    for (let i = 0; i < n; i++) counts[ranks[run[i]!]!]! += 1;
    return n;
  }
  for (let i = 0; i < n; i++) {
    const rn = run[i]!;
    const k = keep[lookup === null ? rn : lookup[rn]!]!;
    counts[ranks[rn]!]! += k;
    total += k;
  }
  return total;
}

/** Zeroes the counts again: only the run's ranks when the run is short beside the column's ranks. */
function clearCounts(counts: Uint32Array, run: Uint32Array, ranks: Uint32Array): void {
  if (run.length * 4 >= counts.length) counts.fill(0);
  else for (let i = 0; i < run.length; i++) counts[ranks[run[i]!]!] = 0;
}

/**
 * Rows `offset` to `offset + limit - 1` of the walk among those kept: row rn is kept when
 * keep[col.ranks[rn]] is 1 (col null: keep[rn]). One pass in sort order, stopping at the page's end.
 */
export function pageOf(walk: Walk, offset: number, limit: number, keep: Uint8Array, col: RankSource | null): number[] {
  if (col !== null && col === walk.first) return pageOfRuns(walk, offset, limit, keep);
  const out: number[] = [];
  scanKept(walk.order, walk.rows, walk.reverse, { keep, lookup: col?.ranks ?? null }, offset, out, limit);
  return out;
}

/** The same when the condition's column is the first sort key: whole runs of its ranks are kept or passed. */
function pageOfRuns(walk: Walk, offset: number, limit: number, member: Uint8Array): number[] {
  const order = walk.order!;
  const starts = walk.starts!;
  const distinct = starts.length - 2;
  const out: number[] = [];
  let skip = offset;
  for (let j = 1; j <= distinct && out.length < limit; j++) {
    const r = walk.reverse ? distinct + 1 - j : j;
    if (member[r] !== 1) continue;
    const size = starts[r + 1]! - starts[r]!;
    if (skip >= size) {
      skip -= size;
      continue;
    }
    for (let k = skip; k < size && out.length < limit; k++)
      out.push(walk.reverse ? order[starts[r + 1]! - 1 - k]! : order[starts[r]! + k]!);
    skip = 0;
  }
  return out;
}
