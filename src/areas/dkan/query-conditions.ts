// `conditions`: conditions and nested condition groups, as query.json and DKAN's QueryFactory read them.
import { badRequest, schemaError } from './errors.js';
import { asList, checkPattern, isPlainObject, isScalar, last } from './query-input.js';
import {
  LIMITS,
  MATCH_TERM,
  OPERATORS,
  type ColumnRef,
  type Condition,
  type ConditionGroup,
  type Operator,
  type Scalar,
} from './query-model.js';
import type { Reader } from './query-reader.js';

/** Operators whose value is a text pattern, never a column. */
const PATTERN_OPERATORS: ReadonlySet<Operator> = new Set(['like', 'contains', 'starts with']);

/** The JSON-text form of conditions (a product decision, test/contracts/NOTES.md): the whole list as JSON text. */
export function conditionsInput(raw: unknown): unknown {
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

export function readConditions(
  r: Reader,
  input: unknown,
  pointer: string,
  depth: number,
): (Condition | ConditionGroup)[] {
  const items = asList(input);
  if (!items) throw schemaError('type', pointer, 'The attribute must be an array of conditions.');
  return items.map((item, i) => readConditionItem(r, item, `${pointer}/${i}`, depth));
}

export function readConditionItem(
  r: Reader,
  item: unknown,
  pointer: string,
  depth: number,
): Condition | ConditionGroup {
  if (!isPlainObject(item))
    throw schemaError('type', pointer, 'The attribute must be an object (a condition or a condition group).');
  if (++r.conditionCount > LIMITS.conditions) {
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
      r.defer(badRequest('Invalid condition'));
      return {
        kind: 'group',
        joiner: 'and',
        items: readConditions(r, item.conditions ?? [], `${pointer}/conditions`, depth + 1),
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
      items: readConditions(r, item.conditions ?? [], `${pointer}/conditions`, depth + 1),
    };
  }
  return readCondition(r, item, pointer);
}

export function readCondition(r: Reader, item: Record<string, unknown>, pointer: string): Condition {
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
  const alias = r.resourceAlias(last(item.resource), `${pointer}/resource`);
  const property = checkPattern(last(item.property), `${pointer}/property`);
  const noValue = operator === 'is_empty' || operator === 'not_empty';
  const value = noValue ? undefined : readValue(r, item.value, operator, `${pointer}/value`);
  if (operator === 'match') {
    const names = property.split(',');
    // Each word becomes a LIKE per column: bounded so the SQL stays within SQLite's expression limits.
    if (names.length > LIMITS.matchColumns)
      throw schemaError('maxItems', `${pointer}/property`, `match searches at most ${LIMITS.matchColumns} columns.`);
    // MySQL's fulltext parser (what DKAN's match runs on) has no use for a NUL; SQLite's rejects it.
    if (typeof value === 'string' && value.includes('\0'))
      throw schemaError('pattern', `${pointer}/value`, 'A match value must not contain a NUL character.');
    const terms = typeof value === 'string' ? (value.match(MATCH_TERM) ?? []).length : 0;
    if (terms > LIMITS.matchTerms)
      throw schemaError(
        'maxItems',
        `${pointer}/value`,
        `match takes at most ${LIMITS.matchTerms} words; ${terms} were given.`,
      );
    // DKAN's addMatchCondition always searches the primary resource, whatever `resource` says.
    const refs = names.map((n) => r.column(undefined, n.trim(), false));
    return { kind: 'condition', ref: refs[0]!, refs, operator, value };
  }
  if (PATTERN_OPERATORS.has(operator) && String(value).length > LIMITS.patternLength)
    throw schemaError(
      'maxLength',
      `${pointer}/value`,
      `A pattern of the operator "${operator}" is at most ${LIMITS.patternLength} characters long.`,
    );
  const ref = r.column(alias, property);
  return noValue ? { kind: 'condition', ref, operator } : { kind: 'condition', ref, operator, value };
}

export function readValue(r: Reader, raw: unknown, operator: Operator, pointer: string): Scalar | Scalar[] | ColumnRef {
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
    const alias = r.resourceAlias(last(raw.resource), `${pointer}/resource`);
    return r.column(alias, checkPattern(last(raw.property), `${pointer}/property`));
  }
  throw schemaError('type', pointer, `The operator "${operator}" needs a single value (string or number).`);
}
