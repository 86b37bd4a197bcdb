// A sent DKAN query (GET query string as PHP parses it, or a POST JSON body) -> the checked query model.
// Mirrors DKAN's order: the controller's own checks, then query.json validation (schema errors), then the
// storage layer's errors ("Unsafe property name", "Invalid sort.", "Column not found.") and the echo.
import qs from 'qs';
import { schemaError, badRequest, columnNotFound, distributionNotFound } from './errors.js';
import { RECORD_NUMBER, type Column, type Resource } from './datasets.js';

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
/** DKAN's SelectFactory::safeJoinOperator, as far as query.json's operator enum lets values through. */
const JOIN_OPERATORS = ['=', '<>', '<', '<=', '>', '>='];

/** Operators whose value is a text pattern, never a column. */
const PATTERN_OPERATORS: ReadonlySet<Operator> = new Set(['like', 'contains', 'starts with']);

/** Documented bounds: larger queries are refused with a 400 before any SQL is built. */
export const LIMITS = {
  groupDepth: 5,
  conditions: 100,
  sorts: 10,
  listValues: 1000,
  matchTerms: 100,
  matchColumns: 20,
  resources: 4,
  properties: 200,
  expressionDepth: 5,
  expressionNodes: 50,
  aliasLength: 64,
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

const QS_OPTIONS = { depth: 4 * LIMITS.groupDepth + 8, arrayLimit: 1000, parameterLimit: 5000 } as const;

export function parseQueryString(raw: string): Record<string, unknown> {
  return qs.parse(raw, QS_OPTIONS) as Record<string, unknown>;
}

/** A POST body as DKAN reads it (`$request->getContent()`, json_decode). */
export function parseBody(body: unknown): Record<string, unknown> {
  let value = body;
  if (Buffer.isBuffer(value)) value = value.toString('utf8');
  if (typeof value === 'string') {
    if (value.trim() === '') return {};
    try {
      value = JSON.parse(value);
    } catch (err) {
      throw schemaError(
        'type',
        '',
        `The request body must be a JSON object (a datastore query); it does not parse: ${(err as Error).message}.`,
      );
    }
  }
  if (value === undefined || value === null) return {};
  if (!isPlainObject(value))
    throw schemaError('type', '', 'The request body must be a JSON object (a datastore query).');
  return value;
}

/** PHP keeps the last of repeated plain keys. */
const last = (v: unknown): unknown => (Array.isArray(v) ? v[v.length - 1] : v);

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** qs turns large or sparse indexes into objects keyed "12"; DKAN sees a list either way. */
function asList(v: unknown): unknown[] | undefined {
  if (Array.isArray(v)) return v;
  if (isPlainObject(v)) {
    const keys = Object.keys(v);
    if (keys.length > 0 && keys.every((k) => /^\d+$/.test(k)))
      return keys.sort((a, b) => Number(a) - Number(b)).map((k) => v[k]);
  }
  return undefined;
}

/** PHP's empty(): what DKAN's controller checks before validation. */
const phpEmpty = (v: unknown): boolean =>
  v === undefined ||
  v === null ||
  v === false ||
  v === 0 ||
  v === '' ||
  v === '0' ||
  (Array.isArray(v) && v.length === 0) ||
  (isPlainObject(v) && Object.keys(v).length === 0);

// query.json coercion (justinrainbow/json-schema with coerce): "500" -> 500, "true"/"false" -> booleans; nothing else.
function integer(v: unknown, name: string, fallback: number | null, min: number, max: number): number | null {
  const raw = last(v);
  if (raw === undefined || raw === '') return fallback;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^-?\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n))
    throw schemaError('type', name, `The attribute must be an integer, "${String(raw)}" given.`);
  if (n < min) throw schemaError('minimum', name, `The attribute must be greater than or equal to ${min}.`);
  if (n > max) throw schemaError('maximum', name, `The attribute must be less than or equal to ${max}.`);
  return n;
}

function flag(v: unknown, name: string, fallback: boolean): boolean {
  const raw = last(v);
  if (raw === undefined) return fallback;
  if (raw === true || raw === 'true') return true;
  if (raw === false || raw === 'false') return false;
  throw schemaError('type', name, `The attribute must be a boolean (true or false), "${String(raw)}" given.`);
}

const isScalar = (v: unknown): v is Scalar => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

/** query.json's `property` definition: no table prefix. */
function checkPattern(name: unknown, pointer: string): string {
  if (typeof name !== 'string') throw schemaError('type', pointer, 'The attribute must be a string naming a column.');
  if (!/^[^.]+$/.test(name))
    throw schemaError('pattern', pointer, 'The attribute must match the regex pattern "^[^.]+$".');
  return name;
}

