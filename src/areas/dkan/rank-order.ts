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

/** Where each rank's rows start in the column's order: a count per rank, summed. */
function runStarts(col: RankSource): Uint32Array {
  const ranks = col.ranks;
  const starts = new Uint32Array(col.distinct + 2);
  for (let rn = 1; rn < ranks.length; rn++) starts[ranks[rn]! + 1]! += 1;
  for (let r = 1; r < starts.length; r++) starts[r]! += starts[r - 1]!;
  return starts;
}

function columnOrder(col: RankSource, counted?: Uint32Array): ColumnOrder {
  const ranks = col.ranks;
  const starts = counted ?? runStarts(col);
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
  /** The first key's column and where its runs start in `order` (the same as in its own order), if any. */
  first: RankSource | null;
  starts: Uint32Array | null;
}

/**
 * Stable counting sort of `input` rows (read from the end when `backwards`; null: record numbers 1 to n) by
 * one column's ranks, descending when `desc`; `starts` (the column's own runs) saves the counting pass of an
 * ascending sort. Record_number order is read as it is, not made into an array first: a fresh array costs
 * more in page faults than the pass that fills it (about 13 µs per 4 KiB page on a virtual machine).
 */
function sortBy(
  input: Uint32Array | null,
  n: number,
  backwards: boolean,
  col: RankSource,
  desc: boolean,
  starts?: Uint32Array,
): Uint32Array {
  const ranks = col.ranks;
  const top = col.distinct + 1;
  let next: Uint32Array;
  if (starts && !desc) next = starts.slice();
  else {
    // Counting needs no order: every row is counted once whichever way it is read.
    next = new Uint32Array(top + 1);
    for (let i = 0; i < n; i++) {
      const r = ranks[input === null ? i + 1 : input[i]!]!;
      next[(desc ? top - r : r) + 1]! += 1;
    }
    for (let r = 1; r < next.length; r++) next[r]! += next[r - 1]!;
  }
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const at = backwards ? n - 1 - i : i;
    const rn = input === null ? at + 1 : input[at]!;
    const r = ranks[rn]!;
    out[next[desc ? top - r : r]!++] = rn;
  }
  return out;
}

/** Orders of several columns kept per store, up to this many bytes (4 per row each; 16 orders at 1M rows). */
const MAX_ORDER_BYTES = 64 * 1024 * 1024;

/** Where the combined orders of every resource of a store are kept: one bound for all of them. */
export type CombinedOrders = LRUCache<string, Uint32Array>;

export function combinedOrders(): CombinedOrders {
  return new LRUCache<string, Uint32Array>({
    maxSize: MAX_ORDER_BYTES,
    sizeCalculation: (o) => Math.max(1, o.byteLength),
  });
}

export class Orders {
  readonly #columns = new Map<string, ColumnOrder>();
  /** Run starts of columns only counted on, not sorted on (4 bytes per rank). */
  readonly #counted = new Map<string, Uint32Array>();
  /** A count per rank of columns sorted on second (run-page.ts), zero between uses (4 bytes per rank). */
  readonly #scratch = new Map<string, Uint32Array>();
  /** Columns whose rows were counted once without their runs (see `startsOnSecondUse`). */
  readonly #countedOnce = new Set<string>();
  /** Rows read by pages of a key list without its combined order, by the order's key (see `combinedDue`). */
  readonly #spent = new Map<string, number>();
  /**
   * @param rows the resource's rows
   * @param multi where combined orders are kept, shared by the resources of a store (keys carry `prefix`)
   * @param prefix what tells this resource's combined orders from another's in `multi`
   */
  constructor(
    readonly rows: number,
    private readonly multi: CombinedOrders = combinedOrders(),
    private readonly prefix = '',
  ) {}

  /** One column's order and runs (kept as long as the store: 4 bytes per row and per rank). */
  of(col: RankSource): ColumnOrder {
    let o = this.#columns.get(col.name);
    if (!o) {
      o = columnOrder(col, this.#counted.get(col.name));
      this.#columns.set(col.name, o);
      this.#counted.delete(col.name);
    }
    return o;
  }

  /**
   * The column's run starts when they are made, or on its second use; null on the first: the caller then
   * counts rows in a pass over the ranks, which takes none of the fresh memory the runs would (4 bytes per
   * rank: 3.5 MB for a column of 883,000 values, most of its 8-10 ms in page faults here).
   */
  startsOnSecondUse(col: RankSource): Uint32Array | null {
    if (this.#madeStarts(col) === undefined && !this.#countedOnce.has(col.name)) {
      this.#countedOnce.add(col.name);
      return null;
    }
    return this.starts(col);
  }

  /** Whether the column's own order is made already. */
  has(col: RankSource): boolean {
    return this.#columns.has(col.name);
  }

  /** Where each rank's run starts in the column's order, without making the order when it is not made yet. */
  starts(col: RankSource): Uint32Array {
    const made = this.#madeStarts(col);
    if (made) return made;
    const starts = runStarts(col);
    this.#counted.set(col.name, starts);
    return starts;
  }

  #madeStarts(col: RankSource): Uint32Array | undefined {
    return this.#columns.get(col.name)?.starts ?? this.#counted.get(col.name);
  }

