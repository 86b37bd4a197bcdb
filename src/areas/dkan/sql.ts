// The checked query model -> SQL on the resources' tables (with bound values), the CSV header and the `schema` key.
// Building only: nothing here runs a statement, so execution can move elsewhere without touching this.
import { displaySql, ftsTableOf, MAX_JSON_ARGS, ROW_JSON_COLUMN, rowJsonSql } from '../../../fixtures/dkan/layout.js';
import { patternOperandSql } from '../../../fixtures/dkan/like-texts.js';
import { RECORD_NUMBER, type Column, type Resource } from './datasets.js';
import {
  MATCH_TERM,
  type ColumnRef,
  type Condition,
  type ConditionGroup,
  type DkanQuery,
  type Expr,
  type Output,
  type Scalar,
  type Target,
} from './parse.js';

export interface Plan {
  /** One row, one column: the `results` array as JSON text. CSV plans return one row per result row instead. */
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
    return NUMERIC.test(v) ? Number(v) : v;
  }
  const s = String(v);
  if (col.type === 'date' && col.dateFormat === 'mdy') {
    const m = MDY.exec(s);
    if (m) return `${m[3]}-${m[1]}-${m[2]}`;
  }
  return s;
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The column qualified by its table's SQL alias (t0, t1, ...). */
const identOf = (ref: ColumnRef): string => `${ref.source.sql}.${ref.column.ident}`;

function displayOf(ident: string, col: Column): string {
  return col === RECORD_NUMBER ? `CAST(${ident} AS TEXT)` : displaySql(ident, col.type, col.decimals, col.dateFormat);
}

/** The left operand of LIKE for a column (`ident` as written in the statement). */
export function patternOperand(ident: string, col: Column): string {
  return col === RECORD_NUMBER ? ident : patternOperandSql(ident, col);
}

class SqlBuilder {
  params: unknown[] = [];

  /** Pattern operators see the value as returned (decimals and MM/DD/YYYY dates differ from storage). */
  patternTarget(ref: ColumnRef): string {
    return patternOperand(identOf(ref), ref.column);
  }

  expr(e: Expr): string {
    switch (e.kind) {
      case 'column':
        return identOf(e.ref);
      case 'number':
        this.params.push(e.value);
        return '?';
      case 'aggregate': {
        const inner = this.expr(e.operand);
        // DKAN's tables hold '' for an empty cell, which COUNT counts; mockyard stores NULL.
        return e.fn === 'count' && e.operand.kind === 'column'
          ? `COUNT(COALESCE(${inner}, ''))`
          : `${e.fn.toUpperCase()}(${inner})`;
      }
      case 'arithmetic': {
        const parts = e.operands.map((o) => this.expr(o));
        // MySQL's `/` always divides exactly (7 / 2 = 3.5); SQLite's divides integers as integers.
        if (e.operator === '/') parts[0] = `(${parts[0]} * 1.0)`;
        return `(${parts.join(` ${e.operator} `)})`;
      }
    }
  }

  all(items: (Condition | ConditionGroup)[], joiner: 'AND' | 'OR'): string {
    if (items.length === 0) return '1';
    const parts = items.map((c) =>
      c.kind === 'group' ? this.all(c.items, c.joiner === 'or' ? 'OR' : 'AND') : this.one(c),
    );
    return parts.length === 1 ? parts[0]! : `(${parts.join(` ${joiner} `)})`;
  }

  one(c: Condition): string {
    if (c.operator === 'match') return this.match(c);
    const col = c.ref.column;
    const ident = identOf(c.ref);
    const v = c.value;
    switch (c.operator) {
      case 'is_empty':
        return `(${ident} IS NULL OR ${ident} = '')`;
      case 'not_empty':
        return `(${ident} IS NOT NULL AND ${ident} <> '')`;
      case 'in':
      case 'not in': {
        const list = v as Scalar[];
        this.params.push(...list.map((x) => bindFor(col, x)));
        return `${ident} ${c.operator === 'in' ? 'IN' : 'NOT IN'} (${list.map(() => '?').join(', ')})`;
      }
      case 'between': {
        const [a, b] = v as Scalar[];
        this.params.push(bindFor(col, a!), bindFor(col, b!));
        return `${ident} BETWEEN ? AND ?`;
      }
      // SelectFactory::normalizeOperator wraps the value in % without escaping: % and _ in it stay wildcards.
      case 'like':
        this.params.push(String(v));
        return `${this.patternTarget(c.ref)} LIKE ?`;
      case 'contains':
        this.params.push(`%${String(v)}%`);
        return `${this.patternTarget(c.ref)} LIKE ?`;
      case 'starts with':
        this.params.push(`${String(v)}%`);
        return `${this.patternTarget(c.ref)} LIKE ?`;
      default: {
        if (typeof v === 'object' && v !== null && !Array.isArray(v)) return `${ident} ${c.operator} ${identOf(v)}`;
        this.params.push(bindFor(col, v as Scalar));
        return `${ident} ${c.operator} ?`;
      }
    }
  }