/** Drupal's escapeAlias: an alias keeps only [A-Za-z0-9_.]. */
const escapeAlias = (alias: string): string => alias.replace(/[^A-Za-z0-9_.]+/g, '');

class Reader {
  conditionCount = 0;
  expressionNodes = 0;
  /** The first storage-level error: raised only after the whole query passed validation, as DKAN does. */
  pending: Error | null = null;
  readonly sources: Source[] = [];
  readonly byAlias = new Map<string, Source>();

  defer(err: Error): void {
    this.pending ??= err;
  }

  get primary(): Source {
    return this.sources[0]!;
  }

  addSource(alias: string, resource: Resource): Source {
    const source: Source = { alias, resource, sql: `t${this.sources.length}` };
    this.sources.push(source);
    if (!this.byAlias.has(alias)) this.byAlias.set(alias, source);
    return source;
  }

  /** A column of a resource (the primary one when `alias` is undefined); unknown ones are MySQL's "Column not found". */
  column(alias: string | undefined, name: string, allowRecordNumber = true): ColumnRef {
    const source = alias === undefined ? this.primary : this.byAlias.get(alias);
    const column =
      source?.resource.byName.get(name) ??
      (allowRecordNumber && name === RECORD_NUMBER.name ? RECORD_NUMBER : undefined);
    if (!source || !column) {
      this.defer(columnNotFound());
      return { source: this.primary, column: RECORD_NUMBER };
    }
    return { source, column };
  }

