// Normalised query -> prepared SQL on the resource's table; SQLite builds the JSON, answers are cached.
import { LRUCache } from 'lru-cache';
import type { Config } from '../../config.js';
import type { FixtureStore } from '../../platform/fixture-store.js';
import { NADAC_DATASET_ID } from '../../../fixtures/dkan/generated.js';
import { MAX_JSON_ARGS, ROW_JSON_COLUMN, ftsTableOf, rowJsonSql } from '../../../fixtures/dkan/layout.js';
import { RECORD_NUMBER, resourceAt, type Column, type Resource } from './datasets.js';
import { noResourceFound, queryBusy, queryTooLong } from './errors.js';
import { WorkBudgetError, type QueryPool, type Step } from '../../platform/query-pool.js';
import { MATCH_TERM, normalizeQuery, parseQueryString, type Condition, type ConditionGroup, type NormalizedQuery, type Scalar } from './parse.js';

export interface Answer {
  contentType: string;
  body: Buffer;
  headers?: Record<string, string>;
}

export interface Plan {
  /** One row, one column: the `results` array as JSON text (or CSV rows with `raw`). */
  rowsSql: string;
  rowsParams: unknown[];
  countSql: string;
  countParams: unknown[];
}

const MDY = /^(\d{2})\/(\d{2})\/(\d{4})$/;
const NUMERIC = /^\s*-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