  /** A count per rank of the column, all zero: lent to one page at a time, which leaves it zero again. */
  scratch(col: RankSource): Uint32Array {
    let counts = this.#scratch.get(col.name);
    if (!counts) {
      counts = new Uint32Array(col.distinct + 2);
      this.#scratch.set(col.name, counts);
    }
    return counts;
  }

  #idOf(rel: readonly RelKey[]): string {
    return `${this.prefix}\0\0${rel.map((k) => `${k.col?.name ?? ''}${k.desc ? '\0d' : '\0a'}`).join('\0\0')}`;
  }

  /** What names the combined order of two keys (see `twoKeys`), for `combinedDue` and `spend`. */
  combinedId(two: TwoKeys): string {
    const keys = [
      { col: two.first, desc: two.firstDesc },
      { col: two.second, desc: two.desc },
    ];
    return this.#idOf(relative(keys));
  }

  /**
   * Whether pages of two keys (their `combinedId`) should walk their combined order: it is kept already, or
   * pages without it (run-page.ts) have read enough rows to have paid for making it (`COMBINED_READS`). A key
   * list used once never pays for the order; one used again and again gets it, as it did from the start.
   */
  combinedDue(id: string): boolean {
    return this.multi.has(id) || (this.#spent.get(id) ?? 0) >= COMBINED_READS * this.rows;
  }

  /** Counts rows a page of two keys (their `combinedId`) read without their combined order. */
  spend(id: string, rows: number): void {
    this.#spent.set(id, (this.#spent.get(id) ?? 0) + rows);
  }

  /** The walk for sort keys: record_number order, one column's order, or a combined order made once. */
  walk(keys: readonly SortKey[]): Walk {
    const n = this.rows;
    const used = usedKeys(keys);
    const first = used[0];
    if (!first || first.col === null) {
      const desc = first?.desc ?? false;
      return { rows: n, order: null, reverse: desc, first: null, starts: null, at: desc ? (i) => n - i : (i) => i + 1 };
    }
    // Normalised so that the first key ascends: the flipped directions are the same array read backwards.
    const reverse = first.desc;
    const rel = relative(used);
    const lastDesc = rel[rel.length - 1]!.desc;
    let order: Uint32Array;
    if (rel.length === 1 || (rel.length === 2 && rel[1]!.col === null && !lastDesc)) {
      order = this.of(first.col).order;
    } else {
      const id = this.#idOf(rel);
      let made = this.multi.get(id);
      if (!made) {
        // When every run of the first key is short (nearly unique values), each run is sorted in place;
        // else one stable counting pass per key, least significant first.
        made = longestRun(this.starts(first.col)) > SHORT_RUNS ? this.#byPasses(rel) : this.#byRuns(rel);
        this.multi.set(id, made);
      }
      order = made;
    }
    const o = order;
    const starts = this.starts(first.col);
    return { rows: n, order: o, reverse, first: first.col, starts, at: reverse ? (i) => o[n - 1 - i]! : (i) => o[i]! };
  }

  /** From the last column's own order (read backwards when it descends, which turns record_number down too). */
  #byPasses(rel: readonly RelKey[]): Uint32Array {
    const n = this.rows;
    const last = rel[rel.length - 1]!;
    // null: record_number order, read as it is by the first pass.
    let made: Uint32Array | null = last.col === null ? null : this.of(last.col).order;
    let backwards = last.desc;
    for (let k = rel.length - 2; k >= 0; k--) {
      const { col, desc } = rel[k]!;
      made = sortBy(made, n, backwards, col!, desc, k === 0 ? this.starts(col!) : undefined);
      backwards = false;
    }
    return made!;
  }

  /** The first key's order with each run of equal values sorted by the other keys (insertion sorts). */
  #byRuns(rel: readonly RelKey[]): Uint32Array {
    const { order, starts } = this.of(rel[0]!.col!);
    const made = order.slice();
    const rest = rel.slice(1);
    const lastDesc = rest[rest.length - 1]!.desc;
    // The usual second key, a column, compared inline; any other list through the general comparison.
    const only = rest.length === 1 ? rest[0]!.col : null;
    const ranks = only?.ranks;
    const sign = lastDesc ? -1 : 1;
    const compare = (a: number, b: number): number => {
      if (ranks) return (ranks[a]! - ranks[b]! || a - b) * sign;
      for (const k of rest) {
        const d = k.col === null ? a - b : k.col.ranks[a]! - k.col.ranks[b]!;
        if (d !== 0) return k.desc ? -d : d;
      }
      return lastDesc ? b - a : a - b;
    };
    for (let r = 1; r < starts.length - 1; r++) {
      const from = starts[r]!;
      const to = starts[r + 1]!;
      for (let i = from + 1; i < to; i++) {
        const v = made[i]!;
        let j = i - 1;
        while (j >= from && compare(made[j]!, v) > 0) {
          made[j + 1] = made[j]!;
          j--;
        }
        made[j + 1] = v;
      }
    }
    return made;
  }
}