  resourceAlias(v: unknown, pointer: string): string | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== 'string') throw schemaError('type', pointer, 'The attribute must be a string (a resource alias).');
    return v;
  }

  // --- conditions -----------------------------------------------------------------------------------
  conditions(input: unknown, pointer: string, depth: number): (Condition | ConditionGroup)[] {
    const items = asList(input);
    if (!items) throw schemaError('type', pointer, 'The attribute must be an array of conditions.');
    return items.map((item, i) => this.conditionItem(item, `${pointer}/${i}`, depth));
  }

  conditionItem(item: unknown, pointer: string, depth: number): Condition | ConditionGroup {
    if (!isPlainObject(item))
      throw schemaError('type', pointer, 'The attribute must be an object (a condition or a condition group).');
    if (++this.conditionCount > LIMITS.conditions) {
      throw schemaError('maxItems', pointer, `A query may hold at most ${LIMITS.conditions} conditions and groups.`);
    }
    if (item.property === undefined && (item.conditions !== undefined || item.groupOperator !== undefined)) {
      if (depth >= LIMITS.groupDepth) {
        throw schemaError(
          'maxDepth',
          pointer,
          `Condition groups may be nested at most ${LIMITS.groupDepth} levels deep.`,
        );
      }
      const op = last(item.groupOperator);
      // QueryFactory.php 256-273: a group without groupOperator is neither a condition nor a group.
      if (op === undefined) {
        this.defer(badRequest('Invalid condition'));
        return {
          kind: 'group',
          joiner: 'and',
          items: this.conditions(item.conditions ?? [], `${pointer}/conditions`, depth + 1),
        };
      }
      if (op !== 'and' && op !== 'or') {
        throw schemaError(
          'enum',
          `${pointer}/groupOperator`,
          "The attribute must be one of the following values: 'and', 'or'.",
        );
      }
      return {
        kind: 'group',
        joiner: op,
        items: this.conditions(item.conditions ?? [], `${pointer}/conditions`, depth + 1),
      };
    }
    return this.condition(item, pointer);
  }

  condition(item: Record<string, unknown>, pointer: string): Condition {
    if (item.property === undefined)
      throw schemaError('required', pointer, 'The required properties (property) are missing.');
    const operator = (last(item.operator) ?? '=') as Operator;
    // query.json's enum is case-sensitive: LIKE or " like" are not operators.
    if (!OPERATORS.includes(operator)) {
      throw schemaError(
        'enum',
        `${pointer}/operator`,
        `The attribute must be one of the following values: ${OPERATORS.map((o) => `'${o}'`).join(', ')}.`,
      );
    }
    const alias = this.resourceAlias(last(item.resource), `${pointer}/resource`);
    const property = checkPattern(last(item.property), `${pointer}/property`);
    const noValue = operator === 'is_empty' || operator === 'not_empty';
    const value = noValue ? undefined : this.value(item.value, operator, `${pointer}/value`);
    if (operator === 'match') {
      const names = property.split(',');
      // Each word becomes a LIKE per column: bounded so the SQL stays within SQLite's expression limits.
      if (names.length > LIMITS.matchColumns)
        throw schemaError('maxItems', `${pointer}/property`, `match searches at most ${LIMITS.matchColumns} columns.`);
      const terms = typeof value === 'string' ? (value.match(MATCH_TERM) ?? []).length : 0;
      if (terms > LIMITS.matchTerms)
        throw schemaError(
          'maxItems',
          `${pointer}/value`,
          `match takes at most ${LIMITS.matchTerms} words; ${terms} were given.`,
        );
      // DKAN's addMatchCondition always searches the primary resource, whatever `resource` says.
      const refs = names.map((n) => this.column(undefined, n.trim(), false));
      return { kind: 'condition', ref: refs[0]!, refs, operator, value };
    }
    const ref = this.column(alias, property);
    return noValue ? { kind: 'condition', ref, operator } : { kind: 'condition', ref, operator, value };
  }

  value(raw: unknown, operator: Operator, pointer: string): Scalar | Scalar[] | ColumnRef {
    if (raw === undefined)
      throw schemaError('required', pointer.replace(/\/value$/, ''), 'The required properties (value) are missing.');
    const list = asList(raw);
    if (operator === 'in' || operator === 'not in' || operator === 'between') {
      if (!list?.every(isScalar)) {
        throw schemaError(
          'type',
          pointer,
          `The operator "${operator}" needs a list of values, e.g. ${pointer}/0=a&${pointer}/1=b or a JSON array.`,
        );
      }
      if (operator === 'between' && list.length !== 2)
        throw schemaError('type', pointer, 'The operator "between" needs exactly two values.');
      if (list.length === 0)
        throw schemaError('minItems', pointer, `The operator "${operator}" needs at least one value.`);
      if (list.length > LIMITS.listValues)
        throw schemaError('maxItems', pointer, `At most ${LIMITS.listValues} values are allowed.`);
      return list;
    }
    if (isScalar(raw)) return raw;
    if (isPlainObject(raw) && raw.property !== undefined && PATTERN_OPERATORS.has(operator)) {
      // A pattern is text; a column there would be compared as the text "[object Object]".
      throw schemaError(
        'type',
        pointer,
        `The operator "${operator}" needs a text pattern; a column reference cannot be used as its value.`,
      );
    }
    if (isPlainObject(raw) && raw.property !== undefined && operator !== 'match') {
      const alias = this.resourceAlias(last(raw.resource), `${pointer}/resource`);
      return this.column(alias, checkPattern(last(raw.property), `${pointer}/property`));
    }
    throw schemaError('type', pointer, `The operator "${operator}" needs a single value (string or number).`);
  }

  // --- properties and expressions --------------------------------------------------------------------
  expression(raw: unknown, pointer: string, depth: number): Expr {
    if (!isPlainObject(raw))
      throw schemaError('type', pointer, 'The attribute must be an expression object {operator, operands}.');
    if (depth > LIMITS.expressionDepth)
      throw schemaError(
        'maxDepth',
        pointer,
        `Expressions may be nested at most ${LIMITS.expressionDepth} levels deep.`,
      );
    if (++this.expressionNodes > LIMITS.expressionNodes)
      throw schemaError('maxItems', pointer, `A query may hold at most ${LIMITS.expressionNodes} expression operands.`);
    const operator = raw.operator;
    if (
      !(ARITHMETIC as readonly unknown[]).includes(operator) &&
      !(AGGREGATES as readonly unknown[]).includes(operator)
    ) {
      throw schemaError(
        'enum',
        `${pointer}/operator`,
        `The attribute must be one of the following values: ${[...ARITHMETIC, ...AGGREGATES].map((o) => `'${o}'`).join(', ')}.`,
      );
    }
    const list = asList(raw.operands);
    if (!list || list.length === 0)
      throw schemaError('required', `${pointer}/operands`, 'An expression needs an array of operands.');
    const operands = list.map((o, i) => this.operand(o, `${pointer}/operands/${i}`, depth));
    if ((AGGREGATES as readonly unknown[]).includes(operator)) {
      // SelectFactory::expressionToString uses the first operand only: "SUM(col)".
      return { kind: 'aggregate', fn: operator as Aggregate, operand: operands[0]! };
    }
    return { kind: 'arithmetic', operator: operator as Arithmetic, operands };
  }

  operand(raw: unknown, pointer: string, depth: number): Expr {
    if (++this.expressionNodes > LIMITS.expressionNodes)
      throw schemaError('maxItems', pointer, `A query may hold at most ${LIMITS.expressionNodes} expression operands.`);
    if (typeof raw === 'number' && Number.isFinite(raw)) return { kind: 'number', value: raw };
    // PHP's is_numeric: a numeric string (as a GET query sends it) is a number.
    if (typeof raw === 'string' && /^\s*-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(raw))
      return { kind: 'number', value: Number(raw) };
    if (typeof raw === 'string') return { kind: 'column', ref: this.stringProperty(raw) };
    if (isPlainObject(raw)) {
      if (raw.expression !== undefined) return this.expression(raw.expression, `${pointer}/expression`, depth + 1);
      if (raw.operator !== undefined) return this.expression(raw, pointer, depth + 1);
      if (raw.property !== undefined) {
        const alias = this.resourceAlias(last(raw.resource), `${pointer}/resource`);
        return { kind: 'column', ref: this.column(alias, checkPattern(last(raw.property), `${pointer}/property`)) };
      }
    }
    throw schemaError(
      'anyOf',
      pointer,
      'An operand must be a number, a property name, {resource, property} or {expression}.',
    );
  }

  /** A property given as a plain string: a column of the primary resource (SelectFactory::normalizeProperty). */
  stringProperty(name: string): ColumnRef {
    if (!/^[^.]+$/.test(name)) {
      this.defer(badRequest(`Unsafe property name: ${name}`));
      return { source: this.primary, column: RECORD_NUMBER };
    }
    return this.column(undefined, name, false);
  }
}

