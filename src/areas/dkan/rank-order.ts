// Row orders for the rank path (ranked.ts): a query's sort keys become one array of row numbers in exactly
// the order the SQL would give (keys, then record_number in the last key's direction), made by stable
// counting sorts on the keys' rank arrays and kept per column list, like an index SQLite would build.
import { LRUCache } from 'lru-cache';

/** What an order needs of a column: its rank array and how many ranks it has. */
export interface RankSource {
  readonly name: string;
  readonly ranks: Uint32Array;
  readonly distinct: number;
}

export interface SortKey {
  /** null: record_number itself. */
  col: RankSource | null;
  desc: boolean;
}

/** The rows of one column in (rank, record_number) order, with where each rank's run starts. */
export interface ColumnOrder {
  order: Uint32Array;
  /** Rank r's rows are order[starts[r]] to order[starts[r + 1] - 1]. */
  starts: Uint32Array;
}

export function columnOrder(col: RankSource): ColumnOrder {
  const ranks = col.ranks;
  const starts = new Uint32Array(col.distinct + 2);
  for (let rn = 1; rn < ranks.length; rn++) starts[ranks[rn]! + 1]! += 1;
  for (let r = 1; r < starts.length; r++) starts[r]! += starts[r - 1]!;
  const order = new Uint32Array(ranks.length - 1);
  const next = starts.slice();
  for (let rn = 1; rn < ranks.length; rn++) order[next[ranks[rn]!]!++] = rn;
  return { order, starts };
}

/**
 * Rows in the order of `keys`: `at(i)` is the i-th row (0-based). An order made of several columns is
 * walked backwards when all of its directions are flipped, so one array serves both.
 */
export interface Walk {
  rows: number;
  at: (i: number) => number;
  /** The array behind `at` (null: record_number order) and whether it is read from the end. */
  order: Uint32Array | null;
  reverse: boolean;
}

/** Stable counting sort of `input` rows by one column's ranks (descending ranks when `desc`). */
function sortBy(input: Uint32Array, col: RankSource, desc: boolean): Uint32Array {
  const ranks = col.ranks;
  const top = col.distinct + 1;
  const starts = new Uint32Array(top + 1);
  for (let i = 0; i < input.length; i++) {
    const r = ranks[input[i]!]!;
    starts[(desc ? top - r : r) + 1]! += 1;
  }
  for (let r = 1; r < starts.length; r++) starts[r]! += starts[r - 1]!;
  const out = new Uint32Array(input.length);
  for (let i = 0; i < input.length; i++) {
    const rn = input[i]!;
    const r = ranks[rn]!;
    out[starts[desc ? top - r : r]!++] = rn;
  }
  return out;
}

/** Orders of several columns kept per store, up to this many bytes (4 per row each; 16 orders at 1M rows). */
const MAX_ORDER_BYTES = 64 * 1024 * 1024;

export class Orders {
  readonly #columns = new Map<string, ColumnOrder>();
  readonly #multi = new LRUCache<string, Uint32Array>({
    maxSize: MAX_ORDER_BYTES,
    sizeCalculation: (o) => Math.max(1, o.byteLength),
  });

  constructor(readonly rows: number) {}

  /** One column's order and runs (kept as long as the store: 4 bytes per row and per rank). */
  of(col: RankSource): ColumnOrder {
    let o = this.#columns.get(col.name);
    if (!o) {
      o = columnOrder(col);
      this.#columns.set(col.name, o);
    }
    return o;
  }

  /** The walk for sort keys: record_number order, one column's order, or a combined order made once. */
  walk(keys: readonly SortKey[]): Walk {
    const n = this.rows;
    // Nothing after record_number can reorder: it is unique.
    const cut = keys.findIndex((k) => k.col === null);
    const used = cut < 0 ? keys : keys.slice(0, cut + 1);
    const first = used[0];
    if (!first || first.col === null) {
      const desc = first?.desc ?? false;
      return { rows: n, order: null, reverse: desc, at: desc ? (i) => n - i : (i) => i + 1 };
    }
    // Normalised so that the first key ascends: the flipped directions are the same array read backwards.
    const reverse = first.desc;
    const rel = used.map((k) => ({ col: k.col, desc: k.desc !== reverse }));
    const lastDesc = rel[rel.length - 1]!.desc;
    let order: Uint32Array;
    if (rel.length === 1 || (rel.length === 2 && rel[1]!.col === null && !lastDesc)) {
      order = this.of(first.col).order;
    } else {
      const id = rel.map((k) => `${k.col?.name ?? ''}${k.desc ? '\0d' : '\0a'}`).join('\0\0');
      let made = this.#multi.get(id);
      if (!made) {
        // Least significant key first, each pass stable: from the last column's own order when the
        // last key is a column (read backwards when it descends, which also turns record_number down).
        const last = rel[rel.length - 1]!;
        let from = rel.length - 2;
        if (last.col === null) {
          made = new Uint32Array(n);
          for (let i = 0; i < n; i++) made[i] = lastDesc ? n - i : i + 1;
        } else {
          made = this.of(last.col).order.slice();
          if (lastDesc) made.reverse();
        }
        for (let k = from; k >= 0; k--) made = sortBy(made, rel[k]!.col!, rel[k]!.desc);
        this.#multi.set(id, made);
      }
      order = made;
    }
    const o = order;
    return { rows: n, order: o, reverse, at: reverse ? (i) => o[n - 1 - i]! : (i) => o[i]! };
  }
}
