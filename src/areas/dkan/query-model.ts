// The checked DKAN query model and its documented bounds: what the parsers produce and the SQL builder reads.
import type { Column, Resource } from './datasets.js';

export const OPERATORS = [
  '=',
  '<>',
  '<',
  '<=',
  '>',
  '>=',
  'like',
  'between',
  'in',
  'not in',
  'contains',
  'starts with',
  'match',
  'is_empty',
  'not_empty',
] as const;
export type Operator = (typeof OPERATORS)[number];
export const ARITHMETIC = ['+', '-', '*', '/', '%'] as const;
export const AGGREGATES = ['sum', 'count', 'avg', 'max', 'min'] as const;
export type Arithmetic = (typeof ARITHMETIC)[number];
export type Aggregate = (typeof AGGREGATES)[number];

/** Documented bounds: larger queries are refused with a 400 before any SQL is built. */
export const LIMITS = {
  groupDepth: 5,
  conditions: 100,
  sorts: 10,
  listValues: 1000,
  matchTerms: 100,
  matchColumns: 20,
  /**
   * Characters of a `like`, `contains` or `starts with` value: SQLite refuses a LIKE pattern over 50,000 bytes
   * (SQLITE_MAX_LIKE_PATTERN_LENGTH); 8,000 characters stay under it escaped and wrapped in wildcards.
   */
  patternLength: 8000,
  resources: 4,
  properties: 200,
  expressionDepth: 5,
  expressionNodes: 50,
  aliasLength: 64,
  /**
   * Bytes of a POSTed body. It is parsed, and its query echoed, on the event loop: 256 KiB hold any query
   * within the other bounds a client writes, and take about 15 ms.
   */
  bodyBytes: 256 * 1024,
  /** Top-level keys of a POSTed query object (query.json has 14). */
  bodyKeys: 100,
  /**
   * Characters of a /datastore/sql statement: its parse runs on the event loop, at about 12 ms per 100,000
   * (longer for text the grammar rejects). 16,384 is what the GET form carries within the URL limit.
   */
  sqlLength: 16_384,
  /** The product of the joined resources' row counts: the most rows a join can produce, whatever its condition. */
  joinRows: 50_000_000,
} as const;

/** The words of a `match` value: +required, -excluded, "quoted phrases" or plain words. */
export const MATCH_TERM = /[+-]?"[^"]*"|\S+/g;

export type Scalar = string | number;

export interface Source {
  /** The alias the query uses (`t` on the single-resource routes). */
  alias: string;
  resource: Resource;
  /** The alias in SQL: t0, t1, ... (never text from the request). */
  sql: string;
}
export interface ColumnRef {
  source: Source;
  column: Column;
}
export type Expr =
  | { kind: 'column'; ref: ColumnRef }
  | { kind: 'number'; value: number }
  | { kind: 'arithmetic'; operator: Arithmetic; operands: Expr[] }
  | { kind: 'aggregate'; fn: Aggregate; operand: Expr };
export interface Output {
  /** Key of the value in a result row (the alias, or the column name made unique as Drupal does). */
  key: string;
  expr: Expr;
  /** What DKAN's CSV header looks up: the property name, or the alias of an expression. */
  headerName: string;
}
export interface Condition {
  kind: 'condition';
  ref: ColumnRef;
  /** `match`: every column searched. */
  refs?: ColumnRef[];
  operator: Operator;
  value?: Scalar | Scalar[] | ColumnRef;
}
export interface ConditionGroup {
  kind: 'group';
  joiner: 'and' | 'or';
  items: (Condition | ConditionGroup)[];
}
/** A sort or grouping key: one of the outputs (by its alias) or a column. */
export type Target = { kind: 'output'; index: number } | { kind: 'column'; ref: ColumnRef };
export interface Join {
  source: Source;
  left: ColumnRef;
  operator: string;
  right: ColumnRef;
}

export interface DkanQuery {
  sources: Source[];
  joins: Join[];
  outputs: Output[];
  rowIds: boolean;
  where: (Condition | ConditionGroup)[];
  groupBy: Target[];
  sorts: { target: Target; desc: boolean }[];
  /** null: no limit (the download routes without a limit). */
  limit: number | null;
  offset: number;
  count: boolean;
  results: boolean;
  schema: boolean;
  keys: boolean;
  format: 'json' | 'csv';
  /** Some output is an aggregate (sum, count, ...): the answer has one row per group. */
  aggregate: boolean;
  /** The query as DKAN echoes it in `query`: as sent, defaults and resources filled in. */
  echo: Record<string, unknown>;
}

/** Where the query came from and how it is addressed. */
export interface QueryContext {
  /** The resource named by the path; undefined on /datastore/query, where `resources` names them. */
  resource?: Resource;
  /** Finds a resource by distribution id (for `resources` on /datastore/query). */
  byId(id: string): Resource | undefined;
  maxLimit: number;
  /** The download routes: no rows limit, no `results`. */
  download: boolean;
}
