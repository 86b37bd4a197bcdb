// Expressions in `properties`: arithmetic and aggregates over columns and numbers (SelectFactory::expressionToString).
import { schemaError } from './errors.js';
import { asList, checkPattern, isPlainObject, last } from './query-input.js';
import { AGGREGATES, ARITHMETIC, LIMITS, type Aggregate, type Arithmetic, type Expr } from './query-model.js';
import type { Reader } from './query-reader.js';

export function readExpression(r: Reader, raw: unknown, pointer: string, depth: number): Expr {
  if (!isPlainObject(raw))
    throw schemaError('type', pointer, 'The attribute must be an expression object {operator, operands}.');
  if (depth > LIMITS.expressionDepth)
    throw schemaError('maxDepth', pointer, `Expressions may be nested at most ${LIMITS.expressionDepth} levels deep.`);
  if (++r.expressionNodes > LIMITS.expressionNodes)
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
  const operands = list.map((o, i) => readOperand(r, o, `${pointer}/operands/${i}`, depth));
  if ((AGGREGATES as readonly unknown[]).includes(operator)) {
    // SelectFactory::expressionToString uses the first operand only: "SUM(col)".
    return { kind: 'aggregate', fn: operator as Aggregate, operand: operands[0]! };
  }
  return { kind: 'arithmetic', operator: operator as Arithmetic, operands };
}

export function readOperand(r: Reader, raw: unknown, pointer: string, depth: number): Expr {
  if (++r.expressionNodes > LIMITS.expressionNodes)
    throw schemaError('maxItems', pointer, `A query may hold at most ${LIMITS.expressionNodes} expression operands.`);
  if (typeof raw === 'number' && Number.isFinite(raw)) return { kind: 'number', value: raw };
  // PHP's is_numeric: a numeric string (as a GET query sends it) is a number.
  if (typeof raw === 'string' && /^\s*-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(raw))
    return { kind: 'number', value: Number(raw) };
  if (typeof raw === 'string') return { kind: 'column', ref: r.stringProperty(raw) };
  if (isPlainObject(raw)) {
    if (raw.expression !== undefined) return readExpression(r, raw.expression, `${pointer}/expression`, depth + 1);
    if (raw.operator !== undefined) return readExpression(r, raw, pointer, depth + 1);
    if (raw.property !== undefined) {
      const alias = r.resourceAlias(last(raw.resource), `${pointer}/resource`);
      return { kind: 'column', ref: r.column(alias, checkPattern(last(raw.property), `${pointer}/property`)) };
    }
  }
  throw schemaError(
    'anyOf',
    pointer,
    'An operand must be a number, a property name, {resource, property} or {expression}.',
  );
}

export const hasAggregate = (e: Expr): boolean =>
  e.kind === 'aggregate' || (e.kind === 'arithmetic' && e.operands.some(hasAggregate));

export const exprHasColumn = (e: Expr): boolean =>
  e.kind === 'column' || (e.kind === 'arithmetic' && e.operands.some(exprHasColumn));
