// The inner loop of the rank path's pages (run-page.ts): the kept rows along an array of record_numbers,
// from an offset. The rows before the page are counted without a branch per row: a filter that keeps a
// third of the rows mispredicts about every third branch, and those rows are most of what a deep page
// reads. Only the page's own rows are then tested one by one.

/**
 * Row rn is kept when keep[rn] is 1 (lookup null), or keep[lookup[rn]] is 1 (a condition on one column); keep
 * null: every row is. Every byte of `keep` is 0 or 1: rows are counted by adding them up.
 */
export interface KeptBytes {
  keep: Uint8Array | null;
  lookup: Uint32Array | null;
}

/** Rows `passed` over before the page, and how many entries of the array were read in all. */
export interface Scanned {
  passed: number;
  read: number;
}

/**
 * Appends to `out` the kept rows of `rows` (record_numbers 1 to `length` in order when null), read from the
 * end when `desc`, past the first `skip` of them, until `out` holds `end` rows. With `only`, a row counts
 * only when only.ranks[rn] is only.rank as well.
 */
export function scanKept(
  rows: Uint32Array | null,
  length: number,
  desc: boolean,
  kept: KeptBytes,
  skip: number,
  out: number[],
  end: number,
  only: { ranks: Uint32Array; rank: number } | null = null,
): Scanned {
  // Entry j is read at base + step * j: one loop for both directions, with no test of `desc` in it.
  const base = desc ? length - 1 : 0;
  const step = desc ? -1 : 1;
  const { keep, lookup } = kept;
  let j = 0;
  let left = skip;
  if (left > 0) {
    if (only !== null) {
      const { ranks, rank } = only;
      for (; left > 0 && j < length; j++) {
        const rn = rows === null ? base + step * j + 1 : rows[base + step * j]!;
        const k = keep === null ? 1 : keep[lookup === null ? rn : lookup[rn]!]!;
        left -= k & (ranks[rn] === rank ? 1 : 0);
      }
    } else if (keep === null) {
      j = Math.min(left, length);
      left -= j;
    } else if (rows === null) {
      if (lookup === null) for (; left > 0 && j < length; j++) left -= keep[base + step * j + 1]!;
      else for (; left > 0 && j < length; j++) left -= keep[lookup[base + step * j + 1]!]!;
    } else if (lookup === null) {
      for (; left > 0 && j < length; j++) left -= keep[rows[base + step * j]!]!;
    } else {
      for (; left > 0 && j < length; j++) left -= keep[lookup[rows[base + step * j]!]!]!;
    }
  }
  for (; j < length && out.length < end; j++) {
    const rn = rows === null ? base + step * j + 1 : rows[base + step * j]!;
    const k = keep === null || keep[lookup === null ? rn : lookup[rn]!] === 1;
    if (k && (only === null || only.ranks[rn] === only.rank)) out.push(rn);
  }
  return { passed: skip - left, read: j };
}
