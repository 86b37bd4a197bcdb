// Filters, sorts, pages and counts on the rank arrays prepared at build time (fixtures/dkan/writer.ts):
// a query costs at most one pass over the rows, in plain loops, however the columns are indexed.
//
// A row's value in a column is replaced by its dense rank in that column's SQL order. A condition is
// evaluated by SQLite itself, with the same SQL fragment the plain query would use, on the column's
// dictionary of distinct values: that yields the ranks it matches (a range for comparisons), so collation,
// affinity and NULL rules stay exactly SQLite's. Patterns are matched in memory on the texts SQLite gives
// LIKE (like-match.ts). Rows are then tested by rank while walking the order of the sort keys, made once
// per key list and kept (rank-order.ts), or for two keys run by run of the first key's order until such an
// order has paid for itself (run-page.ts); a single condition is counted from its ranks' run lengths.
//
// Memory held per query process and resource: 4 bytes per row for each column used (ranks) and for each
// column sorted on (its order), 4 bytes per rank of each column counted on or sorted on second, and for each
// column a pattern ran on, its LIKE texts (operand bytes + 1 per distinct value, as stored); per store, the
// combined orders of all its resources up to rank-order.ts's bound (64 MiB), made for two keys only once
// pages without one have paid for it (run-page.ts), and the stored JSON of the rows its pages have copied
// (row-cache.ts: 10 bytes per row of each resource paged, and at most 48 MiB of JSON). A query's filter holds
// one byte per row for each level of nesting of its conditions.
import { isAscii } from 'node:buffer';
import { uint32sOfBlob } from '../../../fixtures/dkan/layout.js';
import { computeLikeLines, readStoredLines } from '../../../fixtures/dkan/like-texts.js';
import type { FixtureStore } from '../../platform/data/fixture-store.js';
import { RECORD_NUMBER, type Column, type Resource } from './datasets.js';
import type { Condition, ConditionGroup, DkanQuery } from './parse.js';
import { markLike, type LikeTexts } from './like-match.js';
import {
  Orders,
  combinedOrders,
  fewPage,
  fewRows,
  keptRows,
  twoKeys,
  type RankSource,
  type SortKey,
} from './rank-order.js';
import { pageOf, twoKeyPage, type Kept } from './run-page.js';
import { conditionSql, patternOperand } from './sql.js';

/** One column's ranks, read from the database the first time a query uses the column. */
class RankedColumn implements RankSource {
  #ranks: Uint32Array | null = null;
  #like: LikeTexts | null | undefined;

  constructor(
    readonly name: string,
    private readonly read: () => Buffer,
    private readonly readLike: () => LikeTexts | null,
    /** How many distinct values (ranks) the column has. */
    readonly distinct: number,
    /** The dictionary table: one row per rank, the column under its own name. */
    readonly dict: string,
  ) {}

  /** Dense rank (1-based, SQL order) of each row's value, indexed by record_number. */
  get ranks(): Uint32Array {
    if (this.#ranks) return this.#ranks;
    this.#ranks = uint32sOfBlob(this.read());
    return this.#ranks;
  }

  /**
   * LIKE's operands of the dictionary (like-match.ts), read on the first pattern on the column and kept:
   * about (average operand length + 1) bytes per distinct value. null when they cannot be used.
   */
  get like(): LikeTexts | null {
    if (this.#like === undefined) this.#like = this.readLike();
    return this.#like;
  }
}

export interface RankedResource {
  rows: number;
  columns: Map<string, RankedColumn>;
  /** Row orders by sort keys (rank-order.ts), bounded. */
  orders: Orders;
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
    // A database from before the texts were stored has no such table; they are made as the builder makes them.
    const stored = store.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'dkan_like_texts'").get()
      ? store.prepare(
          'SELECT CAST(text AS BLOB) AS text, marks FROM dkan_like_texts WHERE distribution_id = ? AND name = ?',
        )
      : null;
    const columns = new Map<string, RankedColumn>();
    for (const r of rows) {
      const position = resource.columns.findIndex((c) => c.name === r.name);
      const column = resource.columns[position]!;
      const dict = `${resource.table}_d${position}`;
      const read = () => blob.pluck(true).get(resource.distributionId, r.name) as Buffer;
      const readLike = (): LikeTexts | null => {
        const row = stored?.get(resource.distributionId, r.name) as
          | { text: Buffer | null; marks: Buffer | null }
          | undefined;
        const texts = row
          ? readStoredLines(row.text && textOfBytes(row.text), row.marks, r.n)
          : computeLikeLines(store.db, dict, column.ident, column, r.n);
        if (texts === null) return null;
        // A formatted operand (decimals, MM/DD/YYYY dates) is never NULL; a plain column's is where it is NULL.
        const operand = patternOperand(`${dict}.${column.ident}`, column);
        const nulls = operand.startsWith(`${dict}.`)
          ? (store.prepare(`SELECT rank FROM ${dict} WHERE ${operand} IS NULL`).pluck(true).all() as number[])
          : [];
        return { ...texts, nulls: new Set(nulls) };
      };
      columns.set(r.name, new RankedColumn(r.name, read, readLike, r.n, dict));
    }
    // One bound for the combined orders of all the store's resources (rank-order.ts).
    const multi = store.memo('dkan:combined-orders', combinedOrders);
    return { rows: resource.rows, columns, orders: new Orders(resource.rows, multi, resource.distributionId) };
  });
}