function checkAlias(alias: unknown, pointer: string): string {
  if (typeof alias !== 'string') throw schemaError('type', pointer, 'The attribute must be a string.');
  const escaped = escapeAlias(alias);
  if (escaped === '' || escaped.length > LIMITS.aliasLength) {
    throw schemaError(
      'pattern',
      pointer,
      `An alias needs 1 to ${LIMITS.aliasLength} of the characters A-Z, a-z, 0-9, _ and . (others are removed).`,
    );
  }
  return escaped;
}

/**
 * OpenAPI clients (Swagger UI among them) send an array of objects in a query as one JSON text per item,
 * `sorts={"property":"state","order":"desc"}`; the whole array as JSON text works too, as for conditions.
 * Items that are objects already (DKAN's bracket form) pass through.
 */
function jsonItems(list: unknown[] | undefined, name = 'sorts', shape = '{property, order}'): unknown[] | undefined {
  if (!list) return undefined;
  return list.flatMap((item, i) => {
    if (typeof item !== 'string') return [item];
    const text = item.trim();
    if (!text.startsWith('{') && !text.startsWith('[')) return [item];
    try {
      const parsed: unknown = JSON.parse(text);
      return Array.isArray(parsed) ? parsed : [parsed];
    } catch (err) {
      throw schemaError(
        'type',
        `${name}/${i}`,
        `The attribute must be an object ${shape}; the JSON text does not parse (${(err as Error).message}).`,
      );
    }
  });
}

/** The JSON-text form of conditions (a product decision, test/contracts/NOTES.md): the whole list as JSON text. */
function conditionsInput(raw: unknown): unknown {
  const text =
    typeof raw === 'string'
      ? raw
      : Array.isArray(raw) && raw.length > 0 && raw.every((r) => typeof r === 'string')
        ? (raw[raw.length - 1] as string)
        : undefined;
  if (text === undefined) return raw;
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw schemaError(
      'type',
      'conditions',
      `The attribute must be an array of conditions; the JSON text does not parse (${(err as Error).message}).`,
    );
  }
}

/** Drupal's Select::addField naming: the alias or field; if taken, <table>_<field>; then a counter. */
function uniqueKey(taken: Set<string>, wanted: string, tableAlias: string | null, field: string): string {
  // Expressions (addExpression) skip the <table>_<field> step.
  let key = taken.has(wanted) && tableAlias !== null ? `${tableAlias}_${field}` : wanted;
  const base = key;
  for (let n = 2; taken.has(key); n++) key = `${base}_${n}`;
  taken.add(key);
  return key;
}

const hasAggregate = (e: Expr): boolean =>
  e.kind === 'aggregate' || (e.kind === 'arithmetic' && e.operands.some(hasAggregate));

/** The query.json keys with defaults, in the order DKAN fills them in (DatastoreQuery::populateDefaults). */
function withDefaults(echo: Record<string, unknown>, q: DkanQuery, download: boolean): void {
  const defaults: [string, unknown][] = [
    ['limit', q.limit],
    ['offset', 0],
    ['count', true],
    ['results', true],
    ['schema', true],
    ['keys', true],
    ['format', 'json'],
    ['rowIds', false],
  ];
  for (const [key, value] of defaults) {
    if (key === 'limit' && download) continue;
    if (!(key in echo)) echo[key] = value;
  }
}

