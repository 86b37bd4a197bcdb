// `sorts`, the `sort` shorthand and `groupings`, and what each key names (an output or a column).
import { schemaError } from './errors.js';
import { hasAggregate } from './query-expressions.js';
import { asList, checkPattern, isPlainObject, jsonItems, last } from './query-input.js';
import { LIMITS, type DkanQuery, type Target } from './query-model.js';
import type { Reader } from './query-reader.js';

export interface SortKey {
  alias: string | undefined;
  property: string;
  order: unknown;
  pointer: string;
}

/** Sorts (DKAN form), then the shorthand `sort=<field> [asc|desc]` (a product decision, test/contracts/NOTES.md). */
export function readSortKeys(r: Reader, sent: Record<string, unknown>): SortKey[] {
  const sentSorts = typeof sent.sorts === 'string' && sent.sorts !== '' ? [sent.sorts] : sent.sorts;
  const sorts = jsonItems(
    sentSorts === undefined || sentSorts === ''
      ? []
      : (asList(sentSorts) ?? (isPlainObject(sentSorts) ? [sentSorts] : undefined)),
  );
  if (!sorts) throw schemaError('type', 'sorts', 'The attribute must be an array of {property, order}.');
  const sortKeys: SortKey[] = [];
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
  return sortKeys;
}

export function readGroupNames(sent: Record<string, unknown>): string[] {
  const groupings =
    sent.groupings === undefined || sent.groupings === ''
      ? []
      : (asList(sent.groupings) ??
        (typeof sent.groupings === 'string' ? sent.groupings.split(',').map((s) => s.trim()) : undefined));
  if (!groupings) throw schemaError('type', 'groupings', 'The attribute must be an array of column names.');
  if (groupings.length > LIMITS.properties)
    throw schemaError('maxItems', 'groupings', `At most ${LIMITS.properties} groupings are allowed.`);
  return groupings.map((g, i) => {
    const raw = isPlainObject(g) ? last(g.property) : g;
    return checkPattern(raw, isPlainObject(g) ? `groupings/${i}/property` : `groupings/${i}`);
  });
}

/** ORDER BY: an output alias first (MySQL resolves select aliases first in ORDER BY), then a column. */
export function sortTarget(r: Reader, q: DkanQuery, alias: string | undefined, property: string): Target {
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
export function groupTarget(r: Reader, q: DkanQuery, name: string): Target {
  const source = r.sources.find((s) => s.resource.byName.has(name));
  if (source) return { kind: 'column', ref: { source, column: source.resource.byName.get(name)! } };
  const index = q.outputs.findIndex((o) => o.key === name && !hasAggregate(o.expr));
  if (index >= 0) return { kind: 'output', index };
  return { kind: 'column', ref: r.column(undefined, name) };
}