/**
 * A stored text read as its UTF-8 bytes. Most long texts are ASCII (decimals, codes, dates): those become a
 * Latin-1 string, which Node keeps outside V8's heap when it is large; decoding UTF-8 instead builds the
 * string in V8's heap, and for the 7.7 MB text of a 1M-row decimal column that cost 45-70 ms, where the
 * bytes take a few.
 */
function textOfBytes(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

/** Which rows a query's conditions keep: a condition's matching ranks of one column, or a group of them. */
type Filter = { kind: 'leaf'; col: RankedColumn; member: Uint8Array } | { kind: 'and' | 'or'; parts: Filter[] };

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
 * dictionary (patterns: in its LIKE texts): the SQL is planned first (`lookups`), run wherever the caller
 * runs SQL, then `build` makes the filter from the answers.
 */
class Planner {
  readonly lookups: DictLookup[] = [];

  constructor(private readonly ranked: RankedResource) {}

  plan(items: (Condition | ConditionGroup)[], joiner: 'and' | 'or'): (results: unknown[]) => Filter {
    const parts = items.map((c) => (c.kind === 'group' ? this.plan(c.items, c.joiner) : this.leaf(c)));
    return (results) => {
      const built = parts.map((build) => build(results));
      // An empty group is true, as its SQL ('1') is, whatever its joiner.
      if (built.length === 0) return { kind: 'and', parts: [] };
      return built.length === 1 ? built[0]! : { kind: joiner, parts: built };
    };
  }

  private leaf(c: Condition): (results: unknown[]) => Filter {
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
    const member = new Uint8Array(col.distinct + 1);
    let marked = false;
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
      default: {
        // Patterns: searched in the column's LIKE operands held in memory, else tested by SQLite's LIKE.
        const texts = col.like;
        marked = texts !== null && markLike(texts, params[0] as string, member);
        if (!marked) all = lookup(`SELECT rank FROM ${dict} WHERE ${sql}`, params, 'all');
      }
    }
    return (results) => {
      if (marked) return { kind: 'leaf', col, member };
      if (startFull) member.fill(1, 1);
      for (const r of runs) {
        const lo = results[r.lo] as number | undefined;
        if (lo !== undefined) member.fill(r.set, lo, (results[r.hi] as number) + 1);
      }
      if (all !== null) for (const rank of results[all] as number[]) member[rank] = 1;
      if (invert) for (let r = 1; r < member.length; r++) member[r] = member[r] ? 0 : 1;
      return { kind: 'leaf', col, member };
    };
  }
}

/** The rows a filter keeps, as a byte per record_number (1: kept), and how many. */
function filterRows(f: Filter, rows: number): { keep: Uint8Array; count: number } {
  const keep = new Uint8Array(rows + 1);
  fillFilter(f, keep, rows);
  let count = 0;
  for (let rn = 1; rn <= rows; rn++) count += keep[rn]!;
  return { keep, count };
}

/**
 * Writes each row's verdict (0 or 1) into `into`, combining a group's conditions in place: one array per
 * level of nesting, however many conditions a group holds.
 */