/** Coerced echo values: what DKAN's type coercion made of the sent text. */
function coerceEcho(sent: Record<string, unknown>, q: DkanQuery, conditions: unknown): Record<string, unknown> {
  const echo: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(sent)) {
    switch (key) {
      case 'limit':
        echo.limit = q.limit;
        break;
      case 'offset':
        echo.offset = q.offset;
        break;
      case 'count':
      case 'results':
      case 'schema':
      case 'keys':
      case 'rowIds':
        echo[key] = key === 'rowIds' ? q.rowIds : q[key];
        break;
      case 'format':
        echo.format = q.format;
        break;
      case 'conditions':
        if (conditions !== undefined) echo.conditions = listDeep(conditions);
        break;
      default:
        echo[key] = listDeep(raw);
    }
  }
  return echo;
}

/** PHP arrays with keys 0..n-1 encode as JSON lists; qs gives objects for sparse or long ones. */
function listDeep(v: unknown): unknown {
  const list = Array.isArray(v) ? v : asList(v);
  if (list) return list.map(listDeep);
  if (isPlainObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, listDeep(x)]));
  return v;
}

/** The checked query for a sent query object (GET parameters or POST body). */
export function readQuery(sent: Record<string, unknown>, ctx: QueryContext): DkanQuery {
  // AbstractQueryController::additionalPayloadValidation, before query.json validation.
  const rawProperties = sent.properties;
  const propertyList =
    asList(rawProperties) ??
    (typeof rawProperties === 'string' && rawProperties !== ''
      ? rawProperties.split(',').map((s) => s.trim())
      : undefined);
  for (const p of propertyList ?? []) {
    if (p === RECORD_NUMBER.name || (isPlainObject(p) && last(p.property) === RECORD_NUMBER.name)) {
      throw badRequest(
        'The record_number property is for internal use and cannot be requested directly. Set rowIds to true and remove properties from your query to see the full table with row IDs.',
      );
    }
  }
  // The payload is type-coerced first, so rowIds=false is empty here.
  if (!phpEmpty(rawProperties) && !phpEmpty(last(sent.rowIds)) && last(sent.rowIds) !== 'false') {
    throw badRequest('The rowIds property cannot be set to true if you are requesting specific properties.');
  }
  if (ctx.resource && (!phpEmpty(sent.resources) || !phpEmpty(sent.joins))) {
    throw badRequest(
      'Joins are not available and resources should not be explicitly passed when using the resource query endpoint. Try /api/1/datastore/query.',
    );
  }

  const r = new Reader();
  const format = last(sent.format) ?? 'json';
  if (format !== 'json' && format !== 'csv')
    throw schemaError('enum', 'format', "The attribute must be one of the following values: 'csv', 'json'.");
  const rowIds = flag(sent.rowIds, 'rowIds', false);
  const limit = integer(
    sent.limit,
    'limit',
    ctx.download ? null : Math.min(500, ctx.maxLimit),
    1,
    ctx.download ? Number.MAX_SAFE_INTEGER : ctx.maxLimit,
  );
  const q: DkanQuery = {
    sources: r.sources,
    joins: [],
    outputs: [],
    rowIds,
    where: [],
    groupBy: [],
    sorts: [],
    limit,
    offset: integer(sent.offset, 'offset', 0, 0, Number.MAX_SAFE_INTEGER)!,
    count: flag(sent.count, 'count', true),
    // Both buildDatastoreQuery()s overwrite a flag before validation: the download routes never send
    // `results` (QueryDownloadController.php 68), the CSV format always has a schema (AbstractQueryController.php 229-232).
    results: ctx.download ? false : flag(sent.results, 'results', true),
    schema: format === 'csv' && !ctx.download ? true : flag(sent.schema, 'schema', true),
    keys: flag(sent.keys, 'keys', true),
    format,
    aggregate: false,
    echo: {},
  };

  // Resources: the path's one (alias t), or the `resources` list of /datastore/query.
  if (ctx.resource) {
    r.addSource('t', ctx.resource);
  } else if (sent.resources !== undefined) {
    // As for sorts: Swagger UI sends each {id, alias} as JSON text.
    const given = typeof sent.resources === 'string' ? [sent.resources] : asList(sent.resources);
    const list = jsonItems(given, 'resources', '{id, alias}');
    if (!list) throw schemaError('type', 'resources', 'The attribute must be an array of {id, alias}.');
    if (list.length > LIMITS.resources)
      throw schemaError(
        'maxItems',
        'resources',
        `At most ${LIMITS.resources} resources can be queried (joined) at once.`,
      );
    const found: [string, Resource | undefined, string][] = list.map((item, i) => {
      if (!isPlainObject(item))
        throw schemaError('type', `resources/${i}`, 'The attribute must be an object {id, alias}.');
      const id = last(item.id);
      const alias = last(item.alias);
      if (typeof id !== 'string')
        throw schemaError(
          id === undefined ? 'required' : 'type',
          `resources/${i}/id`,
          'The attribute must be a string: the distribution id.',
        );
      if (typeof alias !== 'string' || alias === '')
        throw schemaError(
          alias === undefined ? 'required' : 'type',
          `resources/${i}/alias`,
          'The attribute must be a string: the alias used elsewhere in the query.',
        );
      return [id, ctx.byId(id), alias];
    });
    for (const [id, resource, alias] of found) {
      if (!resource) throw distributionNotFound(id);
      r.addSource(alias, resource);
    }
  }
  if (r.sources.length === 0) {
    // DKAN's Query service answers an empty result when no resource is named.
    q.echo = { ...coerceEcho(sent, q, undefined) };
    withDefaults(q.echo, q, ctx.download);
    return q;
  }

  // Joins: one per resource after the first (QueryFactory::populateQueryJoins).
  const joins = sent.joins === undefined || sent.joins === '' ? [] : asList(sent.joins);
  if (!joins) throw schemaError('type', 'joins', 'The attribute must be an array of {resource, condition}.');
  if (r.sources.length > 1 && joins.length < r.sources.length - 1) throw badRequest('Too many resources specified.');
  if (joins.length > LIMITS.resources - 1)
    throw schemaError('maxItems', 'joins', `At most ${LIMITS.resources - 1} joins are allowed.`);
  joins.forEach((join, i) => {
    const pointer = `joins/${i}`;
    if (!isPlainObject(join))
      throw schemaError('type', pointer, 'The attribute must be an object {resource, condition}.');
    if (join.resource === undefined || join.condition === undefined)
      throw schemaError('required', pointer, 'The required properties (resource, condition) are missing.');
    const alias = r.resourceAlias(last(join.resource), `${pointer}/resource`)!;
    const cond = join.condition;
    if (!isPlainObject(cond))
      throw schemaError('type', `${pointer}/condition`, 'The attribute must be a condition object.');
    const operator = last(cond.operator) ?? '=';
    if (!(OPERATORS as readonly unknown[]).includes(operator)) {
      throw schemaError(
        'enum',
        `${pointer}/condition/operator`,
        `The attribute must be one of the following values: ${OPERATORS.map((o) => `'${o}'`).join(', ')}.`,
      );
    }
    if (cond.property === undefined || cond.value === undefined)
      throw schemaError('required', `${pointer}/condition`, 'The required properties (property, value) are missing.');
    const leftAlias = r.resourceAlias(last(cond.resource), `${pointer}/condition/resource`);
    const left = r.column(leftAlias, checkPattern(last(cond.property), `${pointer}/condition/property`));
    const v = cond.value;
    if (!isPlainObject(v) || typeof last(v.resource) !== 'string')
      throw badRequest('Invalid join condition; collection must be specified.');
    const right = r.column(
      last(v.resource) as string,
      checkPattern(last(v.property), `${pointer}/condition/value/property`),
    );
    if (!JOIN_OPERATORS.includes(operator as string)) throw badRequest(`Invalid join operator: ${String(operator)}`);
    const source = r.sources.find((s, k) => k > 0 && s.alias === alias);
    if (!source) {
      r.defer(columnNotFound());
      return;
    }
    q.joins.push({ source, left, operator: operator as string, right });
  });
  if (r.sources.length > 1 && new Set(q.joins.map((j) => j.source)).size < r.sources.length - 1 && !r.pending) {
    throw badRequest('Too many resources specified.');
  }
  const joinedRows = q.joins.reduce((n, j) => n * j.source.resource.rows, r.primary.resource.rows);
  if (q.joins.length > 0 && joinedRows > LIMITS.joinRows) {
    throw schemaError(
      'maximum',
      'joins',
      `Joined resources may hold at most ${LIMITS.joinRows} row combinations (the product of their row counts); these hold ${joinedRows}.`,
    );
  }

  // Properties: strings, {resource, property, alias} or {expression, alias}.
  const taken = new Set<string>();
  if (rowIds) {
    q.outputs.push({
      key: RECORD_NUMBER.name,
      expr: { kind: 'column', ref: { source: r.primary, column: RECORD_NUMBER } },
      headerName: RECORD_NUMBER.name,
    });
    taken.add(RECORD_NUMBER.name);
  }
  let explicit = false;
  if (!phpEmpty(rawProperties)) {
    if (!propertyList) throw schemaError('type', 'properties', 'The attribute must be an array of properties.');
    if (propertyList.length > LIMITS.properties)
      throw schemaError('maxItems', 'properties', `At most ${LIMITS.properties} properties are allowed.`);
    explicit = true;
    propertyList.forEach((p, i) => {
      const pointer = `properties/${i}`;
      if (typeof p === 'string') {
        const ref = r.stringProperty(p);
        q.outputs.push({ key: uniqueKey(taken, p, r.primary.alias, p), expr: { kind: 'column', ref }, headerName: p });
      } else if (isPlainObject(p) && p.expression !== undefined) {
        if (p.alias === undefined)
          throw schemaError('required', pointer, 'The required properties (alias) are missing.');
        const alias = checkAlias(last(p.alias), `${pointer}/alias`);
        const expr = r.expression(p.expression, `${pointer}/expression`, 1);
        q.outputs.push({ key: uniqueKey(taken, alias, null, alias), expr, headerName: alias });
      } else if (isPlainObject(p) && p.property !== undefined && p.resource !== undefined) {
        const resource = r.resourceAlias(last(p.resource), `${pointer}/resource`);
        const property = checkPattern(last(p.property), `${pointer}/property`);
        const ref = r.column(resource, property, false);
        const alias = p.alias === undefined ? undefined : checkAlias(last(p.alias), `${pointer}/alias`);
        q.outputs.push({
          key: uniqueKey(taken, alias ?? property, resource ?? r.primary.alias, property),
          expr: { kind: 'column', ref },
          headerName: property,
        });
      } else {
        throw schemaError(
          'anyOf',
          pointer,
          'A property must be a column name, {resource, property, alias} or {expression, alias}.',
        );
      }
    });
  } else {
    // Query::getProperties: all columns of the primary resource, in table order.
    for (const column of r.primary.resource.columns) {
      q.outputs.push({
        key: uniqueKey(taken, column.name, r.primary.alias, column.name),
        expr: { kind: 'column', ref: { source: r.primary, column } },
        headerName: column.name,
      });
    }
  }
  q.aggregate = q.outputs.some((o) => hasAggregate(o.expr));

  const conditions = conditionsInput(sent.conditions);
  if (conditions !== undefined && conditions !== '') q.where = r.conditions(conditions, 'conditions', 0);

  // Sorts (DKAN form), then the shorthand `sort=<field> [asc|desc]` (a product decision, test/contracts/NOTES.md).
  const sentSorts = typeof sent.sorts === 'string' && sent.sorts !== '' ? [sent.sorts] : sent.sorts;
  const sorts = jsonItems(
    sentSorts === undefined || sentSorts === ''
      ? []
      : (asList(sentSorts) ?? (isPlainObject(sentSorts) ? [sentSorts] : undefined)),
  );
  if (!sorts) throw schemaError('type', 'sorts', 'The attribute must be an array of {property, order}.');
  const sortKeys: { alias: string | undefined; property: string; order: unknown; pointer: string }[] = [];
  sorts.forEach((s, i) => {
    const pointer = `sorts/${i}`;
    if (!isPlainObject(s)) throw schemaError('type', pointer, 'The attribute must be an object {property, order}.');
    const order = last(s.order);
    if (order !== undefined && order !== 'asc' && order !== 'desc') {
      throw schemaError(
        'enum',
        `${pointer}/order`,
        "The attribute must be one of the following values: 'asc', 'desc'.",
      );
    }
    if (s.property === undefined)
      throw schemaError('required', pointer, 'The required properties (property) are missing.');
    sortKeys.push({
      alias: r.resourceAlias(last(s.resource), `${pointer}/resource`),
      property: checkPattern(last(s.property), `${pointer}/property`),
      order,
      pointer,
    });
  });
  const sort = last(sent.sort);
  if (sort !== undefined && sort !== '') {
    if (typeof sort !== 'string')
      throw schemaError('type', 'sort', 'The attribute must be text: <field> or <field> <asc|desc>, comma separated.');
    sort.split(',').forEach((part, i) => {
      const m = /^\s*(.+?)(?:\s+(asc|desc|ASC|DESC))?\s*$/.exec(part);
      if (!m)
        throw schemaError('pattern', 'sort', 'The attribute must be <field> or <field> <asc|desc>, comma separated.');
      sortKeys.push({
        alias: undefined,
        property: checkPattern(m[1], `sort/${i}/property`),
        order: (m[2] ?? 'asc').toLowerCase(),
        pointer: `sort/${i}`,
      });
    });
  }
  if (sortKeys.length > LIMITS.sorts)
    throw schemaError('maxItems', 'sorts', `At most ${LIMITS.sorts} sort keys are allowed.`);

  const groupings =
    sent.groupings === undefined || sent.groupings === ''
      ? []
      : (asList(sent.groupings) ??
        (typeof sent.groupings === 'string' ? sent.groupings.split(',').map((s) => s.trim()) : undefined));
  if (!groupings) throw schemaError('type', 'groupings', 'The attribute must be an array of column names.');
  if (groupings.length > LIMITS.properties)
    throw schemaError('maxItems', 'groupings', `At most ${LIMITS.properties} groupings are allowed.`);
  const groupNames = groupings.map((g, i) => {
    const raw = isPlainObject(g) ? last(g.property) : g;
    return checkPattern(raw, isPlainObject(g) ? `groupings/${i}/property` : `groupings/${i}`);
  });

  // Storage-level checks, in DKAN's order: QueryFactory (groupings), SelectFactory (properties, sorts), MySQL.
  if (groupNames.length > 0) {
    // Query.php fills `properties` with every column when none are given, so those count as un-grouped too.
    const propNames = explicit
      ? propertyList!.flatMap((p) =>
          typeof p === 'string'
            ? [p]
            : isPlainObject(p) && p.expression === undefined && p.property !== undefined
              ? [String(last(p.property))]
              : [],
        )
      : rowIds
        ? []
        : r.primary.resource.columns.map((c) => c.name);
    const ungrouped = propNames.filter((p) => !groupNames.includes(p));
    if (ungrouped.length > 0)
      throw badRequest(`Un-grouped properties found in aggregate query: ${ungrouped.join(', ')}`);
  }
  if (r.pending) throw r.pending;
  for (const s of sortKeys) {
    if (s.order === undefined) throw badRequest('Invalid sort.');
  }
  // MySQL with ONLY_FULL_GROUP_BY: plain columns beside aggregates need a GROUP BY (AbstractDatabaseTable).
  if (
    q.aggregate &&
    groupNames.length === 0 &&
    q.outputs.some((o) => !hasAggregate(o.expr) && o.expr.kind !== 'number' && exprHasColumn(o.expr))
  ) {
    throw badRequest(
      'You may not mix simple properties and aggregation expressions in a single query. If one of your properties includes an expression with a sum, count, avg, min or max operator, remove other properties from your query and try again.',
    );
  }
  q.groupBy = groupNames.map((name) => groupTarget(r, q, name));
  q.sorts = sortKeys.map((s) => ({ target: sortTarget(r, q, s.alias, s.property), desc: s.order === 'desc' }));
  if (r.pending) throw r.pending;

  // The echo: the query as sent (after type coercion), then resources, then defaults, then properties.
  const echo = coerceEcho(sent, q, conditions);
  if (ctx.resource) echo.resources = [{ id: ctx.resource.distributionId, alias: 't' }];
  if (format === 'csv' && !ctx.download) echo.schema = true;
  if (ctx.download) echo.results = false;
  withDefaults(echo, q, ctx.download);
  if (!rowIds && phpEmpty(echo.properties)) echo.properties = r.primary.resource.columns.map((c) => c.name);
  q.echo = echo;
  return q;
}

