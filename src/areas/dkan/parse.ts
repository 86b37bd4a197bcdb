// Query string -> DKAN's normalised query: bracket form (qs, as PHP parses it) and the JSON-text `conditions` / `sort=<field> <dir>` forms (a product decision, test/contracts/NOTES.md).
import qs from 'qs';
import { schemaError, badRequest } from './errors.js';
import { RECORD_NUMBER, type Column, type Resource } from './datasets.js';

export const OPERATORS = ['=', '<>', '<', '<=', '>', '>=', 'like', 'between', 'in', 'not in', 'contains', 'starts with', 'match', 'is_empty', 'not_empty'] as const;
export type Operator = (typeof OPERATORS)[number];

/** Operators whose value is a text pattern, never a column. */
const PATTERN_OPERATORS: ReadonlySet<Operator> = new Set(['like', 'contains', 'starts with']);

/** Documented bounds: deeper or longer condition trees are refused with a 400. */
export const LIMITS = { groupDepth: 5, conditions: 100, sorts: 10, listValues: 1000, matchTerms: 100, matchColumns: 20 } as const;

/** The words of a `match` value: +required, -excluded, "quoted phrases" or plain words. */
export const MATCH_TERM = /[+-]?"[^"]*"|\S+/g;

export type Scalar = string | number | boolean;
export interface ColumnRef {
  resource: string;
  property: string;
}
export interface Condition {
  resource: 't';
  property: string;
  value?: Scalar | Scalar[] | ColumnRef;
  operator: Operator;
}
export interface ConditionGroup {
  groupOperator: 'and' | 'or';
  conditions: (Condition | ConditionGroup)[];
}
export interface Sort {
  resource: 't';
  property: string;
  order: 'asc' | 'desc';
}

/** Key order follows DKAN's echo of the query. */
export interface NormalizedQuery {
  keys: boolean;
  limit: number;
  offset: number;
  resources: [{ id: string; alias: 't' }];
  count: boolean;
  results: boolean;
  schema: boolean;
  format: 'json' | 'csv';
  rowIds: boolean;
  properties: string[];
  conditions?: (Condition | ConditionGroup)[];
  sorts?: Sort[];
  groupings?: string[];
}

const QS_OPTIONS = { depth: 4 * LIMITS.groupDepth + 4, arrayLimit: 1000, parameterLimit: 5000 } as const;

export function parseQueryString(raw: string): Record<string, unknown> {
  return qs.parse(raw, QS_OPTIONS) as Record<string, unknown>;
}

/** PHP keeps the last of repeated plain keys. */
const last = (v: unknown): unknown => (Array.isArray(v) ? v[v.length - 1] : v);

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** qs turns large or sparse indexes into objects keyed "12"; DKAN sees a list either way. */
function asList(v: unknown): unknown[] | undefined {
  if (Array.isArray(v)) return v;
  if (isPlainObject(v)) {
    const keys = Object.keys(v);
    if (keys.length > 0 && keys.every((k) => /^\d+$/.test(k))) return keys.sort((a, b) => Number(a) - Number(b)).map((k) => v[k]);
  }
  return undefined;
}

function integer(v: unknown, name: string, fallback: number, min: number, max: number): number {
  const raw = last(v);
  if (raw === undefined || raw === '') return fallback;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n)) throw schemaError('type', name, `The attribute must be an integer, "${String(raw)}" given.`);
  if (n < min) throw schemaError('minimum', name, `The attribute must be greater than or equal to ${min}.`);
  if (n > max) throw schemaError('maximum', name, `The attribute must be less than or equal to ${max}.`);
  return n;
}

function flag(v: unknown, name: string, fallback: boolean): boolean {
  const raw = last(v);
  if (raw === undefined || raw === '') return fallback;
  if (raw === true || raw === 'true' || raw === '1' || raw === 1) return true;
  if (raw === false || raw === 'false' || raw === '0' || raw === 0) return false;
  throw schemaError('type', name, `The attribute must be a boolean (true or false), "${String(raw)}" given.`);
}

function column(resource: Resource, name: unknown, pointer: string, allowRecordNumber: boolean): Column {
  if (typeof name !== 'string') throw schemaError('type', pointer, 'The attribute must be a string naming a column.');
  const col = resource.byName.get(name) ?? (allowRecordNumber && name === 'record_number' ? RECORD_NUMBER : undefined);
  if (!col) {
    throw schemaError('enum', pointer, `Unknown column "${name}". Columns of this resource: ${resource.columns.map((c) => c.name).join(', ')}.`);
  }
  return col;
}

const isScalar = (v: unknown): v is Scalar => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

class ConditionReader {
  count = 0;
  constructor(private readonly resource: Resource) {}

  list(input: unknown, pointer: string, depth: number): (Condition | ConditionGroup)[] {
    const items = asList(input) ?? (isPlainObject(input) ? [input] : undefined);
    if (!items) throw schemaError('type', pointer, 'The attribute must be an array of conditions.');
    return items.map((item, i) => this.item(item, `${pointer}/${i}`, depth));
  }

