// Normalised query -> prepared SQL on the resource's table; SQLite builds the JSON, answers are cached.
import { LRUCache } from 'lru-cache';
import type { Config } from '../../config.js';
import type { FixtureStore } from '../../platform/fixture-store.js';
import { MAX_JSON_ARGS, ROW_JSON_COLUMN, rowJsonSql } from '../../../fixtures/dkan/layout.js';
import { RECORD_NUMBER, type Column, type Resource } from './datasets.js';
import { lookupsOn, rankedPage, rankedResource, unsupported } from './ranked.js';
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

  /** MySQL boolean-mode fulltext, approximated: +term required, -term excluded, other terms any-of; substring match. */
  match(c: Condition): string {
    const cols = c.property.split(',').map((p) => this.col(p.trim()));
    const terms = String(c.value ?? '').match(MATCH_TERM) ?? [];
    const required: string[] = [];
    const excluded: string[] = [];
    const optional: string[] = [];
    const sql = `(${cols.map((col) => `${this.patternTarget(col)} LIKE ? ESCAPE '\\'`).join(' OR ')})`;
    for (const raw of terms) {
      const sign = raw[0] === '+' || raw[0] === '-' ? raw[0] : '';
      const word = raw.slice(sign ? 1 : 0).replace(/^"|"$/g, '').replace(/\*$/, '');
      if (word === '') continue;
      (sign === '+' ? required : sign === '-' ? excluded : optional).push(`%${escapeLike(word)}%`);
    }
    // Parameters are bound in the order their placeholders appear: required, excluded, then optional terms.
    const parts = [...required.map(() => sql), ...excluded.map(() => `NOT ${sql}`)];
    const bound = [...required, ...excluded];
    if (optional.length > 0 && required.length === 0) {
      parts.push(`(${optional.map(() => sql).join(' OR ')})`);
      bound.push(...optional);
    }
    for (const pattern of bound) for (let i = 0; i < cols.length; i++) this.params.push(pattern);
    return parts.length === 0 ? '1' : `(${parts.join(' AND ')})`;
  }
}

/** One condition's SQL (on its own column) and bound values, as the full query would have it. */
export function conditionSql(resource: Resource, c: Condition): { sql: string; params: unknown[] } {
  const where = new WhereBuilder(resource);
  const sql = where.one(c);
  return { sql, params: where.params };
}

/** The output columns of a query: record_number first with rowIds, then the properties. */
function outputColumns(resource: Resource, q: NormalizedQuery): Column[] {
  return [...(q.rowIds ? [RECORD_NUMBER] : []), ...q.properties.map((p) => resource.byName.get(p) ?? RECORD_NUMBER)];
}

/** Whole rows in column order: the JSON written at build time serves them. */
function wholeRows(resource: Resource, q: NormalizedQuery): boolean {
  return q.keys && !q.rowIds && !q.groupings && q.properties.length === resource.columns.length && q.properties.every((p, i) => p === resource.columns[i]!.name);
}

/** The SQL the handler runs for a normalised query, with its bound values. */
export function planQuery(resource: Resource, q: NormalizedQuery): Plan {
  const where = new WhereBuilder(resource);
  const whereSql = q.conditions ? where.all(q.conditions, 'AND') : '1';
  const out = outputColumns(resource, q);
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
  } else if (wholeRows(resource, q)) {
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
export async function runQuery(store: FixtureStore, config: Config, resource: Resource, rawQuery: string, url: string): Promise<Answer> {
  const caches = cachesOf(store, config);
  const q = normalizeQuery(parseQueryString(rawQuery), resource, config.dkanMaxLimit);
  const echo = JSON.stringify(q);
  const key = `q:${echo}`;
  let answer = caches.responses?.get(key);
  if (!answer) {
    const ranked = rankedResource(store, resource);
    if (ranked && unsupported(q, ranked) === null) {
      const page = await rankedPage(resource, ranked, q, lookupsOn(store));
      answer = q.format === 'csv' ? csvBody(q, pageRows(store, resource, q, page.rows, 'csv')) : jsonBody(resource, caches, q, echo, () => pageRows(store, resource, q, page.rows, 'json'), () => page.count);
    } else {
      answer = q.format === 'csv' ? csvAnswer(store, resource, q) : jsonAnswer(store, caches, resource, q, echo);
    }
    caches.responses?.set(key, answer);
  }
  caches.responses?.set(`u:${url}`, answer);
  return answer;
}

type Caches = ReturnType<typeof cachesOf>;

function countOf(store: FixtureStore, caches: Caches, plan: Plan): number {
  const key = `${plan.countSql}\0${JSON.stringify(plan.countParams)}`;
  let n = caches.counts.get(key);
  if (n === undefined) {
    n = store.prepare(plan.countSql).pluck(true).get(plan.countParams) as number;
    caches.counts.set(key, n);
  }
  return n;
}

/**
 * The page's rows by record_number, in the page's order: JSON text of the results array, or CSV cells.
 * Each row is formatted by the same SQL as on the plain path.
 */
function pageRows(store: FixtureStore, resource: Resource, q: NormalizedQuery, rows: number[], format: 'json'): string;
function pageRows(store: FixtureStore, resource: Resource, q: NormalizedQuery, rows: number[], format: 'csv'): unknown[][];
function pageRows(store: FixtureStore, resource: Resource, q: NormalizedQuery, rows: number[], format: 'json' | 'csv'): string | unknown[][] {
  const out = outputColumns(resource, q);
  const select =
    format === 'csv' ? out.map((c) => c.display).join(', ') : wholeRows(resource, q) ? ROW_JSON_COLUMN : rowJsonSql(out, q.keys);
  const found = store
    .prepare(`SELECT record_number, ${select} FROM ${resource.table} WHERE record_number IN (SELECT value FROM json_each(?))`)
    .raw(true)
    .all(JSON.stringify(rows)) as unknown[][];
  const byRow = new Map(found.map((r) => [r[0] as number, r]));
  const ordered = rows.map((rn) => byRow.get(rn)!);
  if (format === 'csv') return ordered.map((r) => r.slice(1));
  return `[${ordered.map((r) => r[1] as string).join(',')}]`;
}

function jsonAnswer(store: FixtureStore, caches: Caches, resource: Resource, q: NormalizedQuery, echo: string): Answer {
  const plan = planQuery(resource, q);
  return jsonBody(resource, caches, q, echo, () => store.prepare(plan.rowsSql).pluck(true).get(plan.rowsParams) as string, () => countOf(store, caches, plan));
}

function jsonBody(resource: Resource, caches: Caches, q: NormalizedQuery, echo: string, results: () => string, count: () => number): Answer {
  let body = '{';
  if (q.results) body += `"results":${results()},`;
  if (q.count) body += `"count":${count()},`;
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

function csvAnswer(store: FixtureStore, resource: Resource, q: NormalizedQuery): Answer {
  const plan = planQuery(resource, q);
  return csvBody(q, store.prepare(plan.rowsSql).raw(true).all(plan.rowsParams) as unknown[][]);
}

function csvBody(q: NormalizedQuery, rows: unknown[][]): Answer {
  const header = [...(q.rowIds ? ['record_number'] : []), ...q.properties];
  const lines = [header, ...rows].map((r) => r.map(csvCell).join(','));
  return { contentType: 'text/csv; charset=utf-8', body: Buffer.from(`${lines.join('\n')}\n`), headers: CSV_HEADERS };
}