/** A value as the column stores it, so comparisons are typed: "500" against an integer column is 500. */
function bindFor(col: Column, v: Scalar): unknown {
  if (col.type === 'integer' || col.type === 'decimal') {
    if (typeof v === 'number') return v;
    const s = String(v);
    return NUMERIC.test(s) ? Number(s) : s;
  }
  const s = typeof v === 'boolean' ? (v ? 'true' : 'false') : String(v);
  if (col.type === 'date' && col.dateFormat === 'mdy') {
    const m = MDY.exec(s);
    if (m) return `${m[3]}-${m[1]}-${m[2]}`;
  }
  return s;
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

class WhereBuilder {
  params: unknown[] = [];
  constructor(private readonly resource: Resource) {}

  col(name: string): Column {
    // Names were checked against the resource's columns while the query was normalised.
    return this.resource.byName.get(name) ?? RECORD_NUMBER;
  }

  /** Pattern operators see the value as returned (decimals and MM/DD/YYYY dates differ from storage). */
  patternTarget(col: Column): string {
    return col.type === 'decimal' || (col.type === 'date' && col.dateFormat === 'mdy') ? col.display : col.ident;
  }

  all(items: (Condition | ConditionGroup)[], joiner: 'AND' | 'OR'): string {
    if (items.length === 0) return '1';
    const parts = items.map((c) => ('groupOperator' in c ? this.all(c.conditions, c.groupOperator === 'or' ? 'OR' : 'AND') : this.one(c)));
    return parts.length === 1 ? parts[0]! : `(${parts.join(` ${joiner} `)})`;
  }

  one(c: Condition): string {
    if (c.operator === 'match') return this.match(c);
    const col = this.col(c.property);
    const v = c.value;
    switch (c.operator) {
      case 'is_empty':
        return `(${col.ident} IS NULL OR ${col.ident} = '')`;
      case 'not_empty':
        return `(${col.ident} IS NOT NULL AND ${col.ident} <> '')`;
      case 'in':
      case 'not in': {
        const list = v as Scalar[];
        this.params.push(...list.map((x) => bindFor(col, x)));
        return `${col.ident} ${c.operator === 'in' ? 'IN' : 'NOT IN'} (${list.map(() => '?').join(', ')})`;
      }
      case 'between': {
        const [a, b] = v as Scalar[];
        this.params.push(bindFor(col, a!), bindFor(col, b!));
        return `${col.ident} BETWEEN ? AND ?`;
      }
      case 'like':
        this.params.push(String(v));
        return `${this.patternTarget(col)} LIKE ?`;
      case 'contains':
        this.params.push(`%${escapeLike(String(v))}%`);
        return `${this.patternTarget(col)} LIKE ? ESCAPE '\\'`;
      case 'starts with':
        this.params.push(`${escapeLike(String(v))}%`);
        return `${this.patternTarget(col)} LIKE ? ESCAPE '\\'`;
      default: {
        if (typeof v === 'object' && v !== null && !Array.isArray(v)) return `${col.ident} ${c.operator} ${this.col(v.property).ident}`;
        this.params.push(bindFor(col, v as Scalar));
        return `${col.ident} ${c.operator} ?`;
      }
    }
  }

  /**
   * MySQL boolean-mode fulltext, approximated as a substring search: +term required, -term excluded, other
   * terms any-of. On text columns, terms of 3 or more characters use the resource's trigram index (built
   * with the fixtures), one lookup per kind whatever the number of words and columns; shorter terms, which
   * a trigram index cannot find, and number or date columns compare with LIKE.
   */
  match(c: Condition): string {
    const positions = [...new Set(c.property.split(',').map((p) => this.col(p.trim())))].map((col) => this.resource.columns.indexOf(col));
    const cols = positions.map((i) => this.resource.columns[i] ?? RECORD_NUMBER);
    const terms = String(c.value ?? '').match(MATCH_TERM) ?? [];
    const kinds = { '+': { long: [] as string[], short: [] as string[] }, '-': { long: [] as string[], short: [] as string[] }, '': { long: [] as string[], short: [] as string[] } };
    for (const raw of terms) {
      const sign = raw[0] === '+' || raw[0] === '-' ? raw[0] : '';
      const word = raw.slice(sign ? 1 : 0).replace(/^"|"$/g, '').replace(/\*$/, '');
      if (word === '') continue;
      const kind = kinds[sign];
      (cols.every((col) => col.type === 'text') && [...word].length >= 3 ? kind.long : kind.short).push(word);
    }
    const fts = ftsTableOf(this.resource.table);
    const filter = `{${positions.map((i) => `c${i}`).join(' ')}}`;
    const phrase = (w: string) => `"${w.replace(/"/g, '""')}"`;
    const indexed = (words: string[], joiner: 'AND' | 'OR') => {
      this.params.push(`${filter} : (${words.map(phrase).join(` ${joiner} `)})`);
      return `record_number IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH ?)`;
    };
    const like = (word: string) => {
      for (let i = 0; i < cols.length; i++) this.params.push(`%${escapeLike(word)}%`);
      return `(${cols.map((col) => `${this.patternTarget(col)} LIKE ? ESCAPE '\\'`).join(' OR ')})`;
    };
    // Parameters are pushed in the order their placeholders appear.
    const parts: string[] = [];
    if (kinds['+'].long.length > 0) parts.push(indexed(kinds['+'].long, 'AND'));
    for (const w of kinds['+'].short) parts.push(like(w));
    if (kinds['-'].long.length > 0) parts.push(`NOT ${indexed(kinds['-'].long, 'OR')}`);
    for (const w of kinds['-'].short) parts.push(`NOT ${like(w)}`);
    if (kinds['+'].long.length + kinds['+'].short.length === 0) {
      const any: string[] = [];
      if (kinds[''].long.length > 0) any.push(indexed(kinds[''].long, 'OR'));
      for (const w of kinds[''].short) any.push(like(w));
      if (any.length > 0) parts.push(`(${any.join(' OR ')})`);
    }
    return parts.length === 0 ? '1' : `(${parts.join(' AND ')})`;
  }
}

/** The SQL the handler runs for a normalised query, with its bound values. */
export function planQuery(resource: Resource, q: NormalizedQuery): Plan {
  const where = new WhereBuilder(resource);
  const whereSql = q.conditions ? where.all(q.conditions, 'AND') : '1';
  const out: Column[] = [...(q.rowIds ? [RECORD_NUMBER] : []), ...q.properties.map((p) => where.col(p))];
  const groupBy = q.groupings ? ` GROUP BY ${q.groupings.map((g) => where.col(g).ident).join(', ')}` : '';
  let order: string;
  if (q.sorts) {
    const keys = q.sorts.map((s) => `${where.col(s.property).ident} ${s.order === 'desc' ? 'DESC' : 'ASC'}`);
    // Ties keep row order so pages never overlap; same direction as the last key so an index still serves the order.
    if (!q.groupings && !q.sorts.some((s) => s.property === 'record_number')) {
      keys.push(`record_number ${q.sorts[q.sorts.length - 1]!.order === 'desc' ? 'DESC' : 'ASC'}`);
    }
    order = keys.join(', ');
  } else {
    order = q.groupings ? q.groupings.map((g) => where.col(g).ident).join(', ') : 'record_number';
  }
  const inner = `SELECT ${out.map((c) => c.ident).join(', ')} FROM ${resource.table} WHERE ${whereSql}${groupBy} ORDER BY ${order} LIMIT ? OFFSET ?`;
  let rowsSql: string;
  if (q.format === 'csv') {
    rowsSql = `SELECT ${out.map((c) => c.display).join(', ')} FROM (${inner})`;
  } else if (q.keys && !q.rowIds && !q.groupings && q.properties.length === resource.columns.length && q.properties.every((p, i) => p === resource.columns[i]!.name)) {
    // Whole rows in column order: the JSON written at build time (the same rowJsonSql as below).
    const rowsInner = `SELECT ${ROW_JSON_COLUMN} AS j FROM ${resource.table} WHERE ${whereSql} ORDER BY ${order} LIMIT ? OFFSET ?`;
    rowsSql = `SELECT '[' || COALESCE(group_concat(j, ','), '') || ']' FROM (${rowsInner})`;
  } else if (out.length <= MAX_JSON_ARGS / 2) {
    rowsSql = `SELECT json_group_array(${rowJsonSql(out, q.keys)}) FROM (${inner})`;
  } else {
    // Wider than SQLite's function-argument limit: the same JSON by concatenation.
    rowsSql = `SELECT '[' || COALESCE(group_concat(${rowJsonSql(out, q.keys)}, ','), '') || ']' FROM (${inner})`;
  }
  const countSql = groupBy
    ? `SELECT count(*) FROM (SELECT 1 FROM ${resource.table} WHERE ${whereSql}${groupBy})`
    : `SELECT count(*) FROM ${resource.table} WHERE ${whereSql}`;
  return { rowsSql, rowsParams: [...where.params, q.limit, q.offset], countSql, countParams: where.params };
}

const FIELD_TYPES = {
  text: { type: 'text', mysql_type: 'text' },
  integer: { type: 'int', mysql_type: 'int' },
  decimal: { type: 'numeric', mysql_type: 'decimal' },
  date: { type: 'date', mysql_type: 'date' },
} as const;

/** DKAN's `schema` key: {<distributionId>: {fields, primary key?}} for the selected columns. */
export function schemaJson(resource: Resource, q: NormalizedQuery): string {
  const fields: Record<string, object> = {};
  if (q.rowIds) fields.record_number = { type: 'serial', mysql_type: 'int', description: '' };
  for (const p of q.properties) {
    const col = resource.byName.get(p)!;
    fields[p] = { ...FIELD_TYPES[col.type], description: col.description };
  }
  const table: Record<string, unknown> = { fields };
  if (q.rowIds) table['primary key'] = ['record_number'];
  return JSON.stringify({ [resource.distributionId]: table });
}

function csvCell(v: unknown): string {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\r\n]|^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const JSON_TYPE = 'application/json';
const CSV_HEADERS = { 'content-disposition': 'attachment; filename="data.csv"' };

/**
 * Answers of one store, kept while it lives: whole answers by URL and by normalised query, counts by
 * SQL, and schema keys by column selection (most queries select all columns).
 */
function cachesOf(store: FixtureStore, config: Config) {
  return store.memo('dkan:caches', () => ({
    responses:
      config.dkanCacheSize > 0
        ? new LRUCache<string, Answer>({ max: config.dkanCacheSize, maxSize: 32 * 1024 * 1024, sizeCalculation: (a) => a.body.length + 64 })
        : null,
    counts: new LRUCache<string, number>({ max: 10_000 }),
    schemas: new LRUCache<string, string>({ max: 1_000 }),
  }));
}

/** A stored answer for exactly this request URL, before any parsing. */
export function cachedAnswer(store: FixtureStore, config: Config, url: string): Answer | undefined {
  return cachesOf(store, config).responses?.get(`u:${url}`);
}

/** Runs a query string against a resource; the answer is kept for the same URL and the same normalised query. */
export async function runQuery(pool: QueryPool, store: FixtureStore, config: Config, resource: Resource, rawQuery: string, url: string): Promise<Answer> {
  const caches = cachesOf(store, config);
  const q = normalizeQuery(parseQueryString(rawQuery), resource, config.dkanMaxLimit);
  const echo = JSON.stringify(q);
  const key = `q:${echo}`;
  let answer = caches.responses?.get(key);
  if (!answer) {
    const run = async (steps: Step[]): Promise<unknown[]> => {
      try {
        return await pool.run(store, steps, config.queryTimeout);
      } catch (err) {
        if (err instanceof WorkBudgetError) throw err.started ? queryTooLong(err.budgetMs) : queryBusy(err.budgetMs);
        throw err;
      }
    };
    answer = q.format === 'csv' ? await csvAnswer(run, resource, q) : await jsonAnswer(run, caches, resource, q, echo);
    caches.responses?.set(key, answer);
  }
  caches.responses?.set(`u:${url}`, answer);
  return answer;
}

type Caches = ReturnType<typeof cachesOf>;
type Run = (steps: Step[]) => Promise<unknown[]>;

async function jsonAnswer(run: Run, caches: Caches, resource: Resource, q: NormalizedQuery, echo: string): Promise<Answer> {
  const plan = planQuery(resource, q);
  const countKey = `${plan.countSql}\0${JSON.stringify(plan.countParams)}`;
  let count = q.count ? caches.counts.get(countKey) : undefined;
  const steps: Step[] = [];
  if (q.results) steps.push({ op: 'pluckGet', sql: plan.rowsSql, params: plan.rowsParams });
  if (q.count && count === undefined) steps.push({ op: 'pluckGet', sql: plan.countSql, params: plan.countParams });
  const out = steps.length > 0 ? await run(steps) : [];
  const results = q.results ? (out[0] as string) : undefined;
  if (q.count && count === undefined) {
    count = out[q.results ? 1 : 0] as number;
    caches.counts.set(countKey, count);
  }
  let body = '{';
  if (q.results) body += `"results":${results},`;
  if (q.count) body += `"count":${count},`;
  if (q.schema) {
    const key = `${resource.distributionId}\0${q.rowIds}\0${q.properties.join('\0')}`;
    let schema = caches.schemas.get(key);
    if (schema === undefined) {
      schema = schemaJson(resource, q);
      caches.schemas.set(key, schema);
    }
    body += `"schema":${schema},`;
  }
  body += `"query":${echo}}`;
  return { contentType: JSON_TYPE, body: Buffer.from(body) };
}

async function csvAnswer(run: Run, resource: Resource, q: NormalizedQuery): Promise<Answer> {
  const plan = planQuery(resource, q);
  const [rows] = (await run([{ op: 'rawAll', sql: plan.rowsSql, params: plan.rowsParams }])) as [unknown[][]];
  const header = [...(q.rowIds ? ['record_number'] : []), ...q.properties];
  const lines = [header, ...rows].map((r) => r.map(csvCell).join(','));
  return { contentType: 'text/csv; charset=utf-8', body: Buffer.from(`${lines.join('\n')}\n`), headers: CSV_HEADERS };
}

/**
 * The benchmark's distinct-query workload: one equality condition, a sort, limit=100&offset=200 on NADAC
 * (index 0: 100,000 x scale rows; index 1: 10,000 rows at every scale). Values come from `benchmarkValues`.
 */
export const BENCHMARK_WORKLOAD = {
  datasetId: NADAC_DATASET_ID,
  largeIndex: 0,
  smallIndex: 1,
  property: 'ndc_description',
  sort: 'nadac_per_unit',
  limit: 100,
  offset: 200,
} as const;

/** Path (under the area prefix) and query string of one benchmark request. */
export function benchmarkPath(value: string, index: number = BENCHMARK_WORKLOAD.largeIndex): string {
  const w = BENCHMARK_WORKLOAD;
  const qs = `conditions[0][property]=${w.property}&conditions[0][value]=${encodeURIComponent(value)}&conditions[0][operator]==&sorts[0][property]=${w.sort}&sorts[0][order]=asc&limit=${w.limit}&offset=${w.offset}`;
  return `/datastore/query/${w.datasetId}/${index}?${qs}`;
}

/** The distinct filter values of the benchmark column, in a stable order. */
export function benchmarkValues(store: FixtureStore, index: number = BENCHMARK_WORKLOAD.largeIndex): string[] {
  const res = resourceAt(store, BENCHMARK_WORKLOAD.datasetId, String(index));
  if (!res) throw new Error('benchmark dataset missing from the fixture database');
  return store.prepare(`SELECT DISTINCT ${BENCHMARK_WORKLOAD.property} FROM ${res.table} ORDER BY 1`).pluck(true).all() as string[];
}

/**
 * Exactly the prepared SQL (and values) the handler runs for a request path with query string, so a baseline
 * server can run the same statements: rowsSql gives the `results` JSON text, countSql the `count`.
 */
export function sqlForRequest(store: FixtureStore, config: Config, pathWithQuery: string): Plan {
  const [pathname, raw = ''] = pathWithQuery.split(/\?(.*)/s, 2) as [string, string?];
  const m = /\/datastore\/query\/([^/]+)\/([^/]+)$/.exec(pathname);
  const res = m ? resourceAt(store, decodeURIComponent(m[1]!), m[2]!) : undefined;
  if (!res) throw noResourceFound(m?.[1] ?? pathname, m?.[2] ?? '');
  return planQuery(res, normalizeQuery(parseQueryString(raw), res, config.dkanMaxLimit));
}