  item(item: unknown, pointer: string, depth: number): Condition | ConditionGroup {
    if (!isPlainObject(item)) throw schemaError('type', pointer, 'The attribute must be an object (a condition or a condition group).');
    if (++this.count > LIMITS.conditions) {
      throw schemaError('maxItems', pointer, `A query may hold at most ${LIMITS.conditions} conditions and groups.`);
    }
    if ('conditions' in item && !('property' in item)) {
      if (depth >= LIMITS.groupDepth) {
        throw schemaError('maxDepth', pointer, `Condition groups may be nested at most ${LIMITS.groupDepth} levels deep.`);
      }
      const op = last(item.groupOperator) ?? 'and';
      const groupOperator = typeof op === 'string' ? op.toLowerCase() : op;
      if (groupOperator !== 'and' && groupOperator !== 'or') {
        throw schemaError('enum', `${pointer}/groupOperator`, "The attribute must be one of the following values: 'and', 'or'.");
      }
      return { groupOperator, conditions: this.list(item.conditions, `${pointer}/conditions`, depth + 1) };
    }
    return this.condition(item, pointer);
  }

  condition(item: Record<string, unknown>, pointer: string): Condition {
    if (item.property === undefined) throw schemaError('required', pointer, 'The required properties (property) are missing.');
    const rawOp = last(item.operator) ?? '=';
    const operator = (typeof rawOp === 'string' ? rawOp.trim().toLowerCase() : rawOp) as Operator;
    if (!OPERATORS.includes(operator)) {
      throw schemaError('enum', `${pointer}/operator`, `The attribute must be one of the following values: ${OPERATORS.map((o) => `'${o}'`).join(', ')}.`);
    }
    const property = last(item.property);
    if (operator === 'match' && typeof property === 'string') {
      const names = property.split(',');
      // Each word becomes a LIKE per column: bounded so the SQL stays within SQLite's expression limits.
      if (names.length > LIMITS.matchColumns) throw schemaError('maxItems', `${pointer}/property`, `match searches at most ${LIMITS.matchColumns} columns.`);
      for (const name of names) column(this.resource, name.trim(), `${pointer}/property`, false);
      const terms = typeof item.value === 'string' ? (item.value.match(MATCH_TERM) ?? []).length : 0;
      if (terms > LIMITS.matchTerms) throw schemaError('maxItems', `${pointer}/value`, `match takes at most ${LIMITS.matchTerms} words; ${terms} were given.`);
    } else {
      column(this.resource, property, `${pointer}/property`, true);
    }
    if (operator === 'is_empty' || operator === 'not_empty') return { resource: 't', property: property as string, operator };
    return { resource: 't', property: property as string, value: this.value(item.value, operator, `${pointer}/value`), operator };
  }

  value(raw: unknown, operator: Operator, pointer: string): Scalar | Scalar[] | ColumnRef {
    if (raw === undefined) throw schemaError('required', pointer.replace(/\/value$/, ''), 'The required properties (value) are missing.');
    const list = asList(raw);
    if (operator === 'in' || operator === 'not in' || operator === 'between') {
      if (!list || !list.every(isScalar)) {
        throw schemaError('type', pointer, `The operator "${operator}" needs a list of values, e.g. ${pointer}/0=a&${pointer}/1=b or a JSON array.`);
      }
      if (operator === 'between' && list.length !== 2) throw schemaError('type', pointer, 'The operator "between" needs exactly two values.');
      if (list.length === 0) throw schemaError('minItems', pointer, `The operator "${operator}" needs at least one value.`);
      if (list.length > LIMITS.listValues) throw schemaError('maxItems', pointer, `At most ${LIMITS.listValues} values are allowed.`);
      return list;
    }
    if (isScalar(raw)) return raw;
    if (isPlainObject(raw) && 'property' in raw && PATTERN_OPERATORS.has(operator)) {
      // DKAN compares a pattern with text only; a column there would be compared as the text "[object Object]".
      throw schemaError('type', pointer, `The operator "${operator}" needs a text pattern; a column reference cannot be used as its value.`);
    }
    if (isPlainObject(raw) && 'property' in raw && operator !== 'match') {
      column(this.resource, last(raw.property), `${pointer}/property`, true);
      return { resource: 't', property: last(raw.property) as string };
    }
    throw schemaError('type', pointer, `The operator "${operator}" needs a single value (string or number).`);
  }
}

function readConditions(resource: Resource, raw: unknown): (Condition | ConditionGroup)[] | undefined {
  if (raw === undefined || raw === '') return undefined;
  let input = raw;
  // JSON-text form (test/contracts/NOTES.md): the whole list as JSON text (the last one when repeated).
  const text = typeof raw === 'string' ? raw : Array.isArray(raw) && raw.every((r) => typeof r === 'string') ? (raw[raw.length - 1] as string) : undefined;
  if (text !== undefined) {
    try {
      input = JSON.parse(text);
    } catch (err) {
      throw schemaError('type', 'conditions', `The attribute must be an array of conditions; the JSON text does not parse (${(err as Error).message}).`);
    }
  }
  const list = new ConditionReader(resource).list(input, 'conditions', 0);
  return list.length > 0 ? list : undefined;
}