/**
 * The keys that decide an order: nothing after record_number can reorder (it is unique), nor can a column
 * sorted on before (its ties are of one value already); record_number keeps the direction of the last key
 * listed.
 */
function usedKeys(keys: readonly SortKey[]): SortKey[] {
  const cut = keys.findIndex((k) => k.col === null);
  const listed = cut < 0 ? keys : keys.slice(0, cut + 1);
  const used = listed.filter((k, i) => k.col === null || listed.findIndex((e) => e.col === k.col) === i);
  const last = listed[listed.length - 1];
  if (last && used[used.length - 1] !== last) used.push({ col: null, desc: last.desc });
  return used;
}

/**
 * A few rows (record_numbers, any order) sorted in place into the order `walk(keys)` gives them: keys, then
 * record_number in the last key's direction. For a handful of rows this costs less than a walk over all of
 * them, and needs no order of the whole table.
 */
export function sortRows(rows: Uint32Array, keys: readonly SortKey[]): Uint32Array {
  const used = usedKeys(keys);
  const parts = used.map((k) => ({ ranks: k.col?.ranks ?? null, sign: k.desc ? -1 : 1 }));
  // No column: record_number ascending. After the keys, record_number in the last key's direction.
  const tie = used[used.length - 1]?.desc ? -1 : 1;
  return rows.sort((a, b) => {
    for (const { ranks, sign } of parts) {
      const d = ranks === null ? a - b : ranks[a]! - ranks[b]!;
      if (d !== 0) return d * sign;
    }
    return (a - b) * tie;
  });
}

/** Two sort keys: the first a column, the second a column or record_number (null); ties by record_number, `desc`. */
export interface TwoKeys {
  first: RankSource;
  firstDesc: boolean;
  second: RankSource | null;
  desc: boolean;
}

/**
 * The keys as two, when they decide the order with two and `walk` would make a combined order of every row
 * for them (run-page.ts pages them without one); else null.
 */
export function twoKeys(keys: readonly SortKey[]): TwoKeys | null {
  const used = usedKeys(keys);
  if (used.length !== 2) return null;
  const [a, b] = used as [SortKey, SortKey];
  if (a.col === null || (b.col === null && b.desc === a.desc)) return null;
  return { first: a.col, firstDesc: a.desc, second: b.col, desc: b.desc };
}

/** A sort key relative to the first one (which then ascends). */
interface RelKey {
  col: RankSource | null;
  desc: boolean;
}

/** The used keys relative to the first: all directions flipped give the same order read backwards. */
const relative = (used: readonly SortKey[]): RelKey[] =>
  used.map((k) => ({ col: k.col, desc: k.desc !== used[0]!.desc }));

/**
 * Rows read per row of the resource, by pages without a combined order, before it is made: making it writes
 * each row into fresh memory once per key, which costs far more than a read (about 50 ms at 1M rows here,
 * where a page without it reads 1M rows in 2-3 ms).
 */
const COMBINED_READS = 16;

/** A first key whose runs are all this long or shorter has each run sorted instead of whole passes. */
const SHORT_RUNS = 64;

function longestRun(starts: Uint32Array): number {
  let most = 0;
  for (let r = 1; r < starts.length - 1; r++) most = Math.max(most, starts[r + 1]! - starts[r]!);
  return most;
}

/**
 * At most this many kept rows are sorted by themselves instead of walking an order of all the rows: sorting
 * k rows costs about k log k steps, a walk up to one step per row (and, the first time, passes over every row
 * to make the order).
 */
export const fewRows = (rows: number): number => Math.min(4096, rows >> 6);

/** The rows kept: keep[ranks[rn]] is 1 (ranks null: keep[rn]), in record_number order. */
export function keptRows(ranks: Uint32Array | null, keep: Uint8Array, count: number): Uint32Array {
  const out = new Uint32Array(count);
  let k = 0;
  const n = ranks === null ? keep.length - 1 : ranks.length - 1;
  for (let rn = 1; rn <= n && k < count; rn++) if (keep[ranks === null ? rn : ranks[rn]!] === 1) out[k++] = rn;
  return out;
}

/** Rows `offset` to `offset + limit - 1` of a few rows in the order of the sort keys. */
export function fewPage(rows: Uint32Array, keys: readonly SortKey[], offset: number, limit: number): number[] {
  return Array.from(sortRows(rows, keys).subarray(offset, Math.min(rows.length, offset + limit)));
}