function fillFilter(f: Filter, into: Uint8Array, rows: number): void {
  if (f.kind === 'leaf') {
    const { member } = f;
    const ranks = f.col.ranks;
    for (let rn = 1; rn <= rows; rn++) into[rn] = member[ranks[rn]!]!;
    return;
  }
  const and = f.kind === 'and';
  into.fill(and ? 1 : 0, 1, rows + 1);
  let inner: Uint8Array | null = null;
  for (const part of f.parts) {
    let verdict: (rn: number) => number;
    if (part.kind === 'leaf') {
      const { member } = part;
      const ranks = part.col.ranks;
      verdict = (rn) => member[ranks[rn]!]!;
    } else {
      inner ??= new Uint8Array(rows + 1);
      fillFilter(part, inner, rows);
      const done = inner;
      verdict = (rn) => done[rn]!;
    }
    if (and) for (let rn = 1; rn <= rows; rn++) into[rn]! &= verdict(rn);
    else for (let rn = 1; rn <= rows; rn++) into[rn]! |= verdict(rn);
  }
}

/** How many rows a condition's ranks hold: one step per distinct value from its column's runs, once made. */
function leafCount(ranked: RankedResource, col: RankedColumn, member: Uint8Array): number {
  const starts = ranked.orders.startsOnSecondUse(col);
  let count = 0;
  if (starts === null) {
    const ranks = col.ranks;
    for (let rn = 1; rn < ranks.length; rn++) count += member[ranks[rn]!]!;
    return count;
  }
  for (let r = 1; r < member.length; r++) if (member[r] === 1) count += starts[r + 1]! - starts[r]!;
  return count;
}

/**
 * Kept rows `offset` to `offset + limit - 1` in the order of the keys: along their walk, or for two keys
 * run by run of the first key's order (run-page.ts) until their combined order is due (`combinedDue`).
 */
function pageByKeys(orders: Orders, keys: SortKey[], kept: Kept, offset: number, limit: number): number[] {
  const two = twoKeys(keys);
  const id = two && orders.combinedId(two);
  if (two && id && !orders.combinedDue(id)) {
    const { rows, read } = twoKeyPage(orders, two, kept, offset, limit);
    orders.spend(id, read);
    return rows;
  }
  const walk = orders.walk(keys);
  if (kept.keep !== null) return pageOf(walk, offset, limit, kept.keep, kept.col);
  const rows: number[] = [];
  for (let i = offset; i < Math.min(walk.rows, offset + limit); i++) rows.push(walk.at(i));
  return rows;
}

export interface RankedPage {
  /** record_numbers of the page, in order. */
  rows: number[];
  count: number;
}

/** The page and the count of a query the rank path supports (see `unsupported`). */
export function rankedPage(ranked: RankedResource, q: DkanQuery, runLookups: LookupRunner): RankedPage {
  let filter: Filter | null = null;
  if (q.where.length > 0) {
    const planner = new Planner(ranked);
    const build = planner.plan(q.where, 'and');
    filter = build(runLookups(planner.lookups));
  }
  const keys: SortKey[] = q.sorts.map((s) => {
    const col = sortColumn(q, s.target)!;
    return { col: col === RECORD_NUMBER ? null : ranked.columns.get(col.name)!, desc: s.desc };
  });
  const limit = q.limit ?? Infinity;
  const n = ranked.rows;
  // No row of the page: no order to walk (a combined order is a pass per key over every row).
  const wantRows = (count: number) => q.results && limit > 0 && q.offset < count;
  if (filter === null) {
    const all: Kept = { keep: null, col: null, count: n };
    return { rows: wantRows(n) ? pageByKeys(ranked.orders, keys, all, q.offset, limit) : [], count: n };
  }
  // A condition keeps ranks of its column (keep[col.ranks[rn]]); a group keeps rows (keep[rn]).
  const { keep, col, count } =
    filter.kind === 'leaf'
      ? { keep: filter.member, col: filter.col, count: leafCount(ranked, filter.col, filter.member) }
      : { ...filterRows(filter, n), col: null };
  if (!wantRows(count)) return { rows: [], count };
  const rows =
    count <= fewRows(n)
      ? fewPage(keptRows(col?.ranks ?? null, keep, count), keys, q.offset, limit)
      : pageByKeys(ranked.orders, keys, { keep, col, count }, q.offset, limit);
  return { rows, count };
}
