// Filters, sorts, pages and counts on the rank arrays prepared at build time (fixtures/dkan/writer.ts):
// every query shape costs about one pass over the rows, however the columns are indexed.
//
// A row's value in a column is replaced by its dense rank in that column's SQL order. A condition is
// evaluated by SQLite itself, with the same SQL fragment the plain query would use, on the column's
// dictionary of distinct values: that yields the ranks it matches (a range for comparisons, a set for
// patterns), so collation, affinity and NULL rules stay exactly SQLite's. Rows are then tested by rank,
// and sorts walk each column's rows in rank order.
import type { FixtureStore } from '../../platform/data/fixture-store.js';
import { RECORD_NUMBER, type Column, type Resource } from './datasets.js';
import type { Condition, ConditionGroup, DkanQuery } from './parse.js';
import { conditionSql } from './sql.js';

/** One column's ranks, read from the database the first time a query uses the column. */
class RankedColumn {
  #ranks: Uint32Array | null = null;
  /** Row numbers in (rank, record_number) order, made on first use. */
  order?: Uint32Array;
  /** Where each rank's rows start in `order` (rank r: starts[r] to starts[r + 1]), made with it. */
  starts?: Uint32Array;

  constructor(
    private readonly read: () => Buffer,
    /** How many distinct values (ranks) the column has. */
    readonly distinct: number,
    /** The dictionary table: one row per rank, the column under its own name. */
    readonly dict: string,
  ) {}