  /**
   * MySQL boolean-mode fulltext, approximated as a substring search: +term required, -term excluded, other
   * terms any-of. On text columns of one resource, terms of 3 or more characters use the resource's trigram
   * index (built with the fixtures), one lookup per kind whatever the number of words and columns; shorter
   * terms, which a trigram index cannot find, and number or date columns compare with LIKE.
   */
  match(c: Condition): string {
    const refs = c.refs ?? [c.ref];
    const source = refs[0]!.source;
    const positions = refs.map((r) => r.source.resource.columns.indexOf(r.column));
    const indexable = refs.every((r, k) => r.source === source && r.column.type === 'text' && positions[k]! >= 0);
    const terms = String(c.value ?? '').match(MATCH_TERM) ?? [];
    const kinds = {
      '+': { long: [] as string[], short: [] as string[] },
      '-': { long: [] as string[], short: [] as string[] },
      '': { long: [] as string[], short: [] as string[] },
    };
    for (const raw of terms) {
      const sign = raw[0] === '+' || raw[0] === '-' ? raw[0] : '';
      const word = raw
        .slice(sign ? 1 : 0)
        .replace(/^"|"$/g, '')
        .replace(/\*$/, '');
      if (word === '') continue;
      (indexable && [...word].length >= 3 ? kinds[sign].long : kinds[sign].short).push(word);
    }
    const fts = ftsTableOf(source.resource.table);
    const filter = `{${[...new Set(positions)].map((i) => `c${i}`).join(' ')}}`;
    const phrase = (w: string) => `"${w.replace(/"/g, '""')}"`;
    const indexed = (words: string[], joiner: 'AND' | 'OR') => {
      this.params.push(`${filter} : (${words.map(phrase).join(` ${joiner} `)})`);
      return `${source.sql}.record_number IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH ?)`;
    };
    const like = (word: string) => {
      for (let i = 0; i < refs.length; i++) this.params.push(`%${escapeLike(word)}%`);
      return `(${refs.map((ref) => `${this.patternTarget(ref)} LIKE ? ESCAPE '\\'`).join(' OR ')})`;
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

/** Inner column names: never a name from the request, so a data column cannot shadow them. */
const outName = (i: number): string => `"__mockyard_o${i}"`;

/** How an output's value is returned: text like DKAN's MySQL strings ('' for an empty cell, null from SQL). */
function outputDisplay(o: Output, i: number): string {
  const e = o.expr;
  if (e.kind === 'column') return displayOf(outName(i), e.ref.column);
  if (
    e.kind === 'aggregate' &&
    (e.fn === 'min' || e.fn === 'max') &&
    e.operand.kind === 'column' &&
    e.operand.ref.column !== RECORD_NUMBER
  ) {
    const col = e.operand.ref.column;
    return `CASE WHEN ${outName(i)} IS NULL THEN NULL ELSE ${displayOf(outName(i), col)} END`;
  }
  return `CAST(${outName(i)} AS TEXT)`;
}

function targetSql(q: DkanQuery, t: Target): string {
  if (t.kind === 'column') return identOf(t.ref);
  const o = q.outputs[t.index]!;
  return o.expr.kind === 'column' ? identOf(o.expr.ref) : outName(t.index);
}

/** Whole rows of one resource in column order: the JSON written at build time can be used as is. */
export function wholeRows(q: DkanQuery): boolean {
  const res = q.sources[0]!.resource;
  return (
    q.format === 'json' &&
    q.keys &&
    !q.rowIds &&
    !q.aggregate &&
    q.joins.length === 0 &&
    q.groupBy.length === 0 &&
    q.outputs.length === res.columns.length &&
    q.outputs.every(
      (o, i) => o.expr.kind === 'column' && o.expr.ref.column === res.columns[i] && o.key === o.expr.ref.column.name,
    )
  );
}

/** One condition's SQL and bound values, as the full query would have them (columns as `<alias>."<name>"`). */
export function conditionSql(c: Condition): { sql: string; params: unknown[] } {
  const b = new SqlBuilder();
  const sql = b.one(c);
  return { sql, params: b.params };
}

/**
 * The SQL for a checked query, with its bound values. With `page`, the rows are those record_numbers of
 * the one resource, in that order (the rank path of ranked.ts has already filtered, sorted and paged).
 */
export function planQuery(q: DkanQuery, page?: readonly number[]): Plan {
  const primary = q.sources[0]!;
  const b = new SqlBuilder();
  const select = q.outputs.map((o, i) => `${b.expr(o.expr)} AS ${outName(i)}`).join(', ');
  const selectParams = b.params;
  b.params = [];
  const joins = q.joins
    .map(
      (j) =>
        ` JOIN ${j.source.resource.table} AS ${j.source.sql} ON ${identOf(j.left)} ${j.operator} ${identOf(j.right)}`,
    )
    .join('');
  if (page) {
    // CROSS JOIN keeps json_each as the outer loop (sqlite.org/optoverview.html#crossjoin), so rows come in
    // the page's order without sorting them again (a temporary B-tree of every row's JSON).
    const from = `json_each(?) AS __mockyard_page CROSS JOIN ${primary.resource.table} AS ${primary.sql} ON ${primary.sql}.record_number = __mockyard_page.value`;
    return pagePlan(q, from, JSON.stringify(page), select, selectParams);
  }
  const from = `${primary.resource.table} AS ${primary.sql}${joins}`;
  const where = b.all(q.where, 'AND');
  const whereParams = b.params;
  const groupBy = q.groupBy.length > 0 ? ` GROUP BY ${q.groupBy.map((t) => targetSql(q, t)).join(', ')}` : '';
  const rowOrder = `${primary.sql}.record_number`;
  let order: string;
  if (q.sorts.length > 0) {
    const keys = q.sorts.map((s) => `${targetSql(q, s.target)} ${s.desc ? 'DESC' : 'ASC'}`);
    // Ties keep row order so pages never overlap; same direction as the last key so an index still serves the order.
    if (q.groupBy.length === 0 && !q.aggregate)
      keys.push(`${rowOrder} ${q.sorts[q.sorts.length - 1]!.desc ? 'DESC' : 'ASC'}`);
    order = keys.join(', ');
  } else {
    order = q.groupBy.length > 0 ? q.groupBy.map((t) => targetSql(q, t)).join(', ') : q.aggregate ? '' : rowOrder;
  }
  const orderBy = order ? ` ORDER BY ${order}` : '';
  const range = ` LIMIT ${q.limit === null ? '-1' : '?'} OFFSET ?`;
  const rangeParams = q.limit === null ? [q.offset] : [q.limit, q.offset];
  const inner = `SELECT ${select} FROM ${from} WHERE ${where}${groupBy}${orderBy}${range}`;
  const displays = q.outputs.map((o, i) => ({ name: o.key, display: outputDisplay(o, i) }));
  let rowsSql: string;
  let rowsParams = [...selectParams, ...whereParams, ...rangeParams];
  if (q.format === 'csv') {
    rowsSql = `SELECT ${displays.map((d) => d.display).join(', ')} FROM (${inner})`;
  } else if (wholeRows(q)) {
    const rowsInner = `SELECT ${primary.sql}.${ROW_JSON_COLUMN} AS j FROM ${from} WHERE ${where}${orderBy}${range}`;
    rowsSql = `SELECT '[' || COALESCE(group_concat(j, ','), '') || ']' FROM (${rowsInner})`;
    rowsParams = [...whereParams, ...rangeParams];
  } else if (displays.length <= MAX_JSON_ARGS / 2) {
    rowsSql = `SELECT json_group_array(${rowJsonSql(displays, q.keys)}) FROM (${inner})`;
  } else {
    // Wider than SQLite's function-argument limit: the same JSON by concatenation.
    rowsSql = `SELECT '[' || COALESCE(group_concat(${rowJsonSql(displays, q.keys)}, ','), '') || ']' FROM (${inner})`;
  }
  // DKAN counts the rows the query would give without limit and offset: groups when grouped or aggregated.
  const grouped = groupBy !== '' || q.aggregate;
  const countSql = grouped
    ? `SELECT count(*) FROM (SELECT ${select} FROM ${from} WHERE ${where}${groupBy})`
    : `SELECT count(*) FROM ${from} WHERE ${where}`;
  const countParams = grouped ? [...selectParams, ...whereParams] : whereParams;
  return { rowsSql, rowsParams, countSql, countParams };
}

/** The rows of a given page, in its order, formatted exactly as planQuery formats them. */
function pagePlan(q: DkanQuery, from: string, page: string, select: string, selectParams: unknown[]): Plan {
  const primary = q.sources[0]!;
  const displays = q.outputs.map((o, i) => ({ name: o.key, display: outputDisplay(o, i) }));
  const inner = `SELECT ${select} FROM ${from}`;
  let rowsSql: string;
  let rowsParams = [...selectParams, page];
  if (q.format === 'csv') {
    rowsSql = `SELECT ${displays.map((d) => d.display).join(', ')} FROM (${inner})`;
  } else if (wholeRows(q)) {
    rowsSql = `SELECT '[' || COALESCE(group_concat(j, ','), '') || ']' FROM (SELECT ${primary.sql}.${ROW_JSON_COLUMN} AS j FROM ${from})`;
    rowsParams = [page];
  } else if (displays.length <= MAX_JSON_ARGS / 2) {
    rowsSql = `SELECT json_group_array(${rowJsonSql(displays, q.keys)}) FROM (${inner})`;
  } else {
    rowsSql = `SELECT '[' || COALESCE(group_concat(${rowJsonSql(displays, q.keys)}, ','), '') || ']' FROM (${inner})`;
  }
  return { rowsSql, rowsParams, countSql: 'SELECT NULL', countParams: [] };
}

const FIELD_TYPES = {
  text: { type: 'text', mysql_type: 'text' },
  integer: { type: 'int', mysql_type: 'int' },
  decimal: { type: 'numeric', mysql_type: 'decimal' },
  date: { type: 'date', mysql_type: 'date' },
} as const;

/** DatabaseTable::buildTableSchema + translateType for the auto-increment key (empty values filtered out). */
const RECORD_NUMBER_FIELD = { type: 'serial', unsigned: true, 'not null': true, mysql_type: 'int' };

/**
 * DKAN's `schema` key (Query::getSchema): every queried resource's table schema keyed by its id, all of its
 * fields; record_number and `primary key` only with rowIds.
 */
export function schemaJson(q: DkanQuery): string {
  const out: Record<string, unknown> = {};
  for (const { resource } of q.sources) out[resource.distributionId] = tableSchema(resource, q.rowIds);
  return JSON.stringify(out);
}

export function tableSchema(
  resource: Resource,
  rowIds: boolean,
): { fields: Record<string, object>; 'primary key'?: string[] } {
  const fields: Record<string, object> = {};
  if (rowIds) fields.record_number = RECORD_NUMBER_FIELD;
  for (const col of resource.columns)
    fields[col.name] = col.description
      ? { ...FIELD_TYPES[col.type], description: col.description }
      : { ...FIELD_TYPES[col.type] };
  return rowIds ? { fields, 'primary key': [RECORD_NUMBER.name] } : { fields };
}

export type CsvHeadersMode = 'resource_headers' | 'machine_names';

/**
 * AbstractQueryController::getHeaderRow: with `properties` (given, or filled in by DKAN), each one's column
 * description in the first resource's schema (resource_headers, the default) or its name (machine_names);
 * with rowIds and no properties, the schema's field names.
 */
export function csvHeader(q: DkanQuery, mode: CsvHeadersMode): string[] {
  if (q.rowIds) return q.outputs.map((o) => o.key);
  const fields = q.sources[0]!.resource.byName;
  return q.outputs.map((o) =>
    mode === 'machine_names' ? o.headerName : fields.get(o.headerName)?.description || o.headerName,
  );
}

/** PHP's fputcsv: quote a field holding the delimiter, a quote, a backslash, a space, tab or line break. */
export function csvLine(cells: readonly unknown[]): string {
  return `${cells
    .map((v) => {
      const s = v === null || v === undefined ? '' : String(v);
      return /[,"\\\s]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
    })
    .join(',')}\n`;
}