const exprHasColumn = (e: Expr): boolean =>
  e.kind === 'column' || (e.kind === 'arithmetic' && e.operands.some(exprHasColumn));

/** ORDER BY: an output alias first (MySQL resolves select aliases first in ORDER BY), then a column. */
function sortTarget(r: Reader, q: DkanQuery, alias: string | undefined, property: string): Target {
  if (alias === undefined) {
    const index = q.outputs.findIndex((o) => o.key === property);
    if (index >= 0) return { kind: 'output', index };
    const source = r.sources.find((s) => s.resource.byName.has(property));
    if (source)
      return { kind: 'column', ref: r.column(source.alias === r.primary.alias ? undefined : source.alias, property) };
  }
  return { kind: 'column', ref: r.column(alias, property) };
}

/** GROUP BY: a column first (MySQL resolves table columns first in GROUP BY), then an output alias. */
function groupTarget(r: Reader, q: DkanQuery, name: string): Target {
  const source = r.sources.find((s) => s.resource.byName.has(name));
  if (source) return { kind: 'column', ref: { source, column: source.resource.byName.get(name)! } };
  const index = q.outputs.findIndex((o) => o.key === name && !hasAggregate(o.expr));
  if (index >= 0) return { kind: 'output', index };
  return { kind: 'column', ref: r.column(undefined, name) };
}