  /** Dense rank (1-based, SQL order) of each row's value, indexed by record_number. */
  get ranks(): Uint32Array {
    if (this.#ranks) return this.#ranks;
    const blob = this.read();
    // Copied into an aligned buffer of its own: the blob's Buffer may sit at any offset of a shared pool.
    const ranks = new Uint32Array(blob.byteLength / 4);
    Buffer.from(ranks.buffer).set(blob);
    this.#ranks = ranks;
    return ranks;
  }
}

export interface RankedResource {
  rows: number;
  columns: Map<string, RankedColumn>;
}

/**
 * The rank arrays of a resource, or null when the database has none for one of its columns. A column's
 * array is read when a query first filters or sorts on it: a new query process pays only for what it uses.
 */
export function rankedResource(store: FixtureStore, resource: Resource): RankedResource | null {
  return store.memo(`dkan:ranked:${resource.distributionId}`, () => {
    const rows = store
      .prepare('SELECT name, distinct_values AS n FROM dkan_ranks WHERE distribution_id = ?')
      .all(resource.distributionId) as { name: string; n: number }[];
    if (rows.length === 0) return null;
    const blob = store.prepare('SELECT ranks FROM dkan_ranks WHERE distribution_id = ? AND name = ?');
    const columns = new Map<string, RankedColumn>();
    for (const r of rows) {
      const position = resource.columns.findIndex((c) => c.name === r.name);
      const read = () => blob.pluck(true).get(resource.distributionId, r.name) as Buffer;
      columns.set(r.name, new RankedColumn(read, r.n, `${resource.table}_d${position}`));
    }
    return { rows: resource.rows, columns };
  });
}

function orderOf(col: RankedColumn): Uint32Array {
  if (col.order) return col.order;
  // Counting sort by rank; rows of one rank stay in record_number order.
  const starts = new Uint32Array(col.distinct + 2);
  for (let rn = 1; rn < col.ranks.length; rn++) starts[col.ranks[rn]! + 1]! += 1;
  for (let r = 1; r < starts.length; r++) starts[r]! += starts[r - 1]!;
  const order = new Uint32Array(col.ranks.length - 1);
  const next = starts.slice();
  for (let rn = 1; rn < col.ranks.length; rn++) order[next[col.ranks[rn]!]!++] = rn;
  col.order = order;
  col.starts = starts;
  return order;
}

/** A single condition on one column: which of its ranks match. */
interface Leaf {
  col: RankedColumn;
  member: Uint8Array;
}

/** How many rows the ranks of a leaf hold: one step per distinct value, not per row. */
function leafCount(leaf: Leaf): number {
  orderOf(leaf.col);
  const starts = leaf.col.starts!;
  let count = 0;
  for (let r = 1; r < leaf.member.length; r++) if (leaf.member[r] === 1) count += starts[r + 1]! - starts[r]!;
  return count;
}

/** The rows of a leaf, read from its column's order run by run, sorted by the query's keys. */
function leafRows(leaf: Leaf, keys: Key[]): Uint32Array {
  const order = orderOf(leaf.col);
  const starts = leaf.col.starts!;
  const rows: number[] = [];
  for (let r = 1; r < leaf.member.length; r++) {
    if (leaf.member[r] !== 1) continue;
    for (let i = starts[r]!; i < starts[r + 1]!; i++) rows.push(order[i]!);
  }
  const lastDesc = keys.length > 0 && keys[keys.length - 1]!.desc;
  const sorted = Uint32Array.from(rows);
  return sorted.sort((a, b) => {
    for (const k of keys) {
      const d = k.col === null ? a - b : k.col.ranks[a]! - k.col.ranks[b]!;
      if (d !== 0) return k.desc ? -d : d;
    }
    return lastDesc ? b - a : a - b;
  });
}

type RowTest = (rn: number) => boolean;

/** The column a sort key stands for, or null when it is not a plain column of the one resource. */
function sortColumn(q: DkanQuery, target: DkanQuery['sorts'][number]['target']): Column | null {
  if (target.kind === 'column') return target.ref.column;
  const e = q.outputs[target.index]?.expr;
  return e?.kind === 'column' ? e.ref.column : null;
}

/** Why the rank path cannot answer a query exactly (the plain SQL path answers it then), or null. */
export function unsupported(q: DkanQuery, ranked: RankedResource): string | null {
  if (q.sources.length !== 1 || q.joins.length > 0) return 'joins';
  if (q.aggregate || q.groupBy.length > 0) return 'groupings';
  const known = (col: Column | null) => col !== null && (col === RECORD_NUMBER || ranked.columns.has(col.name));
  for (const s of q.sorts) if (!known(sortColumn(q, s.target))) return 'sort by an expression or unranked column';
  const walk = (items: (Condition | ConditionGroup)[]): string | null => {
    for (const c of items) {
      if (c.kind === 'group') {
        const inner = walk(c.items);
        if (inner) return inner;
      } else if (c.operator === 'match') return 'match';
      else if (typeof c.value === 'object' && c.value !== null && !Array.isArray(c.value)) return 'column reference';
      else if (c.ref.column === RECORD_NUMBER || !ranked.columns.has(c.ref.column.name))
        return 'record_number or unranked condition';
    }
    return null;
  };
  return walk(q.where);
}

/** One SQL lookup on a dictionary: the first matching rank in an order, or every matching rank. */
export interface DictLookup {
  sql: string;
  params: unknown[];
  /** 'first': one rank or undefined; 'all': a list of ranks. */
  kind: 'first' | 'all';
}

/** Runs lookups in order and gives their results in the same order, on the store's connection. */
export type LookupRunner = (lookups: DictLookup[]) => unknown[];

/**
 * Finds which ranks of a column each condition matches, by the condition's own SQL on the column's
 * dictionary: the SQL is planned first (`lookups`), run wherever the caller runs SQL, then `build` makes
 * the row test from the answers.
 */
class Planner {
  readonly lookups: DictLookup[] = [];
  /** The member set of the last condition built: the whole filter when there is one condition. */
  leaf0: Leaf | null = null;

  constructor(private readonly ranked: RankedResource) {}