function readSorts(resource: Resource, sorts: unknown, sort: unknown): Sort[] | undefined {
  const out: Sort[] = [];
  const add = (property: unknown, order: unknown, pointer: string) => {
    const col = column(resource, property, `${pointer}/property`, true);
    const o = order === undefined || order === '' ? 'asc' : typeof order === 'string' ? order.toLowerCase() : order;
    if (o !== 'asc' && o !== 'desc') throw schemaError('enum', `${pointer}/order`, "The attribute must be one of the following values: 'asc', 'desc'.");
    out.push({ resource: 't', property: col.name, order: o });
  };
  if (sorts !== undefined && sorts !== '') {
    const list = asList(sorts) ?? (isPlainObject(sorts) ? [sorts] : undefined);
    if (!list) throw schemaError('type', 'sorts', 'The attribute must be an array of {property, order}.');
    list.forEach((s, i) => {
      if (!isPlainObject(s)) throw schemaError('type', `sorts/${i}`, 'The attribute must be an object {property, order}.');
      add(last(s.property), last(s.order), `sorts/${i}`);
    });
  }
  if (sort !== undefined && sort !== '') {
    const text = Array.isArray(sort) ? sort.join(',') : sort;
    if (typeof text !== 'string') throw schemaError('type', 'sort', 'The attribute must be text: <field> or <field> <asc|desc>, comma separated.');
    text.split(',').forEach((part, i) => {
      const m = /^\s*(.+?)(?:\s+(asc|desc|ASC|DESC))?\s*$/.exec(part);
      if (!m) throw schemaError('pattern', 'sort', 'The attribute must be <field> or <field> <asc|desc>, comma separated.');
      add(m[1], m[2], `sort/${i}`);
    });
  }
  if (out.length > LIMITS.sorts) throw schemaError('maxItems', 'sorts', `At most ${LIMITS.sorts} sort keys are allowed.`);
  return out.length > 0 ? out : undefined;
}

function readNames(resource: Resource, raw: unknown, name: string): string[] | undefined {
  if (raw === undefined || raw === '') return undefined;
  const list = asList(raw) ?? (typeof raw === 'string' ? raw.split(',').map((s) => s.trim()) : isPlainObject(raw) ? [raw] : undefined);
  if (!list) throw schemaError('type', name, 'The attribute must be an array of column names.');
  return list.map((p, i) => {
    const prop = isPlainObject(p) ? last(p.property) : p;
    if (prop === 'record_number') {
      throw badRequest('The record_number property is for internal use and cannot be requested directly. Set rowIds to true to include it.');
    }
    return column(resource, prop, `${name}/${i}`, false).name;
  });
}

export function normalizeQuery(params: Record<string, unknown>, resource: Resource, maxLimit: number): NormalizedQuery {
  if (params.resources !== undefined || params.joins !== undefined) {
    throw badRequest('Joins are not available and resources should not be explicitly passed when using the resource query endpoint. Try /api/1/datastore/query.');
  }
  const format = last(params.format) ?? 'json';
  if (format !== 'json' && format !== 'csv') throw schemaError('enum', 'format', "The attribute must be one of the following values: 'json', 'csv'.");
  const rowIds = flag(params.rowIds, 'rowIds', false);
  const explicit = readNames(resource, params.properties, 'properties');
  if (rowIds && explicit) {
    throw badRequest('The rowIds property cannot be set to true if you are requesting specific properties. Remove properties or set rowIds to false.');
  }
  const groupings = readNames(resource, params.groupings, 'groupings');
  if (groupings && explicit) {
    const bad = explicit.findIndex((p) => !groupings.includes(p));
    if (bad >= 0) throw schemaError('enum', `properties/${bad}`, `With groupings, properties must be grouped columns; "${explicit[bad]}" is not.`);
  }
  const q: NormalizedQuery = {
    keys: flag(params.keys, 'keys', true),
    limit: integer(params.limit, 'limit', Math.min(500, maxLimit), 1, maxLimit),
    offset: integer(params.offset, 'offset', 0, 0, Number.MAX_SAFE_INTEGER),
    resources: [{ id: resource.distributionId, alias: 't' }],
    count: flag(params.count, 'count', true),
    results: flag(params.results, 'results', true),
    schema: flag(params.schema, 'schema', true),
    format,
    rowIds,
    properties: explicit ?? groupings ?? resource.columns.map((c) => c.name),
  };
  const conditions = readConditions(resource, params.conditions);
  if (conditions) q.conditions = conditions;
  const sorts = readSorts(resource, params.sorts, params.sort);
  if (sorts) q.sorts = sorts;
  if (groupings) q.groupings = groupings;
  return q;
}