  plan(items: (Condition | ConditionGroup)[], joiner: 'and' | 'or'): (results: unknown[]) => RowTest {
    const parts = items.map((c) => (c.kind === 'group' ? this.plan(c.items, c.joiner) : this.leaf(c)));
    return (results) => {
      const tests = parts.map((build) => build(results));
      if (tests.length === 0) return () => true;
      if (tests.length === 1) return tests[0]!;
      return joiner === 'and' ? (rn) => tests.every((t) => t(rn)) : (rn) => tests.some((t) => t(rn));
    };
  }

  private leaf(c: Condition): (results: unknown[]) => RowTest {
    const col = this.ranked.columns.get(c.ref.column.name)!;
    // The dictionary takes the alias of the condition's table, so the condition's own SQL applies to it.
    const dict = `${col.dict} AS ${c.ref.source.sql}`;
    const ident = `${c.ref.source.sql}.${c.ref.column.ident}`;
    const lookup = (sql: string, params: unknown[], kind: DictLookup['kind']): number =>
      this.lookups.push({ sql, params, kind }) - 1;
    /** A run of ranks in the column's order: the first and the last that match. */
    const run = (where: string, values: unknown[], set: 0 | 1) => {
      const first = (dir: 'ASC' | 'DESC') =>
        lookup(
          `SELECT rank FROM ${dict} WHERE ${where} ORDER BY ${ident} ${dir}, rank ${dir} LIMIT 1`,
          values,
          'first',
        );
      return { set, lo: first('ASC'), hi: first('DESC') };
    };
    const runs: { set: 0 | 1; lo: number; hi: number }[] = [];
    let all: number | null = null;
    let startFull = false;
    let invert = false;
    const { sql, params } = conditionSql(c);
    switch (c.operator) {
      case '=':
      case '<':
      case '<=':
      case '>':
      case '>=':
      case 'between':
        // One column against constants under its own order: the matching ranks are one run.
        runs.push(run(sql, params, 1));
        break;
      case 'in':
        for (const p of params) runs.push(run(`${ident} = ?`, [p], 1));
        break;
      case '<>':
      case 'not in':
        // Every non-NULL value except the equal ones, as SQL's three-valued logic has it.
        startFull = true;
        runs.push(run(`${ident} IS NULL`, [], 0));
        for (const p of params) runs.push(run(`${ident} = ?`, [p], 0));
        break;
      case 'is_empty':
      case 'not_empty':
        // is_empty is (NULL or ''): two seeks; not_empty is exactly its complement.
        runs.push(run(`${ident} IS NULL`, [], 1), run(`${ident} = ''`, [], 1));
        invert = c.operator === 'not_empty';
        break;
      default:
        // Patterns: every distinct value is tested once, by SQLite's LIKE.
        all = lookup(`SELECT rank FROM ${dict} WHERE ${sql}`, params, 'all');
    }
    return (results) => {
      const member = new Uint8Array(col.distinct + 1);
      this.leaf0 = { col, member };
      if (startFull) member.fill(1, 1);
      for (const r of runs) {
        const lo = results[r.lo] as number | undefined;
        if (lo !== undefined) member.fill(r.set, lo, (results[r.hi] as number) + 1);
      }
      if (all !== null) for (const rank of results[all] as number[]) member[rank] = 1;
      if (invert) for (let r = 1; r < member.length; r++) member[r] = member[r] ? 0 : 1;
      const ranks = col.ranks;
      return (rn) => member[ranks[rn]!] === 1;
    };
  }
}

interface Key {
  /** null: record_number itself. */
  col: RankedColumn | null;
  desc: boolean;
}

// Runs of equal first-key values up to this size are sorted by the other keys; longer ones are walked
// again in the next key's order, restricted to the run.
const SMALL_RUN = 4096;

/**
 * Rows passing `pass`, in the order of `keys`, ties by record_number in the direction of the last key.
 * Without a filter (`skip` given), whole runs before the page are passed over uncounted: `skip.rows`
 * says how many rows are still to be skipped, and is lowered by what was passed over here.
 */
function* ordered(ranked: RankedResource, keys: Key[], pass: RowTest, skip?: { rows: number }): Generator<number> {
  const [key, ...rest] = keys;
  const n = ranked.rows;
  if (!key || key.col === null) {
    const desc = key?.desc ?? false;
    const from = skip ? Math.min(skip.rows, n) : 0;
    if (skip) skip.rows -= from;
    for (let i = from + 1; i <= n; i++) {
      const rn = desc ? n + 1 - i : i;
      if (pass(rn)) yield rn;
    }
    return;
  }
  const order = orderOf(key.col);
  const ranks = key.col.ranks;
  const at = (i: number) => order[key.desc ? n - 1 - i : i]!;
  if (rest.length === 0) {
    const from = skip ? Math.min(skip.rows, n) : 0;
    if (skip) skip.rows -= from;
    for (let i = from; i < n; i++) {
      const rn = at(i);
      if (pass(rn)) yield rn;
    }
    return;
  }
  const lastDesc = rest[rest.length - 1]!.desc;
  const compare = (a: number, b: number): number => {
    for (const k of rest) {
      const d = k.col === null ? a - b : k.col.ranks[a]! - k.col.ranks[b]!;
      if (d !== 0) return k.desc ? -d : d;
    }
    return lastDesc ? b - a : a - b;
  };
  let i = 0;
  const starts = key.col.starts!;
  while (i < n) {
    const rank = ranks[at(i)]!;
    const size = starts[rank + 1]! - starts[rank]!;
    if (skip && skip.rows >= size) {
      skip.rows -= size;
      i += size;
      continue;
    }
    let end = i;
    const members: number[] = [];
    while (end < n && ranks[at(end)] === rank) {
      const rn = at(end);
      if (pass(rn)) members.push(rn);
      end++;
    }
    if (members.length <= SMALL_RUN) yield* members.sort(compare);
    else yield* ordered(ranked, rest, (rn) => ranks[rn] === rank && pass(rn));
    i = end;
  }
}

export interface RankedPage {
  /** record_numbers of the page, in order. */
  rows: number[];
  count: number;
}

// A single condition matching at most this share of the rows is answered from its own rows, sorted,
// instead of walking the sort order past every row that fails it.
const GATHER_SHARE = 8;

/** The page and the count of a query the rank path supports (see `unsupported`). */
export function rankedPage(ranked: RankedResource, q: DkanQuery, runLookups: LookupRunner): RankedPage {
  let pass: RowTest = () => true;
  let leaf: Leaf | null = null;
  if (q.where.length > 0) {
    const planner = new Planner(ranked);
    const build = planner.plan(q.where, 'and');
    pass = build(runLookups(planner.lookups));
    if (q.where.length === 1 && q.where[0]!.kind === 'condition') leaf = planner.leaf0;
  }
  const keys: Key[] = q.sorts.map((s) => {
    const col = sortColumn(q, s.target)!;
    return { col: col === RECORD_NUMBER ? null : ranked.columns.get(col.name)!, desc: s.desc };
  });
  const matched = leaf ? leafCount(leaf) : q.where.length === 0 ? ranked.rows : null;
  const limit = q.limit ?? Infinity;
  let rows: number[] = [];
  if (q.results && limit > 0) {
    if (leaf && matched! * GATHER_SHARE <= ranked.rows) {
      const all = leafRows(leaf, keys);
      rows = Array.from(all.subarray(Math.min(q.offset, all.length), Math.min(all.length, q.offset + limit)));
    } else {
      // Without a filter, ordered() passes over whole runs before the offset; the rest are skipped here.
      const skip = { rows: q.offset };
      for (const rn of ordered(ranked, keys, pass, q.where.length === 0 ? skip : undefined)) {
        if (skip.rows > 0) skip.rows--;
        else if (rows.push(rn) >= limit) break;
      }
    }
  }
  let count = 0;
  if (q.count) {
    if (matched !== null) count = matched;
    else for (let rn = 1; rn <= ranked.rows; rn++) if (pass(rn)) count++;
  }
  return { rows, count };
}
